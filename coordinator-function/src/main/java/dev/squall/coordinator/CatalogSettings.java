package dev.squall.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * The coordinator's Iceberg catalog from its environment. {@code SQUALL_CATALOG_TYPE}:
 * <ul>
 *   <li>{@code glue} (default): the AWS Glue Data Catalog; {@code SQUALL_CATALOG_WAREHOUSE} is the
 *       S3 location new tables go under.
 *   <li>{@code rest}: an Iceberg REST catalog at {@code SQUALL_CATALOG_URI}, or described by the
 *       Secrets Manager secret {@code SQUALL_CATALOG_SECRET} (name or ARN) holding JSON
 *       {@code {"uri": ..., "credential": "client_id:client_secret"}} or {@code {"uri": ...,
 *       "token": ...}}, optionally {@code "warehouse"}. The secret is read when the catalog is
 *       first built (after any SnapStart snapshot), never logged.
 *   <li>{@code s3tables}: Amazon S3 Tables through its Iceberg REST endpoint in {@code AWS_REGION},
 *       signed with SigV4 (service {@code s3tables}); {@code SQUALL_CATALOG_WAREHOUSE} is the table
 *       bucket's ARN.
 * </ul>
 */
public final class CatalogSettings {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CatalogSettings() {}

  /** Builds the catalog the environment names, reading a REST catalog's secret from Secrets Manager. */
  public static Catalog catalog(Map<String, String> env) {
    return CatalogUtil.buildIcebergCatalog("squall", properties(env, CatalogSettings::readSecret), null);
  }

  /**
   * The Iceberg catalog properties for the environment.
   *
   * @param secrets reads a secret's string value by name or ARN
   * @throws IllegalArgumentException naming a missing or malformed setting (never a secret's value)
   */
  public static Map<String, String> properties(Map<String, String> env, UnaryOperator<String> secrets) {
    String type = env.getOrDefault("SQUALL_CATALOG_TYPE", "glue");
    Map<String, String> props = new HashMap<>();
    String warehouse = env.get("SQUALL_CATALOG_WAREHOUSE");
    switch (type) {
      case "glue" -> props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_GLUE);
      case "rest" -> {
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        String secretId = env.get("SQUALL_CATALOG_SECRET");
        if (secretId != null && !secretId.isBlank()) {
          warehouse = fromSecret(secretId, secrets.apply(secretId), props, warehouse);
        } else {
          props.put("uri", CoordinatorEnvironment.required(env, "SQUALL_CATALOG_URI"));
        }
      }
      case "s3tables" -> {
        String region = CoordinatorEnvironment.required(env, "AWS_REGION");
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        props.put("uri", "https://s3tables." + region + ".amazonaws.com/iceberg");
        props.put("rest.sigv4-enabled", "true");
        props.put("rest.signing-name", "s3tables");
        props.put("rest.signing-region", region);
        warehouse = CoordinatorEnvironment.required(env, "SQUALL_CATALOG_WAREHOUSE");
      }
      default -> throw new IllegalArgumentException(
          "SQUALL_CATALOG_TYPE must be glue, rest or s3tables, not '" + type + "'");
    }
    if (warehouse != null && !warehouse.isBlank()) {
      props.put("warehouse", warehouse);
    }
    props.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    props.put("http-client.type", "urlconnection");
    // Manifests are immutable: a warm coordinator keeps their contents between scan plannings.
    props.put("io.manifest.cache-enabled", "true");
    return props;
  }

  /** Copies uri and credential or token from the secret; returns the warehouse to use. */
  private static String fromSecret(String secretId, String secretJson, Map<String, String> props, String warehouse) {
    JsonNode secret;
    try {
      secret = MAPPER.readTree(secretJson == null ? "" : secretJson);
    } catch (IOException e) {
      secret = null;
    }
    if (secret == null || !secret.isObject() || !secret.path("uri").isTextual()) {
      throw new IllegalArgumentException("secret " + secretId + " (SQUALL_CATALOG_SECRET) must be JSON with a "
          + "\"uri\" and a \"credential\" or \"token\"");
    }
    props.put("uri", secret.get("uri").asText());
    if (secret.path("credential").isTextual()) {
      props.put("credential", secret.get("credential").asText());
    }
    if (secret.path("token").isTextual()) {
      props.put("token", secret.get("token").asText());
    }
    return secret.path("warehouse").isTextual() ? secret.get("warehouse").asText() : warehouse;
  }

  private static String readSecret(String secretId) {
    try (SecretsManagerClient client = SecretsManagerClient.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
      return client.getSecretValue(b -> b.secretId(secretId)).secretString();
    }
  }
}
