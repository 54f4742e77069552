package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.proto.v1.DeleteFileWrite;
import dev.squall.proto.v1.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.util.JsonUtil;

/**
 * The writer of a row-level delete task: takes rows of (data file location, row position) and
 * writes, per the table's format version,
 *
 * <ul>
 *   <li>v2: one Parquet position delete file per data file (file-scoped, positions ascending, as
 *       the Iceberg spec requires), written by Iceberg's own {@code Parquet.writeDeletes};
 *   <li>v3: one Puffin file holding a deletion vector ({@code deletion-vector-v1} blob: a roaring
 *       bitmap of positions) per data file, each described as its own delete file with the blob's
 *       offset and length. A data file's earlier vector is read and its positions kept, since a
 *       data file may have one vector only; the coordinator removes the earlier one in the commit.
 * </ul>
 *
 * The data files the rows may name, with their spec and partition, come with the task
 * ({@link DeleteFileWrite#getDataFilesJsonList()}); a location not among them is a plan error.
 * Positions are gathered in memory as bitmaps (a few bits per position) and written at
 * {@link #complete()}. Files are named like data files ({@link DataFileNames}) and placed by the
 * table's location provider, so that the coordinator finds an attempt's leftovers by name.
 */
public final class PositionDeleteTaskWriter {
  private final FileIO io;
  private final DataFileNames names;
  private final int formatVersion;
  /** MERGE: a position named twice is a target row matched by more than one source row. */
  private final boolean rejectRepeats;
  private final Map<String, String> properties;
  private final LocationProvider locations;
  private final Map<Integer, PartitionSpec> specs = new HashMap<>();
  private final Schema schema;
  private final Map<String, DataFile> dataFiles = new HashMap<>();
  private final Map<String, DeleteFile> previousVectors = new HashMap<>();
  private final TreeMap<String, PositionDeleteIndex> positions = new TreeMap<>();
  private final List<String> created = new ArrayList<>();
  private long rows;
  /**
   * Sequence number of the next delete file. It starts at {@value #FIRST_SEQ} so that an
   * UPDATE's data files, numbered from 0 under the same attempt prefix, never share a name with
   * a delete file.
   */
  private int seq = FIRST_SEQ;

  private static final int FIRST_SEQ = 100_000;

  /**
   * @throws EngineException INTERNAL_ERROR when the spec's schema, specs or files do not parse
   */
  public PositionDeleteTaskWriter(FileIO io, DeleteFileWrite write, DataFileNames names) {
    this.io = io;
    this.names = names;
    this.formatVersion = write.getFormatVersion();
    this.rejectRepeats = write.getMerge();
    this.properties = Map.copyOf(write.getPropertiesMap());
    try {
      schema = SchemaParser.fromJson(write.getIcebergSchemaJson());
      write.getPartitionSpecsJsonMap().forEach((id, json) -> specs.put(id, PartitionSpecParser.fromJson(schema, json)));
      for (String json : write.getDataFilesJsonList()) {
        DataFile file = (DataFile) parse(json);
        dataFiles.put(file.location(), file);
      }
      for (String json : write.getDeletionVectorsJsonList()) {
        DeleteFile dv = (DeleteFile) parse(json);
        previousVectors.put(dv.referencedDataFile(), dv);
      }
    } catch (RuntimeException e) {
      throw new EngineException(ErrorCode.INTERNAL_ERROR, "DeleteFileWrite does not describe the table: " + e.getMessage());
    }
    if (formatVersion < 2) {
      throw new EngineException(ErrorCode.INTERNAL_ERROR, "DeleteFileWrite.format_version " + formatVersion
          + " has no row-level deletes");
    }
    this.locations = LocationProviders.locationsFor(write.getTableLocation().replaceAll("/+$", ""), properties);
  }

  /**
   * Takes a batch: column 0 the data file location (VARCHAR), column 1 the row position (BIGINT).
   *
   * @throws EngineException INTERNAL_ERROR for a NULL or a data file the task was not told of;
   *     USER_ERROR for a MERGE's position named twice (within the task, which holds every position
   *     of its data files)
   */
  public void write(Column[] columns, int rowCount) {
    if (!(columns[0] instanceof BytesColumn paths) || !(columns[1] instanceof LongColumn pos)) {
      throw new EngineException(ErrorCode.INTERNAL_ERROR, "a row-level delete batch must be (VARCHAR, BIGINT)");
    }
    String last = null;
    PositionDeleteIndex index = null;
    for (int i = 0; i < rowCount; i++) {
      if (paths.isNull(i) || pos.isNull(i)) {
        throw new EngineException(ErrorCode.INTERNAL_ERROR, "a row-level delete batch holds a NULL position");
      }
      String path = new String(paths.value(i), StandardCharsets.UTF_8);
      if (!path.equals(last)) {
        if (!dataFiles.containsKey(path)) {
          throw new EngineException(ErrorCode.INTERNAL_ERROR, "row position of data file " + path
              + ", which the delete was not planned for");
        }
        index = positions.computeIfAbsent(path, p -> Deletes.toPositionIndex(CloseableIterable.<Long>empty()));
        last = path;
      }
      long position = pos.value(i);
      if (rejectRepeats && index.isDeleted(position)) {
        throw new EngineException(ErrorCode.USER_ERROR, "MERGE matched a target row more than once: one target"
            + " row matched several source rows (each target row may be matched by at most one source row)");
      }
      index.delete(position);
    }
    rows += rowCount;
  }

  /** Rows taken so far (positions deleted by this task). */
  public long rows() {
    return rows;
  }

  /**
   * Writes the delete files and returns them; on failure deletes what was written.
   *
   * @throws EngineException EXTERNAL when a file cannot be written or an earlier vector read
   */
  public List<DeleteFile> complete() {
    try {
      return formatVersion >= 3 ? writeVectors() : writePositionFiles();
    } catch (IOException | RuntimeException e) {
      abort();
      if (e instanceof EngineException engine) {
        throw engine;
      }
      throw new EngineException(ErrorCode.EXTERNAL, "writing delete files failed: " + e.getMessage());
    }
  }

  /** Deletes every file this attempt created (best effort). */
  public void abort() {
    DataFileNames.deleteAttemptFiles(io, created, "delete file");
    created.clear();
  }

  private List<DeleteFile> writePositionFiles() throws IOException {
    List<DeleteFile> out = new ArrayList<>();
    for (Map.Entry<String, PositionDeleteIndex> e : positions.entrySet()) {
      DataFile data = dataFiles.get(e.getKey());
      PartitionSpec spec = specs.get(data.specId());
      String name = names.fileName(seq++);
      String location = spec.isUnpartitioned() ? locations.newDataLocation(name)
          : locations.newDataLocation(spec, data.partition(), name);
      created.add(location);
      PositionDeleteWriter<Object> writer = Parquet.writeDeletes(io.newOutputFile(location))
          .createWriterFunc(GenericParquetWriter::create)
          .setAll(properties)
          .withSpec(spec)
          .withPartition(data.partition())
          .overwrite()
          .buildPositionWriter();
      PositionDelete<Object> row = PositionDelete.create();
      try (writer) {
        e.getValue().forEach(p -> writer.write(row.set(e.getKey(), p)));
      }
      out.add(writer.toDeleteFile());
    }
    return out;
  }

  private List<DeleteFile> writeVectors() throws IOException {
    if (positions.isEmpty()) {
      return List.of();
    }
    String location = locations.newDataLocation(names.fileName(seq++));
    created.add(location);
    Map<String, BlobMetadata> blobs = new HashMap<>();
    Map<String, Long> cardinalities = new HashMap<>();
    PuffinWriter writer = Puffin.write(io.newOutputFile(location)).createdBy("Squall").build();
    try (writer) {
      for (Map.Entry<String, PositionDeleteIndex> e : positions.entrySet()) {
        PositionDeleteIndex index = e.getValue();
        DeleteFile previous = previousVectors.get(e.getKey());
        if (previous != null) {
          index.merge(readVector(previous));
        }
        ByteBuffer bytes = index.serialize();
        cardinalities.put(e.getKey(), index.cardinality());
        blobs.put(e.getKey(), writer.write(new Blob(StandardBlobTypes.DV_V1,
            List.of(MetadataColumns.ROW_POSITION.fieldId()), -1, -1, bytes, null,
            Map.of("referenced-data-file", e.getKey(), "cardinality", Long.toString(index.cardinality())))));
      }
    }
    List<DeleteFile> out = new ArrayList<>();
    for (String path : positions.keySet()) {
      DataFile data = dataFiles.get(path);
      BlobMetadata blob = blobs.get(path);
      out.add(FileMetadata.deleteFileBuilder(specs.get(data.specId()))
          .ofPositionDeletes()
          .withFormat(FileFormat.PUFFIN)
          .withPath(location)
          .withPartition(data.partition())
          .withFileSizeInBytes(writer.fileSize())
          .withReferencedDataFile(path)
          .withContentOffset(blob.offset())
          .withContentSizeInBytes(blob.length())
          .withRecordCount(cardinalities.get(path))
          .build());
    }
    return out;
  }

  /** The positions of a data file's earlier deletion vector. */
  private PositionDeleteIndex readVector(DeleteFile dv) throws IOException {
    byte[] bytes = new byte[Math.toIntExact(dv.contentSizeInBytes())];
    try (SeekableInputStream in = io.newInputFile(dv.location()).newStream()) {
      in.seek(dv.contentOffset());
      int read = 0;
      while (read < bytes.length) {
        int n = in.read(bytes, read, bytes.length - read);
        if (n < 0) {
          throw new IOException("deletion vector of " + dv.referencedDataFile() + " ends early");
        }
        read += n;
      }
    }
    return PositionDeleteIndex.deserialize(bytes, dv);
  }

  /** The positions taken so far, by data file location (for copy-on-write). */
  Map<String, PositionDeleteIndex> positions() {
    return positions;
  }

  /** The data files the task may name, by location. */
  Map<String, DataFile> dataFiles() {
    return dataFiles;
  }

  /** The table's partition specs by id. */
  Map<Integer, PartitionSpec> specs() {
    return specs;
  }

  /** The table's schema. */
  Schema schema() {
    return schema;
  }

  /** The spec of a delete file (for its commit message). */
  public PartitionSpec specOf(DeleteFile file) {
    return specs.get(file.specId());
  }

  private ContentFile<?> parse(String json) {
    try {
      return JsonUtil.parse(json, node -> ContentFileParser.fromJson(node, specs));
    } catch (RuntimeException e) {
      throw new UncheckedIOException(new IOException(e.getMessage(), e));
    }
  }
}
