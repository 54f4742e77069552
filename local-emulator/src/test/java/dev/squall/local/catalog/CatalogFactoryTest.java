package dev.squall.local.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.s3.EmbeddedS3;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.aws.glue.GlueCatalog;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogFactoryTest {
  @TempDir Path dir;

  private Map<String, String> jdbcProperties(EmbeddedS3 s3, String secret) {
    Map<String, String> props = new HashMap<>(
        CatalogFactory.s3FileIoProperties(s3.endpoint().toString(), EmbeddedS3.REGION.id()));
    props.put("uri", "jdbc:sqlite:" + dir.resolve("c.db"));
    props.put("warehouse", "s3://factory-test/warehouse");
    props.put("s3.access-key-id", EmbeddedS3.ACCESS_KEY);
    props.put("s3.secret-access-key", secret);
    return props;
  }

  @Test
  void jdbcIsTheDefaultTypeAndItsTablesLiveOnS3ThroughS3FileIO() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient("factory-test")) {
      Catalog catalog = CatalogFactory.build("t", jdbcProperties(s3, EmbeddedS3.SECRET_KEY));
      try {
        assertThat(catalog).isInstanceOf(JdbcCatalog.class);
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("ns"));
        var table = catalog.createTable(TableIdentifier.of("ns", "t"),
            new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
        assertThat(table.location()).startsWith("s3://factory-test/warehouse/ns/t");
        // The table's metadata file was written to the embedded S3 through S3FileIO.
        String metadataKey = table.location().replace("s3://factory-test/", "") + "/metadata/";
        try (var client = s3.newClient()) {
          assertThat(client.listObjectsV2(b -> b.bucket("factory-test").prefix(metadataKey)).contents())
              .isNotEmpty();
        }
      } finally {
        ((AutoCloseable) catalog).close();
      }
    }
  }

  @Test
  void buildingLogsTheCatalogButNeverItsSecretKey() throws Exception {
    String secret = "not-to-be-logged-" + System.nanoTime();
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (EmbeddedS3 s3 = EmbeddedS3.start(null, 0, java.util.List.of("factory-test"))) {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      Catalog catalog;
      try {
        catalog = CatalogFactory.build("secretive", jdbcProperties(s3, secret));
      } finally {
        System.setErr(original);
      }
      ((AutoCloseable) catalog).close();
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(log).contains("building jdbc catalog 'secretive'").contains("s3.secret-access-key=****");
    assertThat(log).doesNotContain(secret);
  }

  @Test
  void glueTypeBuildsAGlueCatalogWithoutContactingAws() throws Exception {
    // Construction is offline: the Glue client connects on first use only.
    Catalog catalog = CatalogFactory.build("aws", Map.of(
        "type", "glue",
        "warehouse", "s3://some-bucket/warehouse",
        "client.region", "us-east-1",
        "io-impl", CatalogFactory.S3_FILE_IO,
        "http-client.type", "urlconnection"));
    assertThat(catalog).isInstanceOf(GlueCatalog.class);
    assertThat(catalog.name()).isEqualTo("aws");
    ((AutoCloseable) catalog).close();
  }

  @Test
  void unknownTypeIsRejectedNamingItAndTheKnownTypes() {
    assertThatThrownBy(() -> CatalogFactory.build("x", Map.of("type", "hive")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown catalog type 'hive'; expected one of [glue, jdbc, rest]");
  }

  @Test
  void missingRequiredPropertyIsRejectedNamingIt() {
    assertThatThrownBy(() -> CatalogFactory.build("x", Map.of("warehouse", "s3://b/w")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jdbc catalog needs property 'uri'");
    assertThatThrownBy(() -> CatalogFactory.build("x", Map.of("type", "rest")))
        .hasMessage("rest catalog needs property 'uri'");
    assertThatThrownBy(() -> CatalogFactory.build("x", Map.of("type", "glue")))
        .hasMessage("glue catalog needs property 'warehouse'");
  }

  @Test
  void redactedHidesKeysTokensAndPasswordsOnly() {
    Map<String, String> shown = CatalogFactory.redacted(Map.of(
        "s3.secret-access-key", "S", "s3.access-key-id", "A", "s3.session-token", "T",
        "jdbc.password", "P", "uri", "jdbc:sqlite:x", "s3.endpoint", "http://127.0.0.1:1"));
    assertThat(shown).containsEntry("s3.secret-access-key", "****").containsEntry("s3.access-key-id", "****")
        .containsEntry("s3.session-token", "****").containsEntry("jdbc.password", "****")
        .containsEntry("uri", "jdbc:sqlite:x").containsEntry("s3.endpoint", "http://127.0.0.1:1");
  }
}
