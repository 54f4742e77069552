package dev.squall.planner.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MetadataCachingCatalog} over a real JDBC catalog on SQLite, with a second catalog on the
 * same file as a concurrent writer. Metadata and manifest-list reads are counted by the FileIO.
 */
class MetadataCachingCatalogTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final TableIdentifier T = TableIdentifier.of("ns", "t");

  /** Iceberg's in-memory FileIO (files shared by every instance), counting metadata reads. */
  public static final class CountingFileIO extends InMemoryFileIO {
    static final AtomicInteger METADATA_READS = new AtomicInteger();
    static final AtomicInteger MANIFEST_LIST_READS = new AtomicInteger();

    @Override
    public InputFile newInputFile(String path) {
      count(path);
      return super.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
      count(path);
      return super.newInputFile(path, length);
    }

    private static void count(String path) {
      String name = path.substring(path.lastIndexOf('/') + 1);
      if (name.endsWith(".metadata.json")) {
        METADATA_READS.incrementAndGet();
      } else if (name.startsWith("snap-")) {
        MANIFEST_LIST_READS.incrementAndGet();
      }
    }
  }

  @TempDir
  Path dir;
  private JdbcCatalog planning;
  private JdbcCatalog writer;

  @BeforeEach
  void open() {
    planning = catalog();
    writer = catalog();
    writer.createNamespace(Namespace.of("ns"));
    writer.createTable(T, SCHEMA, PartitionSpec.unpartitioned());
    append(writer.loadTable(T), "a");
  }

  @AfterEach
  void close() throws Exception {
    planning.close();
    writer.close();
  }

  private JdbcCatalog catalog() {
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize("squall", Map.of(
        CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"),
        CatalogProperties.WAREHOUSE_LOCATION, "mem://" + dir.getFileName() + "/warehouse",
        CatalogProperties.FILE_IO_IMPL, CountingFileIO.class.getName(),
        CatalogProperties.CLIENT_POOL_SIZE, "1",
        "jdbc.schema-version", "V1"));
    return catalog;
  }

  private static void append(Table table, String file) {
    DataFile data = DataFiles.builder(PartitionSpec.unpartitioned()).withPath(table.location() + "/data/" + file + ".parquet")
        .withFileSizeInBytes(100).withRecordCount(10).build();
    table.newAppend().appendFile(data).commit();
  }

  @Test
  void aSecondLoadOfAnUnchangedTableReadsNoMetadataFileOrManifestList() {
    MetadataCachingCatalog cached = new MetadataCachingCatalog(planning);
    Table first = cached.loadTable(T);
    int metadata = CountingFileIO.METADATA_READS.get();
    int lists = CountingFileIO.MANIFEST_LIST_READS.get();

    Table second = cached.loadTable(T);
    second.currentSnapshot().dataManifests(second.io());

    assertEquals(metadata, CountingFileIO.METADATA_READS.get(), "metadata files read by the second load");
    assertEquals(lists, CountingFileIO.MANIFEST_LIST_READS.get(), "manifest lists read by the second load");
    assertEquals(first.currentSnapshot().snapshotId(), second.currentSnapshot().snapshotId());
    assertEquals(writer.loadTable(T).currentSnapshot().snapshotId(), second.currentSnapshot().snapshotId());
  }

  @Test
  void aLoadSeesACommitAnotherWriterMadeAfterTheFirstLoad() {
    MetadataCachingCatalog cached = new MetadataCachingCatalog(planning);
    Table before = cached.loadTable(T);

    append(writer.loadTable(T), "b");
    Table after = cached.loadTable(T);

    long current = writer.loadTable(T).currentSnapshot().snapshotId();
    assertEquals(current, after.currentSnapshot().snapshotId());
    assertNotEquals(current, before.currentSnapshot().snapshotId(), "a loaded table keeps the version it was loaded at");
    assertEquals("20", after.currentSnapshot().summary().get("total-records"));
  }

  @Test
  void aTableDroppedByAnotherWriterIsReportedAsTheCatalogReportsIt() {
    MetadataCachingCatalog cached = new MetadataCachingCatalog(planning);
    cached.loadTable(T);

    writer.dropTable(T, false);

    NoSuchTableException e = assertThrows(NoSuchTableException.class, () -> cached.loadTable(T));
    assertEquals(assertThrows(NoSuchTableException.class, () -> planning.loadTable(T)).getMessage(), e.getMessage());
  }

  @Test
  void aTableCreatedAgainUnderTheSameNameIsTheNewTable() {
    MetadataCachingCatalog cached = new MetadataCachingCatalog(planning);
    cached.loadTable(T);

    writer.dropTable(T, false);
    writer.createTable(T, new Schema(Types.NestedField.required(1, "name", Types.StringType.get())));

    Table again = cached.loadTable(T);
    assertEquals("name", again.schema().columns().get(0).name());
    assertEquals(null, again.currentSnapshot());
  }

  @Test
  void committingThroughALoadedTableFails() {
    Table table = new MetadataCachingCatalog(planning).loadTable(T);

    assertThrows(UnsupportedOperationException.class, () -> append(table, "c"));
  }
}
