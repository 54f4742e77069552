package dev.squall.local.catalog;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * The Iceberg REST catalog protocol on 127.0.0.1, served by Iceberg's reference server pieces
 * ({@code RESTCatalogAdapter} and {@code RESTCatalogServlet}, from iceberg-core's tests jar; the
 * same pieces {@code org.apache.iceberg.rest.RESTCatalogServer} of the iceberg-open-api test
 * fixtures wires together) on Jetty 11, in front of a backend catalog: by default a second
 * {@code JdbcCatalog} on the local stack's SQLite file and S3 warehouse, so REST and JDBC clients
 * see the same tables.
 *
 * <p>Why not {@code RESTCatalogServer} itself: it binds every interface, takes extra settings from
 * {@code CATALOG_*} environment variables, and logs its backend properties, S3 keys included, at
 * INFO. Here the server binds loopback only and never logs properties.
 *
 * <p>The server vends no credentials: a client configures its own {@code FileIO} (see
 * {@link #clientProperties()}) and supplies keys itself.
 */
public final class LocalRestCatalogServer implements AutoCloseable {
  private final Server server;
  private final Catalog backend;
  private final URI uri;
  private final Map<String, String> fileIoProperties;

  private LocalRestCatalogServer(
      Server server, Catalog backend, URI uri, Map<String, String> fileIoProperties) {
    this.server = server;
    this.backend = backend;
    this.uri = uri;
    this.fileIoProperties = Map.copyOf(fileIoProperties);
  }

  /**
   * Starts a REST catalog in front of the local JDBC catalog's SQLite file and warehouse.
   *
   * @param local the local catalog whose tables the server serves
   * @param port TCP port on 127.0.0.1, or 0 for any free port
   * @throws Exception if Jetty does not start (for example, the port is taken)
   */
  public static LocalRestCatalogServer start(LocalCatalog local, int port) throws Exception {
    Objects.requireNonNull(local, "local");
    // Same name as the local catalog: JdbcCatalog keys its rows by catalog name, so only the same
    // name sees the same tables in the SQLite file.
    Catalog backend = CatalogFactory.build(LocalCatalog.CATALOG_NAME, local.catalogProperties());
    return start(backend, local.fileIoProperties(), port);
  }

  /**
   * Starts a REST catalog in front of any catalog. The server owns the backend and closes it.
   *
   * @param backend the catalog that holds the tables
   * @param fileIoProperties FileIO properties to hand to clients through {@link #clientProperties()}
   *     (no credentials)
   * @param port TCP port on 127.0.0.1, or 0 for any free port
   */
  public static LocalRestCatalogServer start(
      Catalog backend, Map<String, String> fileIoProperties, int port) throws Exception {
    Objects.requireNonNull(backend, "backend");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.setContextPath("/");
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
    server.setHandler(context);
    try {
      server.start();
    } catch (Exception e) {
      server.stop();
      closeBackend(backend);
      throw e;
    }
    URI uri = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    return new LocalRestCatalogServer(server, backend, uri, fileIoProperties);
  }

  /** The server's base URI, {@code http://127.0.0.1:PORT}, for a REST catalog's {@code uri}. */
  public URI uri() {
    return uri;
  }

  /**
   * Properties for {@link CatalogFactory#build} that reach this server: {@code type=rest},
   * {@code uri}, and the warehouse's FileIO settings. Credentials are not included; add
   * {@code s3.access-key-id} and {@code s3.secret-access-key} to read or write data files.
   */
  public Map<String, String> clientProperties() {
    Map<String, String> props = new HashMap<>(fileIoProperties);
    props.put(CatalogFactory.TYPE, CatalogFactory.TYPE_REST);
    props.put(CatalogProperties.URI, uri.toString());
    return props;
  }

  @Override
  public void close() throws Exception {
    try {
      server.stop();
    } finally {
      closeBackend(backend);
    }
  }

  private static void closeBackend(Catalog catalog) throws Exception {
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }
}
