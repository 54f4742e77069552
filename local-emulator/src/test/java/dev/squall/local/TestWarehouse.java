package dev.squall.local;

import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.s3.EmbeddedS3;
import java.nio.file.Path;
import java.util.List;

/**
 * An embedded S3 (under {@code dir/s3}) with the local Iceberg catalog over it, for tests that load
 * and read tables without the rest of the local deployment. Closing closes the catalog, then S3.
 */
public final class TestWarehouse implements AutoCloseable {
  /** The bucket the catalog's warehouse lives in. */
  public static final String BUCKET = "squall-warehouse";

  private final EmbeddedS3 s3;
  private final LocalCatalog local;

  private TestWarehouse(EmbeddedS3 s3, LocalCatalog local) {
    this.s3 = s3;
    this.local = local;
  }

  /** Starts S3 on {@code dir/s3} and opens the catalog's database in {@code dir}. */
  public static TestWarehouse start(Path dir) throws Exception {
    EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), 0, List.of(BUCKET));
    try {
      return new TestWarehouse(s3, LocalCatalog.open(s3, dir, BUCKET));
    } catch (Exception | Error e) {
      s3.close();
      throw e;
    }
  }

  /** The catalog with its S3-backed file IO. */
  public LocalCatalog local() {
    return local;
  }

  @Override
  public void close() throws Exception {
    try {
      local.close();
    } finally {
      s3.close();
    }
  }
}
