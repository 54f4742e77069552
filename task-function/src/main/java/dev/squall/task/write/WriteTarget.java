package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.DataFileWrite;
import dev.squall.proto.v1.ErrorCode;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;

/**
 * The table a writer task writes to, decoded from the wire's {@link DataFileWrite}: its location,
 * Iceberg schema and partition spec (from their Iceberg JSON), file format, the table properties
 * that shape data files and the sort order the rows come in. No catalog is involved: everything the writer needs travels in the spec.
 *
 * @param tableLocation the table's root location, e.g. {@code s3://bucket/warehouse/db/t}
 * @param schema the table schema with its field ids
 * @param spec the partition spec data files are written for (its spec id goes into the commit messages)
 * @param format the data file format; only Parquet is written
 * @param properties table properties (e.g. {@code write.parquet.compression-codec})
 * @param sortOrder the order the rows arrive in within each partition value, recorded in every data
 *     file ({@code sort_order_id}); unsorted when they arrive in no order
 */
public record WriteTarget(String tableLocation, Schema schema, PartitionSpec spec, FileFormat format,
    Map<String, String> properties, SortOrder sortOrder) {

  /** A target whose rows arrive in no order. */
  public WriteTarget(String tableLocation, Schema schema, PartitionSpec spec, FileFormat format,
      Map<String, String> properties) {
    this(tableLocation, schema, spec, format, properties, SortOrder.unsorted());
  }

  public WriteTarget {
    sortOrder = sortOrder == null ? SortOrder.unsorted() : sortOrder;
  }

  /**
   * Decodes the wire form.
   *
   * @throws EngineException INTERNAL_ERROR naming the field when the location is empty, the schema
   *     or spec JSON does not parse, or the format is not Parquet (all are the planner's doing)
   */
  public static WriteTarget of(DataFileWrite write) {
    if (write.getTableLocation().isBlank()) {
      throw bad("DataFileWrite.table_location is empty");
    }
    Schema schema;
    try {
      schema = SchemaParser.fromJson(write.getIcebergSchemaJson());
    } catch (RuntimeException e) {
      throw bad("DataFileWrite.iceberg_schema_json is not an Iceberg schema: " + e.getMessage());
    }
    PartitionSpec spec;
    try {
      spec = write.getPartitionSpecJson().isEmpty()
          ? PartitionSpec.unpartitioned()
          : PartitionSpecParser.fromJson(schema, write.getPartitionSpecJson());
    } catch (RuntimeException e) {
      throw bad("DataFileWrite.partition_spec_json is not a partition spec of the table schema: " + e.getMessage());
    }
    String formatName = write.getFileFormat().isEmpty() ? "parquet" : write.getFileFormat();
    if (!"parquet".equals(formatName.toLowerCase(Locale.ROOT))) {
      throw bad("data file format '" + formatName + "' is not supported; writer tasks write parquet");
    }
    String location = write.getTableLocation().replaceAll("/+$", "");
    return new WriteTarget(location, schema, spec, FileFormat.PARQUET, Map.copyOf(write.getPropertiesMap()),
        sortOrder(schema, write.getSortOrderJson(), "DataFileWrite"));
  }

  /**
   * A sort order of the wire ({@code sort_order_json}; empty: unsorted).
   *
   * @throws EngineException INTERNAL_ERROR naming the field when it does not parse
   */
  static SortOrder sortOrder(Schema schema, String json, String message) {
    try {
      return json.isEmpty() ? SortOrder.unsorted() : SortOrderParser.fromJson(schema, json);
    } catch (RuntimeException e) {
      throw bad(message + ".sort_order_json is not a sort order of the table schema: " + e.getMessage());
    }
  }

  private static EngineException bad(String message) {
    return new EngineException(ErrorCode.INTERNAL_ERROR, message);
  }
}
