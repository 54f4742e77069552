package dev.squall.planner.write;

import dev.squall.proto.v1.DataFileWrite;
import dev.squall.proto.v1.RewriteRecord;
import dev.squall.proto.v1.RowDeleteRecord;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The Iceberg table an INSERT or CREATE TABLE AS writes to, as planned. The root stage of the
 * statement's stage graph produces exactly {@link #schema()}'s columns in order (same names; types
 * per {@code IcebergTypeMapping}); its tasks write them as data files ({@link #toDataFileWrite()})
 * and the coordinator commits those files once ({@code dev.squall.coordinator.commit}).
 *
 * @param table namespace and name of the table
 * @param createsTable true for CREATE TABLE AS: the table does not exist yet and the commit
 *     creates it with its data; false for INSERT
 * @param schema the table's Iceberg schema (for CTAS: with the field ids the catalog will assign)
 * @param spec the table's partition spec (unpartitioned when none)
 * @param location the table location (for CTAS: the one the catalog chose; the commit creates the
 *     table there)
 * @param properties the table's properties (for CTAS: those the catalog gives a new table)
 * @param baseSnapshotId the table's current snapshot when planned (INSERT into a table with data);
 *     empty for CTAS and for a table without snapshots
 * @param rowDelete for DELETE: what its writer tasks get (they write delete files, not data files)
 *     and what its commit removes whole; null for INSERT and CTAS
 * @param rewrite for optimize: the data files its commit replaces by the files the writer tasks
 *     write (one {@code RewriteFiles}); null otherwise
 * @param sortOrder the table's sort order (for CTAS: the new table's); unsorted when none. Data
 *     files are written in {@link #writeOrder()}
 */
public record WriteTarget(
    TableIdentifier table,
    boolean createsTable,
    Schema schema,
    PartitionSpec spec,
    String location,
    Map<String, String> properties,
    OptionalLong baseSnapshotId,
    RowDeleteRecord rowDelete,
    RewriteRecord rewrite,
    SortOrder sortOrder) {

  /** File format of the data files Squall writes. */
  public static final String FILE_FORMAT = "parquet";

  /** Prefix of the table properties that shape data files and travel to writer tasks. */
  public static final String WRITE_PROPERTY_PREFIX = "write.";

  public WriteTarget {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(location, "location");
    properties = Map.copyOf(properties);
    Objects.requireNonNull(baseSnapshotId, "baseSnapshotId");
    sortOrder = sortOrder == null ? SortOrder.unsorted() : sortOrder;
  }

  /** A target written unsorted. */
  public WriteTarget(TableIdentifier table, boolean createsTable, Schema schema, PartitionSpec spec, String location,
      Map<String, String> properties, OptionalLong baseSnapshotId, RowDeleteRecord rowDelete, RewriteRecord rewrite) {
    this(table, createsTable, schema, spec, location, properties, baseSnapshotId, rowDelete, rewrite,
        SortOrder.unsorted());
  }

  /** This target for a table sorted by {@code order}. */
  public WriteTarget withSortOrder(SortOrder order) {
    return new WriteTarget(table, createsTable, schema, spec, location, properties, baseSnapshotId, rowDelete, rewrite,
        order);
  }

  /** The order each data file's rows are written in: {@link #sortOrder()} where the writer can sort by it. */
  public SortOrder writeOrder() {
    return WriteSortOrder.writable(sortOrder, schema, spec);
  }

  /** A target without a rewrite: INSERT, CREATE TABLE AS, DELETE, UPDATE. */
  public WriteTarget(TableIdentifier table, boolean createsTable, Schema schema, PartitionSpec spec, String location,
      Map<String, String> properties, OptionalLong baseSnapshotId, RowDeleteRecord rowDelete) {
    this(table, createsTable, schema, spec, location, properties, baseSnapshotId, rowDelete, null);
  }

  /** True for optimize: the commit replaces {@link #rewrite()}'s data files. */
  public boolean isRewrite() {
    return rewrite != null;
  }

  /** An INSERT or CREATE TABLE AS target (no row delete). */
  public WriteTarget(TableIdentifier table, boolean createsTable, Schema schema, PartitionSpec spec, String location,
      Map<String, String> properties, OptionalLong baseSnapshotId) {
    this(table, createsTable, schema, spec, location, properties, baseSnapshotId, null);
  }

  /** True for DELETE: the writer tasks write delete files and the commit is a row delta. */
  public boolean isRowDelete() {
    return rowDelete != null;
  }

  /**
   * What a writer task needs to write data files for this target: the table location, the schema
   * and partition spec as Iceberg JSON ({@link SchemaParser}, {@link PartitionSpecParser}), the
   * format {@value #FILE_FORMAT} and the table properties named {@code write.*} (compression,
   * row group size, metrics modes, data path, location provider). Other properties stay on the
   * coordinator: nothing of the catalog reaches a task. {@code clustered} is set when the writer
   * stage's sort on the partition values ({@link PartitionClustering}) brings each value in one run;
   * {@code sort_order_json} when the rows come sorted by {@link #writeOrder()} within each value.
   */
  public DataFileWrite toDataFileWrite() {
    Map<String, String> fileProperties = new TreeMap<>();
    properties.forEach((k, v) -> {
      if (k.startsWith(WRITE_PROPERTY_PREFIX)) {
        fileProperties.put(k, v);
      }
    });
    return DataFileWrite.newBuilder()
        .setTableLocation(location)
        .setIcebergSchemaJson(SchemaParser.toJson(schema))
        .setPartitionSpecJson(PartitionSpecParser.toJson(spec))
        .setFileFormat(FILE_FORMAT)
        .putAllProperties(fileProperties)
        .setClustered(PartitionClustering.sortsIntoRuns(spec))
        .setSortOrderJson(WriteSortOrder.json(writeOrder()))
        .build();
  }

  /** {@code INSERT INTO ns.t} or {@code CREATE TABLE ns.t [PARTITIONED BY (...)]}, for EXPLAIN and logs. */
  public String describe() {
    if (rewrite != null) {
      return "ALTER TABLE " + table + " EXECUTE optimize";
    }
    if (rowDelete != null) {
      return (rowDelete.getDeleteFiles().getMerge() ? "MERGE INTO "
          : rowDelete.getDeleteFiles().hasUpdatedRows() ? "UPDATE " : "DELETE FROM ") + table;
    }
    StringBuilder out = new StringBuilder(createsTable ? "CREATE TABLE " : "INSERT INTO ").append(table);
    if (spec.isPartitioned()) {
      out.append(" PARTITIONED BY (");
      for (int i = 0; i < spec.fields().size(); i++) {
        var field = spec.fields().get(i);
        String column = schema.findColumnName(field.sourceId());
        String transform = field.transform().toString();
        out.append(i == 0 ? "" : ", ")
            .append(transform.equals("identity") ? column : transform + "(" + column + ")");
      }
      out.append(')');
    }
    return out.toString();
  }
}
