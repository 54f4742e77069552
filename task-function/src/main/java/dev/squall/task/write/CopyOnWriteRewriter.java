package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.DeleteFileWrite;
import dev.squall.proto.v1.ErrorCode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.JsonUtil;
import org.apache.iceberg.util.LocationUtil;

/**
 * Copy-on-write: writes each data file that holds rows to delete again without them, and without
 * the rows its existing delete files (position delete files, a deletion vector) delete already.
 * Rows are read and written with Iceberg's generic Parquet reader and writer, one data file at a
 * time, into the original's partition and spec; a file left with no row is not written. The rows
 * keep their file order when the original was written in the table's sort order (or the table has
 * none); otherwise the kept rows are sorted by it in memory ({@link SortOrderComparators}), so every
 * rewrite is in the table's sort order and says so. The coordinator replaces each original by its
 * rewrite in the statement's commit.
 */
final class CopyOnWriteRewriter {
  /** Sequence numbers of rewritten files: above an UPDATE's new data files (0 and on). */
  private static final int FIRST_SEQ = 200_000;

  private final FileIO io;
  private final Schema schema;
  private final Map<String, String> properties;
  private final LocationProvider locations;
  private final DataFileNames names;
  /** The table's sort order as writers can sort by it (unsorted: none). */
  private final SortOrder order;
  private final List<DeleteFile> existingDeletes = new ArrayList<>();
  private final List<String> created = new ArrayList<>();
  private int seq = FIRST_SEQ;

  /**
   * @param names names of the attempt's data files (Parquet)
   * @param specs the table's specs by id
   */
  CopyOnWriteRewriter(FileIO io, DeleteFileWrite write, Schema schema, Map<Integer, PartitionSpec> specs,
      DataFileNames names) {
    this.io = io;
    this.schema = schema;
    this.properties = Map.copyOf(write.getPropertiesMap());
    this.names = names;
    this.order = WriteTarget.sortOrder(schema, write.getSortOrderJson(), "DeleteFileWrite");
    this.locations = org.apache.iceberg.LocationProviders.locationsFor(
        LocationUtil.stripTrailingSlash(write.getTableLocation()), properties);
    List<String> jsons = new ArrayList<>(write.getPositionDeletesJsonList());
    jsons.addAll(write.getDeletionVectorsJsonList());
    for (String json : jsons) {
      existingDeletes.add((DeleteFile) JsonUtil.parse(json, node -> ContentFileParser.fromJson(node, specs)));
    }
  }

  /**
   * Rewrites every data file of {@code positions} without those positions.
   *
   * @param positions positions to delete by data file location
   * @param dataFiles the data files by location (spec id, partition)
   * @param specs the table's specs by id
   * @return the new data files (none for a data file whose rows are all deleted)
   * @throws EngineException EXTERNAL when a file cannot be read or written; what was written is deleted
   */
  List<DataFile> rewrite(Map<String, PositionDeleteIndex> positions, Map<String, DataFile> dataFiles,
      Map<Integer, PartitionSpec> specs) {
    List<DataFile> out = new ArrayList<>();
    try {
      for (Map.Entry<String, PositionDeleteIndex> e : positions.entrySet()) {
        DataFile original = dataFiles.get(e.getKey());
        DataFile rewritten = rewrite(original, specs.get(original.specId()), deleted(original, e.getValue()));
        if (rewritten != null) {
          out.add(rewritten);
        }
      }
      return out;
    } catch (IOException | RuntimeException e) {
      abort();
      if (e instanceof EngineException engine) {
        throw engine;
      }
      throw new EngineException(ErrorCode.EXTERNAL, "rewriting data files failed: " + e.getMessage());
    }
  }

  /** The statement's positions of a data file together with those its delete files delete. */
  private PositionDeleteIndex deleted(DataFile original, PositionDeleteIndex statement) {
    List<DeleteFile> applying = new ArrayList<>();
    for (DeleteFile d : existingDeletes) {
      if (d.referencedDataFile() == null || d.referencedDataFile().equals(original.location())) {
        applying.add(d);
      }
    }
    if (!applying.isEmpty()) {
      statement.merge(new BaseDeleteLoader(d -> io.newInputFile(d.location(), d.fileSizeInBytes()), null)
          .loadPositionDeletes(applying, original.location()));
    }
    return statement;
  }

  private DataFile rewrite(DataFile original, PartitionSpec spec, PositionDeleteIndex deleted) throws IOException {
    // A file written in another order (or none) has its kept rows sorted before they are written.
    List<Record> toSort = order.isUnsorted() || Integer.valueOf(order.orderId()).equals(original.sortOrderId())
        ? null : new ArrayList<>();
    DataWriter<Record> writer = null;
    try {
      try (CloseableIterable<Record> rows = Parquet.read(io.newInputFile(original.location()))
          .project(schema)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
          .build()) {
        long position = 0;
        for (Record row : rows) {
          if (deleted.isDeleted(position++)) {
            continue;
          }
          if (toSort != null) {
            toSort.add(row.copy());
            continue;
          }
          writer = writer == null ? open(original, spec) : writer;
          writer.write(row);
        }
      }
      if (toSort != null && !toSort.isEmpty()) {
        toSort.sort(SortOrderComparators.forSchema(schema, order));
        writer = open(original, spec);
        for (Record row : toSort) {
          writer.write(row);
        }
      }
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
    return writer == null ? null : writer.toDataFile();
  }

  /** A new data file of the attempt in the original's partition and spec. */
  private DataWriter<Record> open(DataFile original, PartitionSpec spec) throws IOException {
    String name = names.fileName(seq++);
    String location = spec.isUnpartitioned() ? locations.newDataLocation(name)
        : locations.newDataLocation(spec, original.partition(), name);
    created.add(location);
    return Parquet.writeData(io.newOutputFile(location))
        .schema(schema)
        .withSpec(spec)
        .withPartition(original.partition())
        .withSortOrder(order)
        .createWriterFunc(GenericParquetWriter::create)
        .setAll(properties)
        .overwrite()
        .build();
  }

  /** Deletes every file this attempt rewrote (best effort). */
  void abort() {
    DataFileNames.deleteAttemptFiles(io, created, "rewritten data file");
    created.clear();
  }

  /** Content-file JSON of each data file by location, as the task was given them. */
  static Map<String, String> originalsJson(DeleteFileWrite write) {
    Map<String, String> out = new HashMap<>();
    for (String json : write.getDataFilesJsonList()) {
      out.put(JsonUtil.parse(json, node -> node.get("file-path").asText()), json);
    }
    return out;
  }
}
