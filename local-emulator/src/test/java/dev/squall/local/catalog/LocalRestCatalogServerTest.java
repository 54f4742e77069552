package dev.squall.local.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.s3.EmbeddedS3;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;

class LocalRestCatalogServerTest {
  static final String BUCKET = "squall-warehouse";

  private static Catalog restClient(LocalRestCatalogServer server) {
    Map<String, String> props = new HashMap<>(server.clientProperties());
    // The server vends no credentials; this client reads and writes data files with the local keys.
    props.put("s3.access-key-id", EmbeddedS3.ACCESS_KEY);
    props.put("s3.secret-access-key", EmbeddedS3.SECRET_KEY);
    return CatalogFactory.build("rest-client", props);
  }

  @Test
  void tableCreatedThroughARestClientReadsBackThroughRestAndThroughTheJdbcCatalog() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET);
        LocalRestCatalogServer server = LocalRestCatalogServer.start(local, 0)) {
      assertThat(server.uri().getHost()).isEqualTo("127.0.0.1");
      Catalog rest = restClient(server);
      try {
        assertThat(rest).isInstanceOf(RESTCatalog.class);
        // Same helper as the JDBC test: namespace, table, one Parquet data file, one append.
        Table created = LocalCatalogTest.createTableWithTwoRows(rest);
        assertThat(created.location()).startsWith("s3://" + BUCKET + "/warehouse/demo/events");

        Table viaRest = rest.loadTable(LocalCatalogTest.ID);
        assertThat(LocalCatalogTest.names(viaRest)).containsExactly("1:one", "2:two");
        assertThat(((SupportsNamespaces) rest).listNamespaces()).contains(Namespace.of("demo"));

        // The REST server's backend is the local JDBC catalog: same table, same snapshot.
        Table viaJdbc = local.catalog().loadTable(LocalCatalogTest.ID);
        assertThat(viaJdbc.currentSnapshot().snapshotId()).isEqualTo(viaRest.currentSnapshot().snapshotId());
        assertThat(LocalCatalogTest.names(viaJdbc)).containsExactly("1:one", "2:two");

        assertThatThrownBy(() -> rest.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("demo", "missing")))
            .isInstanceOf(NoSuchTableException.class);
      } finally {
        ((AutoCloseable) rest).close();
      }
    }
  }

  @Test
  void configEndpointAnswersPlainHttpAndVendsNoCredentials() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET);
        LocalRestCatalogServer server = LocalRestCatalogServer.start(local, 0)) {
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(server.uri() + "/v1/config")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("defaults").doesNotContain(EmbeddedS3.SECRET_KEY);
    }
  }

  @Test
  void aTakenPortFailsToStartWithTheBindError() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET);
        LocalRestCatalogServer first = LocalRestCatalogServer.start(local, 0)) {
      int port = first.uri().getPort();
      assertThatThrownBy(() -> LocalRestCatalogServer.start(local, port))
          .hasMessageContaining("127.0.0.1:" + port);
      // The first server still answers.
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(first.uri() + "/v1/config")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
    }
  }
}
