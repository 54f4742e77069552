package dev.squall.planner.stage;

import dev.squall.planner.PlanningException;
import dev.squall.planner.translate.TypeTranslator;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expand;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Project;
import dev.squall.proto.v1.Schema;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Plans an aggregate with several grouping sets (GROUPING SETS, ROLLUP, CUBE) as Spark does: an
 * {@code Expand} gives every input row one copy per grouping set, in which the group keys outside
 * that set are NULL and a BIGINT column holds the set's index (its position in Calcite's list of
 * group sets); one ordinary aggregation groups by (keys, set index), so it splits into PARTIAL and
 * FINAL across the hash edge like any other; a projection drops the index and computes GROUPING().
 *
 * <p>Column layout after the Expand: the aggregate input's n columns unchanged (aggregate arguments
 * read them, including key columns, whose values must not be NULLed for the arguments), then the
 * k group keys (NULL outside the set), then the set index. GROUPING(a, b, ...) is, as in Trino and
 * Calcite, a bit mask with one bit per argument, the first argument's the most significant, set
 * when the argument is not in the row's grouping set; it is a CASE over the set index of
 * constants computed here. When one of the sets is (), its group is kept even over empty input
 * ({@code Aggregate.always_group}), so that the grand-total row is there as SQL requires.
 */
public final class GroupingSetsPlan {
  private final Aggregate aggregate;
  private final List<Integer> keys;
  private final List<ImmutableBitSet> sets;
  private final int width;
  private final AggregateSplit split;

  /**
   * @throws PlanningException UNSUPPORTED for GROUP_ID and GROUPING_ID, and as {@link AggregateSplit}
   */
  public GroupingSetsPlan(Aggregate aggregate) {
    this.aggregate = aggregate;
    this.keys = aggregate.getGroupSet().asList();
    this.sets = aggregate.getGroupSets();
    RelNode input = aggregate.getInput();
    this.width = input.getRowType().getFieldCount();
    RexBuilder rex = aggregate.getCluster().getRexBuilder();
    RelDataTypeFactory types = rex.getTypeFactory();

    // A stand-in for the expanded rows, so that AggregateSplit derives types, names and constant
    // arguments (percentiles, separators) as for any aggregate; it is never translated itself.
    RelNode base = input;
    List<RexNode> columns = new ArrayList<>();
    if (input instanceof org.apache.calcite.rel.core.Project project) {
      base = project.getInput();
      columns.addAll(project.getProjects());
    } else {
      for (int c = 0; c < width; c++) {
        columns.add(rex.makeInputRef(input, c));
      }
    }
    List<RexNode> expanded = new ArrayList<>(columns);
    List<String> names = new ArrayList<>(input.getRowType().getFieldNames());
    for (int key : keys) {
      RelDataType type = types.createTypeWithNullability(columns.get(key).getType(), true);
      expanded.add(rex.makeAbstractCast(type, columns.get(key), false));
      names.add("$key" + key);
    }
    expanded.add(rex.makeBigintLiteral(BigDecimal.ZERO));
    names.add("$grouping_set");
    RelNode shape = LogicalProject.create(base, List.of(), expanded, names, Set.of());

    List<AggregateCall> calls = new ArrayList<>();
    for (AggregateCall call : aggregate.getAggCallList()) {
      SqlKind kind = call.getAggregation().getKind();
      if (kind == SqlKind.GROUP_ID || kind == SqlKind.GROUPING_ID) {
        throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
            "Unsupported SQL: " + call.getAggregation().getName() + " is not supported by Squall (use GROUPING)");
      }
      if (kind != SqlKind.GROUPING) {
        // The type is inferred again: without an empty grouping set Calcite may type a call NOT NULL.
        calls.add(AggregateCall.create(call.getParserPosition(), call.getAggregation(), call.isDistinct(),
            call.isApproximate(), call.ignoreNulls(), call.rexList, call.getArgList(), call.filterArg,
            call.distinctKeys, call.getCollation(), keys.size() + 1, shape, null, call.getName()));
      }
    }
    ImmutableBitSet groupSet = ImmutableBitSet.range(width, width + keys.size() + 1);
    this.split = new AggregateSplit(LogicalAggregate.create(shape, List.of(), groupSet, null, calls));
    int empty = sets.indexOf(ImmutableBitSet.of());
    if (empty >= 0) {
      List<Literal> group = new ArrayList<>();
      for (int k = 0; k < keys.size(); k++) {
        group.add(Literal.newBuilder().setIsNull(true).build());
      }
      group.add(Literal.newBuilder().setLongValue(empty).build());
      split.withAlwaysGroup(group);
    }
  }

  /** The simple aggregation over the expanded rows: group keys are the k keys and the set index. */
  public AggregateSplit split() {
    return split;
  }

  /** The Expand over {@code input} (the aggregate input's rows). */
  public Operator expand(Operator input) {
    Schema in = input.getOutputSchema();
    Expand.Builder expand = Expand.newBuilder().setInput(input);
    Schema.Builder schema = Schema.newBuilder().addAllFields(in.getFieldsList());
    for (int key : keys) {
      DataType type = in.getFields(key).getType().toBuilder().setNullable(true).build();
      schema.addFields(in.getFields(key).toBuilder().setName("$key" + key).setType(type));
    }
    schema.addFields(dev.squall.proto.v1.Field.newBuilder().setName("$grouping_set").setType(BIGINT));
    for (int s = 0; s < sets.size(); s++) {
      Expand.Projection.Builder projection = Expand.Projection.newBuilder();
      for (int c = 0; c < width; c++) {
        projection.addExpressions(column(c, in.getFields(c).getType()));
      }
      for (int key : keys) {
        DataType type = in.getFields(key).getType().toBuilder().setNullable(true).build();
        projection.addExpressions(sets.get(s).get(key) ? column(key, type)
            : Expr.newBuilder().setType(type).setLiteral(Literal.newBuilder().setIsNull(true)).build());
      }
      projection.addExpressions(Expr.newBuilder().setType(BIGINT).setLiteral(Literal.newBuilder().setLongValue(s)));
      expand.addProjections(projection);
    }
    return Operator.newBuilder().setOutputSchema(schema).setExpand(expand).build();
  }

  /**
   * The aggregate's own row over the aggregation's output (keys, set index, calls without
   * GROUPING): the keys, then each call in order, GROUPING() computed from the set index.
   */
  public Operator restore(Operator aggregated) {
    Schema in = aggregated.getOutputSchema();
    Schema out = TypeTranslator.schema(aggregate.getRowType());
    Project.Builder project = Project.newBuilder().setInput(aggregated);
    int k = keys.size();
    for (int c = 0; c < k; c++) {
      project.addExpressions(column(c, out.getFields(c).getType()));
    }
    Expr setIndex = column(k, in.getFields(k).getType());
    int next = k + 1;
    List<AggregateCall> calls = aggregate.getAggCallList();
    for (int i = 0; i < calls.size(); i++) {
      DataType type = out.getFields(k + i).getType();
      if (calls.get(i).getAggregation().getKind() == SqlKind.GROUPING) {
        project.addExpressions(grouping(calls.get(i).getArgList(), setIndex, type));
      } else {
        project.addExpressions(column(next++, type));
      }
    }
    return Operator.newBuilder().setOutputSchema(out).setProject(project).build();
  }

  /** GROUPING(args): CASE set index WHEN s THEN mask(s) ... END, or the constant when all sets agree. */
  private Expr grouping(List<Integer> args, Expr setIndex, DataType type) {
    List<Long> masks = new ArrayList<>();
    for (ImmutableBitSet set : sets) {
      long mask = 0;
      for (int arg : args) {
        mask = (mask << 1) | (set.get(arg) ? 0 : 1);
      }
      masks.add(mask);
    }
    Expr last = constant(masks.get(masks.size() - 1), type);
    if (masks.stream().distinct().count() == 1) {
      return last;
    }
    Call.Builder caseCall = Call.newBuilder().setFunction(Function.CASE);
    DataType bool = DataType.newBuilder().setKind(DataType.Kind.BOOLEAN).setNullable(false).build();
    for (int s = 0; s < masks.size() - 1; s++) {
      Expr when = Expr.newBuilder().setType(bool).setCall(Call.newBuilder().setFunction(Function.EQUAL)
          .addArgs(setIndex).addArgs(constant(s, BIGINT))).build();
      caseCall.addArgs(when).addArgs(constant(masks.get(s), type));
    }
    caseCall.addArgs(last);
    return Expr.newBuilder().setType(type).setCall(caseCall).build();
  }

  private static final DataType BIGINT = DataType.newBuilder().setKind(DataType.Kind.BIGINT).setNullable(false).build();

  private static Expr constant(long value, DataType type) {
    return Expr.newBuilder().setType(type).setLiteral(Literal.newBuilder().setLongValue(value)).build();
  }

  private static Expr column(int index, DataType type) {
    return Expr.newBuilder().setType(type).setColumn(index).build();
  }
}
