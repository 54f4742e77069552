package dev.squall.planner.optimize;

import dev.squall.planner.catalog.IcebergTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.AggregateEvaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Answers {@code count(*)}, {@code count(c)}, {@code min(c)} and {@code max(c)} over a whole table
 * (no filter, no GROUP BY) from the Iceberg manifests of the snapshot read, as a one-row VALUES:
 * no task scans the table. The per-file figures are Iceberg's record counts, value and null counts
 * and lower/upper bounds, combined by Iceberg's own {@link AggregateEvaluator} (the evaluator
 * behind Spark's aggregate push-down).
 *
 * <p>Only exact answers are taken: the aggregate stays a scan when any data file of the snapshot
 * has delete files (its counts and bounds include deleted rows), when a file lacks a figure
 * (metrics mode {@code none} or {@code counts}), or when MIN/MAX is over a type whose bounds may
 * be truncated or leave out NaN (strings, binary, REAL/DOUBLE); then the query runs as before.
 */
public final class MetadataAggregates extends RelShuttleImpl {
  private MetadataAggregates() {}

  /** The plan with each whole-table aggregate that metadata answers exactly replaced by VALUES. */
  public static RelNode rewrite(RelNode plan) {
    return plan.accept(new MetadataAggregates());
  }

  @Override
  public RelNode visit(LogicalAggregate aggregate) {
    RelNode visited = super.visit(aggregate);
    if (visited instanceof Aggregate a) {
      Optional<RelNode> answer = answer(a);
      if (answer.isPresent()) {
        return answer.get();
      }
    }
    return visited;
  }

  private static Optional<RelNode> answer(Aggregate aggregate) {
    if (!aggregate.getGroupSet().isEmpty() || aggregate.getGroupSets().size() != 1) {
      return Optional.empty();
    }
    // The input is the scan, or a projection of its columns (field trimming leaves one).
    RelNode input = aggregate.getInput();
    List<Integer> columnOf = new ArrayList<>();
    if (input instanceof Project project) {
      for (RexNode e : project.getProjects()) {
        columnOf.add(e instanceof RexInputRef ref ? ref.getIndex() : -1);
      }
      input = project.getInput();
    }
    if (!(input instanceof TableScan scan)) {
      return Optional.empty();
    }
    IcebergTable table = scan.getTable() == null ? null : scan.getTable().unwrap(IcebergTable.class);
    if (table == null) {
      return Optional.empty();
    }
    Schema schema = table.schema();
    List<Expression> expressions = new ArrayList<>();
    for (AggregateCall call : aggregate.getAggCallList()) {
      Expression e = expression(call, columnOf.isEmpty() ? null : columnOf, schema);
      if (e == null) {
        return Optional.empty();
      }
      expressions.add(e);
    }
    Object[] values = evaluate(table, schema, expressions);
    if (values == null) {
      return Optional.empty();
    }
    RexBuilder rex = aggregate.getCluster().getRexBuilder();
    List<RexLiteral> row = new ArrayList<>();
    List<RelDataType> types = aggregate.getRowType().getFieldList().stream().map(f -> f.getType()).toList();
    for (int i = 0; i < values.length; i++) {
      row.add(literal(rex, values[i], types.get(i)));
    }
    return Optional.of(LogicalValues.create(aggregate.getCluster(), aggregate.getRowType(),
        com.google.common.collect.ImmutableList.of(com.google.common.collect.ImmutableList.copyOf(row))));
  }

  /** The Iceberg aggregate for a call, or null when metadata cannot answer it exactly. */
  private static Expression expression(AggregateCall call, List<Integer> columnOf, Schema schema) {
    if (call.filterArg >= 0 || call.hasFilter()) {
      return null;
    }
    SqlKind kind = call.getAggregation().getKind();
    if (kind == SqlKind.COUNT && call.getArgList().isEmpty()) {
      return Expressions.countStar();
    }
    if (call.getArgList().size() != 1 || (call.isDistinct() && kind == SqlKind.COUNT)) {
      return null;
    }
    int arg = call.getArgList().get(0);
    int column = columnOf == null ? arg : columnOf.get(arg);
    if (column < 0 || column >= schema.columns().size()) {
      return null;
    }
    Types.NestedField field = schema.columns().get(column);
    return switch (kind) {
      case COUNT -> Expressions.count(field.name());
      case MIN -> exactBounds(field.type()) ? Expressions.min(field.name()) : null;
      case MAX -> exactBounds(field.type()) ? Expressions.max(field.name()) : null;
      default -> null;
    };
  }

  /** Types whose file bounds are the exact smallest and largest value (never truncated, no NaN). */
  private static boolean exactBounds(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER, LONG, DATE, DECIMAL, TIMESTAMP -> true;
      default -> false;
    };
  }

  /** The aggregates' values over the snapshot's data files, or null when one is not exact. */
  private static Object[] evaluate(IcebergTable table, Schema schema, List<Expression> expressions) {
    Snapshot snapshot = table.snapshot();
    AggregateEvaluator evaluator = AggregateEvaluator.create(schema, expressions);
    if (snapshot != null) {
      try (CloseableIterable<FileScanTask> tasks = table.table().newScan().useSnapshot(snapshot.snapshotId())
          .includeColumnStats().planFiles()) {
        for (FileScanTask task : tasks) {
          if (!task.deletes().isEmpty()) {
            return null;
          }
          evaluator.update(task.file());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (!evaluator.allAggregatorsValid()) {
      return null;
    }
    StructLike result = evaluator.result();
    Object[] values = new Object[expressions.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = result.get(i, Object.class);
      if (values[i] == null && expressions.get(i).op() != Expression.Operation.MIN
          && expressions.get(i).op() != Expression.Operation.MAX) {
        values[i] = 0L; // a count over no data file
      }
    }
    return values;
  }

  /** An Iceberg value (Iceberg's in-memory form: days, micros, BigDecimal, ...) as a literal of {@code type}. */
  private static RexLiteral literal(RexBuilder rex, Object value, RelDataType type) {
    if (value == null) {
      return rex.makeNullLiteral(type);
    }
    Object calcite = switch (type.getSqlTypeName()) {
      case DATE -> DateString.fromDaysSinceEpoch(((Number) value).intValue());
      case TIMESTAMP -> TimestampString.fromMillisSinceEpoch(Math.floorDiv(((Number) value).longValue(), 1000L))
          .withNanos((int) (Math.floorMod(((Number) value).longValue(), 1_000_000L) * 1000L));
      case DECIMAL -> (BigDecimal) value;
      case BOOLEAN -> value;
      default -> BigDecimal.valueOf(((Number) value).longValue());
    };
    return (RexLiteral) rex.makeLiteral(calcite, type, false);
  }
}
