package dev.squall.coordinator.commit;

import dev.squall.planner.write.WriteTarget;
import dev.squall.proto.v1.DataFileWrite;
import dev.squall.proto.v1.WriteTargetRecord;
import java.util.Arrays;
import java.util.OptionalLong;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A planned write target as stored with the job's plan ({@link WriteTargetRecord}), and back, so
 * that the invocation that commits need not plan again. The writer tasks' part
 * ({@link DataFileWrite}) is stored as the tasks get it.
 */
public final class WriteTargets {
  private WriteTargets() {}

  public static WriteTargetRecord toRecord(WriteTarget target) {
    WriteTargetRecord.Builder b = WriteTargetRecord.newBuilder()
        .addAllNamespace(Arrays.asList(target.table().namespace().levels()))
        .setTable(target.table().name())
        .setCreate(target.createsTable())
        .setDataFiles(target.toDataFileWrite())
        .putAllTableProperties(target.properties())
        .setSortOrderJson(target.sortOrder().isUnsorted() ? "" : SortOrderParser.toJson(target.sortOrder()));
    target.baseSnapshotId().ifPresent(b::setBaseSnapshotId);
    if (target.rowDelete() != null) {
      b.setRowDelete(target.rowDelete());
    }
    if (target.rewrite() != null) {
      b.setRewrite(target.rewrite());
    }
    return b.build();
  }

  public static WriteTarget fromRecord(WriteTargetRecord r) {
    DataFileWrite files = r.getDataFiles();
    Schema schema = SchemaParser.fromJson(files.getIcebergSchemaJson());
    PartitionSpec spec = PartitionSpecParser.fromJson(schema, files.getPartitionSpecJson());
    return new WriteTarget(
        TableIdentifier.of(Namespace.of(r.getNamespaceList().toArray(String[]::new)), r.getTable()),
        r.getCreate(), schema, spec, files.getTableLocation(), r.getTablePropertiesMap(),
        r.hasBaseSnapshotId() ? OptionalLong.of(r.getBaseSnapshotId()) : OptionalLong.empty(),
        r.hasRowDelete() ? r.getRowDelete() : null, r.hasRewrite() ? r.getRewrite() : null,
        r.getSortOrderJson().isEmpty() ? SortOrder.unsorted() : SortOrderParser.fromJson(schema, r.getSortOrderJson()));
  }
}
