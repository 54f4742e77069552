package dev.squall.planner.translate;

import dev.squall.planner.PlanningException;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Scan;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.iceberg.SchemaParser;

/**
 * Projection and filter push-down into a scan: turns {@code [Project] [Filter] TableScan} into a
 * plan-proto {@code Scan} of only the columns used, an exact {@code Filter} over them, and a
 * {@code Project} when the output is not simply the scanned columns. The filter is also
 * translated, as far as possible, into an Iceberg expression on the Scan for pruning.
 *
 * <p>When no column is used (e.g. {@code count(*)}) the narrowest column is read anyway, so that
 * the engine sees row counts.
 */
public final class ScanTranslator {
  /** The translated leaf: the operator tree and the table it reads. */
  public record ScanLeaf(Operator operator, IcebergTable table, String tableName) {}

  private ScanTranslator() {}

  /** True when the node is a scan with at most one Filter and one Project above it. */
  public static boolean matches(RelNode rel) {
    RelNode node = rel;
    if (node instanceof Project) {
      node = node.getInput(0);
    }
    if (node instanceof Filter) {
      node = node.getInput(0);
    }
    return node instanceof TableScan;
  }

  /** Translates a node for which {@link #matches} holds. */
  public static ScanLeaf translate(RelNode rel, int inputIndex) {
    return translate(rel, inputIndex, false);
  }

  /**
   * Translates a node for which {@link #matches} holds.
   *
   * @param outputUnused true when the consumer reads no column of the node's rows, only counts
   *     them (e.g. {@code count(*)} directly over a scan): then only what the filter needs, or the
   *     narrowest column, is read
   */
  public static ScanLeaf translate(RelNode rel, int inputIndex, boolean outputUnused) {
    Project project = rel instanceof Project p ? p : null;
    RelNode below = project == null ? rel : project.getInput();
    Filter filter = below instanceof Filter f ? f : null;
    TableScan scan = (TableScan) (filter == null ? below : filter.getInput());
    IcebergTable table = scan.getTable().unwrap(IcebergTable.class);
    if (table == null) {
      throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
          "Unsupported SQL: table " + scan.getTable().getQualifiedName() + " is not an Iceberg table");
    }

    ImmutableBitSet used;
    if (project == null && outputUnused) {
      used = filter == null ? ImmutableBitSet.of() : RelOptUtil.InputFinder.bits(filter.getCondition());
    } else if (project == null) {
      used = ImmutableBitSet.range(scan.getRowType().getFieldCount());
    } else {
      ImmutableBitSet.Builder bits = ImmutableBitSet.builder();
      for (RexNode e : project.getProjects()) {
        bits.addAll(RelOptUtil.InputFinder.bits(e));
      }
      if (filter != null) {
        bits.addAll(RelOptUtil.InputFinder.bits(filter.getCondition()));
      }
      used = bits.build();
    }
    if (used.isEmpty()) {
      used = ImmutableBitSet.of(narrowest(scan));
    }
    int[] newIndex = new int[scan.getRowType().getFieldCount()];
    java.util.Arrays.fill(newIndex, -1);
    List<Integer> fieldIds = new ArrayList<>();
    List<RelDataTypeField> scanFields = new ArrayList<>();
    for (int column : used) {
      newIndex[column] = fieldIds.size();
      fieldIds.add(table.fieldId(column));
      scanFields.add(scan.getRowType().getFieldList().get(column));
    }
    String tableName = table.identifier().toString();
    Scan.Builder scanOp = Scan.newBuilder()
        .setInputIndex(inputIndex)
        .setTable(tableName)
        .setIcebergSchemaJson(SchemaParser.toJson(table.schema()))
        .addAllProjectedFieldIds(fieldIds);
    table.pinnedSnapshotId().ifPresent(scanOp::setSnapshotId);
    if (filter != null) {
      Optional<String> pruning = new IcebergFilterTranslator(table.schema()).toJson(filter.getCondition());
      pruning.ifPresent(scanOp::setIcebergFilterJson);
    }
    var scanType = scan.getCluster().getTypeFactory().createStructType(scanFields);
    Operator op = Operator.newBuilder()
        .setOutputSchema(TypeTranslator.schema(scanType))
        .setScan(scanOp)
        .build();
    if (filter != null) {
      op = Operator.newBuilder()
          .setOutputSchema(op.getOutputSchema())
          .setFilter(dev.squall.proto.v1.Filter.newBuilder()
              .setInput(op)
              .setCondition(RexTranslator.toProto(remap(filter.getCondition(), newIndex))))
          .build();
    }
    if (project != null && !isIdentity(project, newIndex, used.cardinality())) {
      dev.squall.proto.v1.Project.Builder p = dev.squall.proto.v1.Project.newBuilder().setInput(op);
      for (RexNode e : project.getProjects()) {
        p.addExpressions(RexTranslator.toProto(remap(e, newIndex)));
      }
      op = Operator.newBuilder().setOutputSchema(TypeTranslator.schema(project.getRowType())).setProject(p).build();
    }
    return new ScanLeaf(op, table, tableName);
  }

  private static boolean isIdentity(Project project, int[] newIndex, int scanned) {
    List<RexNode> exprs = project.getProjects();
    if (exprs.size() != scanned) {
      return false;
    }
    for (int i = 0; i < exprs.size(); i++) {
      if (!(exprs.get(i) instanceof RexInputRef ref) || newIndex[ref.getIndex()] != i) {
        return false;
      }
    }
    return true;
  }

  private static int narrowest(TableScan scan) {
    int best = 0;
    int bestWidth = Integer.MAX_VALUE;
    List<RelDataTypeField> fields = scan.getRowType().getFieldList();
    for (int i = 0; i < fields.size(); i++) {
      int width = SizeEstimator.rowWidth(scan.getCluster().getTypeFactory()
          .createStructType(List.of(fields.get(i))));
      if (width < bestWidth && fields.get(i).getType().getSqlTypeName() != org.apache.calcite.sql.type.SqlTypeName.ANY) {
        best = i;
        bestWidth = width;
      }
    }
    return best;
  }

  private static RexNode remap(RexNode node, int[] newIndex) {
    return node.accept(new RexShuttle() {
      @Override
      public RexNode visitInputRef(RexInputRef ref) {
        return new RexInputRef(newIndex[ref.getIndex()], ref.getType());
      }
    });
  }
}
