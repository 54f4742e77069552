package dev.squall.local.catalog;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an Iceberg {@link Catalog} from plain string properties, through Iceberg's own
 * {@link CatalogUtil#buildIcebergCatalog}, so that the same property names work here, in Spark,
 * Trino and PyIceberg.
 *
 * <p>{@value #TYPE} selects the catalog (default {@value #TYPE_JDBC}):
 * <ul>
 *   <li>{@value #TYPE_JDBC}: {@code JdbcCatalog}; needs {@code uri} (for example
 *       {@code jdbc:sqlite:/path/catalog.db}) and {@code warehouse}.
 *   <li>{@value #TYPE_REST}: {@code RESTCatalog}; needs {@code uri} (the REST endpoint). Connects
 *       to the server while it is built ({@code GET /v1/config}).
 *   <li>{@value #TYPE_GLUE}: {@code GlueCatalog} for AWS; needs {@code warehouse}
 *       ({@code s3://bucket/prefix}); region and credentials come from {@code client.region} or
 *       the AWS default provider chain.
 * </ul>
 * Data files go through whatever {@code io-impl} says; {@link #s3FileIoProperties} gives the
 * properties of Iceberg's {@code S3FileIO} against an S3-compatible endpoint.
 *
 * <p>Credentials never reach a log: the only logged form of the properties is {@link #redacted}.
 */
public final class CatalogFactory {
  /** Property that selects the catalog implementation (Iceberg's {@code type}). */
  public static final String TYPE = CatalogUtil.ICEBERG_CATALOG_TYPE;
  public static final String TYPE_JDBC = CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC;
  public static final String TYPE_REST = CatalogUtil.ICEBERG_CATALOG_TYPE_REST;
  public static final String TYPE_GLUE = CatalogUtil.ICEBERG_CATALOG_TYPE_GLUE;
  /** Iceberg's {@code S3FileIO} class name, for {@code io-impl}. */
  public static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";

  private static final Logger LOG = LoggerFactory.getLogger(CatalogFactory.class);
  private static final Set<String> TYPES = Set.of(TYPE_JDBC, TYPE_REST, TYPE_GLUE);
  /** Property-name fragments whose values are secrets. */
  private static final Set<String> SECRET_MARKERS =
      Set.of("secret", "access-key", "session-token", "token", "password", "credential", "jdbc.user");

  private CatalogFactory() {}

  /**
   * Builds and initializes a catalog.
   *
   * @param name catalog name (Iceberg uses it in table names and metrics)
   * @param properties catalog properties; {@value #TYPE} defaults to {@value #TYPE_JDBC}
   * @return the initialized catalog; the caller closes it if it is {@link AutoCloseable}
   * @throws IllegalArgumentException for an unknown type or a missing required property
   */
  public static Catalog build(String name, Map<String, String> properties) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(properties, "properties");
    Map<String, String> props = new TreeMap<>(properties);
    String type = props.getOrDefault(TYPE, TYPE_JDBC).toLowerCase(Locale.ROOT);
    if (!TYPES.contains(type)) {
      throw new IllegalArgumentException(
          "unknown catalog type '" + type + "'; expected one of " + new TreeSet<>(TYPES));
    }
    props.put(TYPE, type);
    switch (type) {
      case TYPE_JDBC -> {
        require(props, type, CatalogProperties.URI);
        require(props, type, CatalogProperties.WAREHOUSE_LOCATION);
      }
      case TYPE_REST -> require(props, type, CatalogProperties.URI);
      case TYPE_GLUE -> require(props, type, CatalogProperties.WAREHOUSE_LOCATION);
      default -> throw new AssertionError(type);
    }
    LOG.info("building {} catalog '{}' with {}", type, name, redacted(props));
    // No Hadoop configuration: every catalog here reaches storage through FileIO.
    return CatalogUtil.buildIcebergCatalog(name, props, null);
  }

  /**
   * Properties of Iceberg's {@code S3FileIO} against an S3-compatible endpoint with path-style
   * addressing (S3Proxy, MinIO, LocalStack). No credentials: add {@code s3.access-key-id} and
   * {@code s3.secret-access-key} where static keys are wanted, or let the AWS default provider
   * chain find them.
   *
   * @param endpoint for example {@code http://127.0.0.1:9000}
   * @param region signing region, for example {@code us-east-1}
   */
  public static Map<String, String> s3FileIoProperties(String endpoint, String region) {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(region, "region");
    return Map.of(
        CatalogProperties.FILE_IO_IMPL, S3_FILE_IO,
        "s3.endpoint", endpoint,
        "s3.path-style-access", "true",
        "client.region", region,
        // The SDK's URL-connection client is what this project ships; Iceberg defaults to Apache's.
        "http-client.type", "urlconnection");
  }

  /**
   * A copy of the properties safe to log or print: values of keys that name secrets (access keys,
   * secret keys, tokens, passwords, credentials) are replaced by {@code ****}.
   */
  public static Map<String, String> redacted(Map<String, String> properties) {
    Map<String, String> out = new TreeMap<>();
    properties.forEach((k, v) -> out.put(k, isSecret(k) ? "****" : v));
    return out;
  }

  static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return SECRET_MARKERS.stream().anyMatch(k::contains);
  }

  private static void require(Map<String, String> props, String type, String key) {
    String value = props.get(key);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(type + " catalog needs property '" + key + "'");
    }
  }
}
