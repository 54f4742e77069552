package dev.squall.local.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.s3.EmbeddedS3;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalCatalogTest {
  static final String BUCKET = "squall-warehouse";
  static final TableIdentifier ID = TableIdentifier.of("demo", "events");
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "name", Types.StringType.get()));

  @TempDir Path dataDir;

  /** Creates demo.events with two rows in one data file and returns the table. */
  static Table createTableWithTwoRows(Catalog catalog) throws Exception {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("demo"));
    Table table = catalog.createTable(ID, SCHEMA);
    GenericAppenderFactory factory = new GenericAppenderFactory(table.schema(), table.spec());
    String location = table.locationProvider().newDataLocation("part-0.parquet");
    DataWriter<Record> writer = factory.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location)), FileFormat.PARQUET, null);
    try (writer) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      writer.write(r.copy("id", 1L, "name", "one"));
      writer.write(r.copy("id", 2L, "name", "two"));
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
    return table;
  }

  static List<String> names(Table table) throws Exception {
    List<String> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.add(r.getField("id") + ":" + r.getField("name")));
    }
    out.sort(null);
    return out;
  }

  @Test
  void catalogSurvivesARestartOfCatalogAndS3OnTheSameDataDirectory() throws Exception {
    long snapshot;
    String location;
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir.resolve("s3"), 0, List.of());
        LocalCatalog local = LocalCatalog.open(s3, dataDir, BUCKET)) {
      Table table = createTableWithTwoRows(local.catalog());
      snapshot = table.currentSnapshot().snapshotId();
      location = table.location();
      assertThat(local.catalogFile()).isEqualTo(dataDir.resolve("catalog/iceberg.db").toAbsolutePath());
    }
    // A new S3 server (another port) and a new catalog on the same files.
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir.resolve("s3"), 0, List.of());
        LocalCatalog local = LocalCatalog.open(s3, dataDir, BUCKET)) {
      assertThat(local.catalog().tableExists(ID)).isTrue();
      Table table = local.catalog().loadTable(ID);
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
      assertThat(table.location()).isEqualTo(location);
      assertThat(names(table)).containsExactly("1:one", "2:two");
    }
  }

  @Test
  void warehouseIsOnTheBucketAndDataFilesAreLocalFilesUnderTheS3DataDirectory() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir.resolve("s3"), 0, List.of());
        LocalCatalog local = LocalCatalog.open(s3, dataDir, BUCKET)) {
      assertThat(local.warehouseLocation()).isEqualTo("s3://" + BUCKET + "/warehouse");
      Table table = createTableWithTwoRows(local.catalog());
      assertThat(table.location()).isEqualTo("s3://" + BUCKET + "/warehouse/demo/events");
      String dataFile;
      try (var tasks = table.newScan().planFiles()) {
        dataFile = tasks.iterator().next().file().location();
      }
      Path local1 = local.localPathOf(dataFile);
      assertThat(local1).startsWith(dataDir.resolve("s3").toAbsolutePath()).isRegularFile();
      // The bytes S3 serves are the bytes of that file.
      String key = dataFile.substring(("s3://" + BUCKET + "/").length());
      try (var client = s3.newClient()) {
        byte[] served = client.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
        assertThat(served).isEqualTo(Files.readAllBytes(local1));
      }
    }
  }

  @Test
  void fileIoPropertiesCarryEndpointPathStyleAndRegionButNoCredentialsOrCatalogSettings() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET)) {
      assertThat(local.fileIoProperties())
          .containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
          .containsEntry("s3.endpoint", s3.endpoint().toString())
          .containsEntry("s3.path-style-access", "true")
          .containsEntry("client.region", "us-east-1")
          .doesNotContainKeys("s3.access-key-id", "s3.secret-access-key", "uri", "warehouse", "type");
      assertThat(local.fileIoProperties().values()).doesNotContain(EmbeddedS3.SECRET_KEY);
    }
  }

  @Test
  void newFileIoWritesObjectsThatTheS3ApiServes() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET);
        FileIO io = local.newFileIO()) {
      try (OutputStream out = io.newOutputFile("s3://" + BUCKET + "/probe/a.txt").create()) {
        out.write("hello".getBytes(StandardCharsets.UTF_8));
      }
      try (var client = s3.newClient()) {
        assertThat(client.getObjectAsBytes(b -> b.bucket(BUCKET).key("probe/a.txt")).asUtf8String())
            .isEqualTo("hello");
      }
      assertThat(io.newInputFile("s3://" + BUCKET + "/probe/a.txt").getLength()).isEqualTo(5);
    }
  }

  @Test
  void temporaryCatalogDirectoryIsDeletedOnClose() throws Exception {
    Path file;
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET)) {
      LocalCatalog local = LocalCatalog.open(s3, null, BUCKET);
      createTableWithTwoRows(local.catalog());
      file = local.catalogFile();
      assertThat(file).exists();
      local.close();
    }
    assertThat(file.getParent()).doesNotExist();
  }

  @Test
  void localPathOfRejectsInMemoryStoresAndNonS3Uris() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET)) {
      assertThatThrownBy(() -> local.localPathOf("s3://" + BUCKET + "/a"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("in memory");
    }
    try (EmbeddedS3 s3 = EmbeddedS3.start(dataDir, 0, List.of(BUCKET))) {
      assertThatThrownBy(() -> s3.localPathOf("file:///etc/passwd")).hasMessageContaining("not an s3://bucket/key URI");
      assertThatThrownBy(() -> s3.localPathOf("s3://" + BUCKET + "/../../etc/passwd"))
          .hasMessageContaining("escapes the data directory");
      assertThat(s3.localPathOf("s3://b1b/x/y.parquet")).isEqualTo(dataDir.toAbsolutePath().resolve("b1b/x/y.parquet"));
    }
  }

  @Test
  void badWarehouseBucketNameIsRejectedNamingIt() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient()) {
      assertThatThrownBy(() -> LocalCatalog.open(s3, null, "ab"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'ab'");
    }
  }

  @Test
  void checksumPropertiesAreSetWhenAbsentAndKeptWhenTheUserChose() {
    String req = System.getProperty("aws.requestChecksumCalculation");
    String resp = System.getProperty("aws.responseChecksumValidation");
    try {
      System.clearProperty("aws.requestChecksumCalculation");
      System.setProperty("aws.responseChecksumValidation", "when_supported");
      LocalCatalog.useChecksumsOnlyWhenRequired();
      if (System.getenv("AWS_REQUEST_CHECKSUM_CALCULATION") == null) {
        assertThat(System.getProperty("aws.requestChecksumCalculation")).isEqualTo("when_required");
      }
      assertThat(System.getProperty("aws.responseChecksumValidation")).isEqualTo("when_supported");
    } finally {
      restore("aws.requestChecksumCalculation", req);
      restore("aws.responseChecksumValidation", resp);
    }
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }
}
