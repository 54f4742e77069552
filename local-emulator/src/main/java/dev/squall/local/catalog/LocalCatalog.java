package dev.squall.local.catalog;

import dev.squall.local.faults.FaultingJdbcCatalog;
import dev.squall.local.faults.Faults;
import dev.squall.local.s3.EmbeddedS3;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;

/**
 * The local stack's Iceberg catalog: a {@code JdbcCatalog} on an SQLite file, with its warehouse
 * at {@code s3://<warehouse-bucket>/warehouse} on an {@link EmbeddedS3}, read and written through
 * Iceberg's {@code S3FileIO}.
 *
 * <p>The SQLite file is {@code <dataDir>/catalog/iceberg.db}; reopening the same data directory
 * finds the same namespaces and tables. With no data directory the file lives in a temporary
 * directory that {@link #close()} deletes (tests).
 *
 * <p>Checksums: the AWS SDK v2 (since 2.30) sends aws-chunked trailing checksums that S3Proxy 2.9
 * rejects, and {@code S3FileIO} builds its own S3 clients, which no per-client setting of ours
 * reaches. So {@link #open} sets the process-wide system properties
 * {@code aws.requestChecksumCalculation} and {@code aws.responseChecksumValidation} to
 * {@code when_required} unless they are already set. They must be set before the SDK first reads
 * them, that is before the first S3 client of the process is built.
 */
public final class LocalCatalog implements AutoCloseable {
  /** Name the local catalog has in Iceberg (table names print as {@code squall.tpch.lineitem}). */
  public static final String CATALOG_NAME = "squall";

  private final EmbeddedS3 s3;
  private final Path catalogFile;
  private final Path tempDir;
  private final String warehouse;
  private final Map<String, String> catalogProperties;
  private final Catalog catalog;

  private LocalCatalog(
      EmbeddedS3 s3, Path catalogFile, Path tempDir, String warehouse, Map<String, String> props, Faults faults) {
    this.s3 = s3;
    this.catalogFile = catalogFile;
    this.tempDir = tempDir;
    this.warehouse = warehouse;
    this.catalogProperties = Map.copyOf(props);
    if (faults == null) {
      this.catalog = CatalogFactory.build(CATALOG_NAME, catalogProperties);
    } else {
      FaultingJdbcCatalog faulting = new FaultingJdbcCatalog(faults);
      faulting.initialize(CATALOG_NAME, catalogProperties);
      this.catalog = faulting;
    }
  }

  /**
   * Opens the local catalog, creating the SQLite file and the warehouse bucket if needed.
   *
   * @param s3 the running embedded S3
   * @param dataDir directory for the catalog file, or {@code null} for a temporary one
   * @param warehouseBucket bucket that holds the warehouse (3 to 63 characters)
   * @throws UncheckedIOException if the catalog directory cannot be created
   */
  public static LocalCatalog open(EmbeddedS3 s3, Path dataDir, String warehouseBucket) {
    return open(s3, dataDir, warehouseBucket, null);
  }

  /**
   * As {@link #open(EmbeddedS3, Path, String)}, with the catalog's commits subject to the COMMIT
   * rules of {@code faults} (null: none).
   */
  public static LocalCatalog open(EmbeddedS3 s3, Path dataDir, String warehouseBucket, Faults faults) {
    Objects.requireNonNull(s3, "s3");
    Objects.requireNonNull(warehouseBucket, "warehouseBucket");
    if (warehouseBucket.length() < 3 || warehouseBucket.length() > 63) {
      throw new IllegalArgumentException(
          "warehouse bucket name must have 3 to 63 characters: '" + warehouseBucket + "'");
    }
    useChecksumsOnlyWhenRequired();
    Path tempDir = null;
    Path catalogDir;
    try {
      if (dataDir == null) {
        tempDir = Files.createTempDirectory("squall-catalog-");
        catalogDir = tempDir;
      } else {
        catalogDir = dataDir.resolve("catalog");
        Files.createDirectories(catalogDir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the catalog directory under " + dataDir, e);
    }
    s3.createBucket(warehouseBucket);
    Path file = catalogDir.resolve("iceberg.db").toAbsolutePath();
    String warehouse = "s3://" + warehouseBucket + "/warehouse";
    Map<String, String> props = new HashMap<>(fileIoProperties(s3));
    props.putAll(localCredentials());
    props.put(CatalogFactory.TYPE, CatalogFactory.TYPE_JDBC);
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + file);
    props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    // V1 schema adds view support to the JDBC catalog's tables.
    props.put("jdbc.schema-version", "V1");
    // SQLite allows one writer at a time; one pooled connection avoids SQLITE_BUSY between them.
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
    // Manifests are immutable: keep their contents in memory between scan plannings (Iceberg's cache).
    props.put(CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "true");
    return new LocalCatalog(s3, file, tempDir, warehouse, props, faults);
  }

  /** The catalog. Valid until {@link #close()}. */
  public Catalog catalog() {
    return catalog;
  }

  /** The warehouse root, {@code s3://<bucket>/warehouse}. */
  public String warehouseLocation() {
    return warehouse;
  }

  /** The SQLite file that holds the catalog. */
  public Path catalogFile() {
    return catalogFile;
  }

  /**
   * The {@code S3FileIO} properties a reader of this warehouse's data files needs: {@code io-impl},
   * endpoint, path-style access, region, HTTP client. No catalog settings and no credentials, so
   * that they may travel in a task payload; the reader takes credentials from its environment.
   */
  public Map<String, String> fileIoProperties() {
    return fileIoProperties(s3);
  }

  /**
   * A new {@code S3FileIO} for this warehouse, with the local stack's keys. The caller closes it.
   */
  public FileIO newFileIO() {
    Map<String, String> props = new HashMap<>(fileIoProperties());
    props.putAll(localCredentials());
    return CatalogUtil.loadFileIO(CatalogFactory.S3_FILE_IO, props, null);
  }

  /**
   * The catalog properties that reach this catalog from another process or server (the local REST
   * catalog server builds its backend from them). They hold the local stack's keys: never log them
   * except through {@link CatalogFactory#redacted}.
   */
  public Map<String, String> catalogProperties() {
    return catalogProperties;
  }

  /** The file behind an {@code s3://} location of this warehouse; see {@link EmbeddedS3#localPathOf}. */
  public Path localPathOf(String s3Uri) {
    return s3.localPathOf(s3Uri);
  }

  @Override
  public void close() throws IOException {
    try {
      if (catalog instanceof AutoCloseable closeable) {
        closeable.close();
      }
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("closing catalog " + CATALOG_NAME, e);
    } finally {
      if (tempDir != null) {
        deleteRecursively(tempDir);
      }
    }
  }

  private static Map<String, String> fileIoProperties(EmbeddedS3 s3) {
    return CatalogFactory.s3FileIoProperties(s3.endpoint().toString(), EmbeddedS3.REGION.id());
  }

  private static Map<String, String> localCredentials() {
    return Map.of(
        "s3.access-key-id", EmbeddedS3.ACCESS_KEY,
        "s3.secret-access-key", EmbeddedS3.SECRET_KEY);
  }

  /**
   * Makes every AWS SDK client of this process send checksums only when an operation requires
   * them, unless the user chose otherwise (S3Proxy 2.9 rejects the default trailing checksums).
   */
  static void useChecksumsOnlyWhenRequired() {
    if (System.getProperty("aws.requestChecksumCalculation") == null
        && System.getenv("AWS_REQUEST_CHECKSUM_CALCULATION") == null) {
      System.setProperty("aws.requestChecksumCalculation", "when_required");
    }
    if (System.getProperty("aws.responseChecksumValidation") == null
        && System.getenv("AWS_RESPONSE_CHECKSUM_VALIDATION") == null) {
      System.setProperty("aws.responseChecksumValidation", "when_required");
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
