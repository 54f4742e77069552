package dev.squall.planner.stage;

import dev.squall.planner.PlanningException;
import dev.squall.planner.translate.SortKeys;
import dev.squall.planner.translate.TypeTranslator;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Project;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlKind;

/**
 * Splits one Calcite aggregate into plan-proto aggregates: SINGLE (whole aggregation in one step),
 * or PARTIAL on the map side and FINAL on the reduce side of an exchange.
 *
 * <p>Conventions: the partial output is the group keys (in group order) followed by the state
 * columns of each aggregate — SUM: the partial sum (the final SUM type, nullable); COUNT, COUNT(*)
 * and COUNT_IF: BIGINT count; MIN/MAX: the value; APPROX_COUNT_DISTINCT, APPROX_PERCENTILE and ANALYZE's
 * THETA_SKETCH: a VARBINARY sketch; MAX_BY/MIN_BY: two columns, the value and its key. The FINAL aggregate groups
 * by columns 0..k-1 of the partial rows and every FINAL aggregate call reads the columns of its
 * partial state (COUNT and COUNT(*) states are summed). Calcite's {@code $SUM0} (a SUM that is 0
 * instead of NULL over no rows) runs as SUM followed by a Project with COALESCE(sum, 0). Calcite's
 * {@code LITERAL_AGG} does not get here: {@code LiteralAggToProject} has replaced it by a Project.
 */
public final class AggregateSplit {
  private final org.apache.calcite.rel.core.Aggregate aggregate;
  private final List<Integer> groupKeys;
  /** Engine kind of each original call. */
  private final List<AggregateCall.Kind> kinds = new ArrayList<>();
  /** Original call indexes that the engine aggregate computes, in its output order. */
  private final List<Integer> computed = new ArrayList<>();
  private final boolean needsPostProjection;
  /** The percentile of each original APPROX_PERCENTILE, PERCENTILE_CONT or PERCENTILE_DISC call (0 for others). */
  private final List<Double> percentiles = new ArrayList<>();
  /** Key values of the group the SINGLE or PARTIAL aggregate holds even without input rows; empty for none. */
  private List<Literal> alwaysGroup = List.of();

  /**
   * @throws PlanningException UNSUPPORTED for grouping sets (planned by {@link GroupingSetsPlan},
   *     which hands this class an aggregate of one group set), FILTER, DISTINCT left over, or an
   *     aggregate function other than SUM, COUNT, MIN, MAX (BOOL_AND, BOOL_OR, EVERY and ANY_VALUE
   *     among them), COUNT_IF, APPROX_COUNT_DISTINCT, APPROX_PERCENTILE, MAX_BY, MIN_BY, LISTAGG
   *     (STRING_AGG), PERCENTILE_CONT, PERCENTILE_DISC and SINGLE_VALUE
   */
  public AggregateSplit(org.apache.calcite.rel.core.Aggregate aggregate) {
    this.aggregate = aggregate;
    if (aggregate.getGroupType() != org.apache.calcite.rel.core.Aggregate.Group.SIMPLE) {
      throw unsupported("GROUPING SETS, ROLLUP and CUBE");
    }
    this.groupKeys = aggregate.getGroupSet().asList();
    boolean sum0 = false;
    boolean groupingCalls = false;
    for (org.apache.calcite.rel.core.AggregateCall call : aggregate.getAggCallList()) {
      if (call.hasFilter()) {
        throw unsupported("aggregate FILTER clause");
      }
      if (call.isDistinct()) {
        throw unsupported("DISTINCT aggregate " + call.getAggregation().getName() + " in this position");
      }
      SqlKind kind = call.getAggregation().getKind();
      if (kind == SqlKind.GROUPING) {
        // In an aggregate of one group set (Calcite splits duplicate grouping sets into several)
        // every GROUPING argument is grouped: the answer is 0, projected afterwards.
        kinds.add(AggregateCall.Kind.KIND_UNSPECIFIED);
        percentiles.add(0.0);
        groupingCalls = true;
        continue;
      }
      String name = call.getAggregation().getName().toUpperCase(java.util.Locale.ROOT);
      AggregateCall.Kind mapped = switch (kind) {
        case SUM -> AggregateCall.Kind.SUM;
        case SUM0 -> AggregateCall.Kind.SUM;
        case COUNT -> call.getArgList().isEmpty() ? AggregateCall.Kind.COUNT_STAR : AggregateCall.Kind.COUNT;
        case MIN -> AggregateCall.Kind.MIN;
        case MAX -> AggregateCall.Kind.MAX;
        // Any value of the group is a right answer; the smallest is one that merges across tasks.
        case ANY_VALUE -> AggregateCall.Kind.MIN;
        case OTHER_FUNCTION -> switch (name) {
          case "COUNT_IF" -> AggregateCall.Kind.COUNT_IF;
          case "APPROX_COUNT_DISTINCT" -> AggregateCall.Kind.APPROX_COUNT_DISTINCT;
          case "APPROX_PERCENTILE" -> AggregateCall.Kind.APPROX_PERCENTILE;
          case "$THETA_SKETCH" -> AggregateCall.Kind.THETA_SKETCH;
          case "MAX_BY" -> AggregateCall.Kind.MAX_BY;
          case "MIN_BY" -> AggregateCall.Kind.MIN_BY;
          case "PERCENTILE_CONT" -> AggregateCall.Kind.PERCENTILE_CONT;
          case "PERCENTILE_DISC" -> AggregateCall.Kind.PERCENTILE_DISC;
          default -> throw unsupported("aggregate function " + call.getAggregation().getName());
        };
        case LISTAGG, STRING_AGG -> AggregateCall.Kind.LISTAGG;
        case SINGLE_VALUE -> AggregateCall.Kind.SINGLE_VALUE;
        default -> throw unsupported("aggregate function " + call.getAggregation().getName());
      };
      if (kind == SqlKind.STRING_AGG && call.getArgList().size() < 2) {
        throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
            "STRING_AGG needs a separator: STRING_AGG(x, separator)");
      }
      if (kind == SqlKind.COUNT && call.getArgList().size() > 1) {
        throw unsupported("COUNT with several arguments");
      }
      sum0 |= kind == SqlKind.SUM0;
      computed.add(kinds.size());
      kinds.add(mapped);
      percentiles.add(switch (mapped) {
        case APPROX_PERCENTILE -> percentile(aggregate, call, 1);
        case PERCENTILE_CONT, PERCENTILE_DISC -> percentile(aggregate, call, 0);
        default -> 0.0;
      });
      if (!call.getCollation().getFieldCollations().isEmpty() && mapped != AggregateCall.Kind.LISTAGG
          && mapped != AggregateCall.Kind.PERCENTILE_CONT && mapped != AggregateCall.Kind.PERCENTILE_DISC) {
        throw unsupported("ORDER BY within aggregate " + call.getAggregation().getName());
      }
    }
    this.needsPostProjection = sum0 || groupingCalls;
  }

  public List<Integer> groupKeys() {
    return groupKeys;
  }

  /**
   * Whether the aggregation runs in one step only: LISTAGG, PERCENTILE_CONT, PERCENTILE_DISC and
   * SINGLE_VALUE have no small partial state, so their input rows cross the exchange themselves and
   * {@link #single} aggregates them after it.
   */
  public boolean isSingleStepOnly() {
    return kinds.stream().anyMatch(k -> k == AggregateCall.Kind.LISTAGG || k == AggregateCall.Kind.PERCENTILE_CONT
        || k == AggregateCall.Kind.PERCENTILE_DISC || k == AggregateCall.Kind.SINGLE_VALUE);
  }

  /** Whether the SINGLE and PARTIAL aggregates hold a group even without input rows. */
  public boolean hasAlwaysGroup() {
    return !alwaysGroup.isEmpty();
  }

  /**
   * Makes the SINGLE and PARTIAL aggregates hold the group of these key values (one per group key)
   * even when no input row falls into it.
   */
  public AggregateSplit withAlwaysGroup(List<Literal> keyValues) {
    this.alwaysGroup = List.copyOf(keyValues);
    return this;
  }

  /** The whole aggregation in one step over {@code input}. */
  public Operator single(Operator input) {
    Aggregate.Builder agg = Aggregate.newBuilder().setInput(input).setMode(Aggregate.Mode.SINGLE)
        .addAllGroupKeys(groupKeys).addAllAlwaysGroup(alwaysGroup);
    for (int i : computed) {
      agg.addAggregates(call(i, aggregate.getAggCallList().get(i).getArgList(), finalType(i)));
    }
    return postProject(Operator.newBuilder().setOutputSchema(finalAggregateSchema()).setAggregate(agg).build());
  }

  /** The map-side aggregate over {@code input}; its output is {@link #partialSchema()}. */
  public Operator partial(Operator input) {
    if (isSingleStepOnly()) {
      throw new IllegalStateException("a single-step aggregation has no partial aggregate");
    }
    Aggregate.Builder agg = Aggregate.newBuilder().setInput(input).setMode(Aggregate.Mode.PARTIAL)
        .addAllGroupKeys(groupKeys).addAllAlwaysGroup(alwaysGroup);
    for (int i : computed) {
      agg.addAggregates(call(i, aggregate.getAggCallList().get(i).getArgList(), partialType(i)));
    }
    return Operator.newBuilder().setOutputSchema(partialSchema()).setAggregate(agg).build();
  }

  /** The reduce-side aggregate over the partial rows (e.g. a ShuffleRead of them). */
  public Operator finalOf(Operator partialRows) {
    int k = groupKeys.size();
    Aggregate.Builder agg = Aggregate.newBuilder().setInput(partialRows).setMode(Aggregate.Mode.FINAL);
    for (int i = 0; i < k; i++) {
      agg.addGroupKeys(i);
    }
    int state = k;
    for (int j = 0; j < computed.size(); j++) {
      int i = computed.get(j);
      List<Integer> states = isByKey(i) ? List.of(state, state + 1) : List.of(state);
      agg.addAggregates(call(i, states, finalType(i)));
      state += states.size();
    }
    return postProject(Operator.newBuilder().setOutputSchema(finalAggregateSchema()).setAggregate(agg).build());
  }

  /** Output of the partial aggregate: group keys, then one state per aggregate. */
  public Schema partialSchema() {
    Schema.Builder schema = Schema.newBuilder();
    List<RelDataTypeField> fields = aggregate.getRowType().getFieldList();
    for (int i = 0; i < groupKeys.size(); i++) {
      schema.addFields(field(fields.get(i).getName(), TypeTranslator.toProto(fields.get(i).getType())));
    }
    for (int i : computed) {
      String name = fields.get(groupKeys.size() + i).getName();
      schema.addFields(field(name, partialType(i)));
      if (isByKey(i)) {
        // MAX_BY/MIN_BY carry the winning row's key beside its value.
        int keyColumn = aggregate.getAggCallList().get(i).getArgList().get(1);
        RelDataType keyType = aggregate.getInput().getRowType().getFieldList().get(keyColumn).getType();
        schema.addFields(field(name + "$key", TypeTranslator.toProto(keyType).toBuilder().setNullable(true).build()));
      }
    }
    return schema.build();
  }

  private boolean isByKey(int i) {
    return kinds.get(i) == AggregateCall.Kind.MAX_BY || kinds.get(i) == AggregateCall.Kind.MIN_BY;
  }

  private AggregateCall call(int i, List<Integer> args, DataType type) {
    org.apache.calcite.rel.core.AggregateCall original = aggregate.getAggCallList().get(i);
    List<SortKey> order = SortKeys.of(original.getCollation().getFieldCollations());
    List<Integer> engineArgs = switch (kinds.get(i)) {
      // APPROX_PERCENTILE reads only its value; the percentile travels as a constant.
      case APPROX_PERCENTILE -> args.subList(0, 1);
      // PERCENTILE_CONT/DISC read the ORDER BY column; their argument is the percentile.
      case PERCENTILE_CONT, PERCENTILE_DISC -> {
        if (order.size() != 1) {
          throw unsupported(original.getAggregation().getName() + " without exactly one ORDER BY column");
        }
        RelDataType orderType = aggregate.getInput().getRowType().getFieldList().get(order.get(0).getColumn()).getType();
        if (!org.apache.calcite.sql.type.SqlTypeUtil.isNumeric(orderType)) {
          throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
              original.getAggregation().getName() + " needs a numeric ORDER BY column, got " + orderType);
        }
        yield List.of(order.get(0).getColumn());
      }
      default -> args;
    };
    return AggregateCall.newBuilder()
        .setKind(kinds.get(i))
        .addAllArgs(engineArgs)
        .setPercentile(percentiles.get(i))
        .addAllOrderKeys(order)
        .setType(type)
        .setName(aggregate.getRowType().getFieldList().get(groupKeys.size() + i).getName())
        .build();
  }

  private DataType finalType(int i) {
    RelDataType type = aggregate.getAggCallList().get(i).getType();
    DataType proto = TypeTranslator.toProto(type);
    // $SUM0 is computed as a SUM (NULL over no rows) and coalesced afterwards.
    if (aggregate.getAggCallList().get(i).getAggregation().getKind() == SqlKind.SUM0) {
      proto = proto.toBuilder().setNullable(true).build();
    }
    return proto;
  }

  private DataType partialType(int i) {
    return switch (kinds.get(i)) {
      case COUNT, COUNT_STAR, COUNT_IF -> DataType.newBuilder().setKind(DataType.Kind.BIGINT).setNullable(false).build();
      case APPROX_COUNT_DISTINCT, APPROX_PERCENTILE, THETA_SKETCH ->
          DataType.newBuilder().setKind(DataType.Kind.VARBINARY).setNullable(true).build();
      default -> finalType(i).toBuilder().setNullable(true).build();
    };
  }

  private Schema finalAggregateSchema() {
    Schema.Builder schema = Schema.newBuilder();
    List<RelDataTypeField> fields = aggregate.getRowType().getFieldList();
    for (int i = 0; i < groupKeys.size(); i++) {
      schema.addFields(field(fields.get(i).getName(), TypeTranslator.toProto(fields.get(i).getType())));
    }
    for (int i : computed) {
      schema.addFields(field(fields.get(groupKeys.size() + i).getName(), finalType(i)));
    }
    return schema.build();
  }

  /** Restores the Calcite output row: SUM results of $SUM0 coalesced to 0, GROUPING calls as 0. */
  private Operator postProject(Operator aggregateOp) {
    if (!needsPostProjection) {
      return aggregateOp;
    }
    Schema in = aggregateOp.getOutputSchema();
    Project.Builder project = Project.newBuilder().setInput(aggregateOp);
    int k = groupKeys.size();
    for (int c = 0; c < k; c++) {
      project.addExpressions(Expr.newBuilder().setType(in.getFields(c).getType()).setColumn(c));
    }
    List<org.apache.calcite.rel.core.AggregateCall> calls = aggregate.getAggCallList();
    for (int i = 0; i < calls.size(); i++) {
      org.apache.calcite.rel.core.AggregateCall call = calls.get(i);
      if (!computed.contains(i)) {
        DataType type = TypeTranslator.toProto(call.getType());
        project.addExpressions(Expr.newBuilder().setType(type).setLiteral(zero(type)));
        continue;
      }
      int c = k + computed.indexOf(i);
      DataType type = in.getFields(c).getType();
      Expr column = Expr.newBuilder().setType(type).setColumn(c).build();
      if (call.getAggregation().getKind() == SqlKind.SUM0) {
        DataType nonNull = type.toBuilder().setNullable(false).build();
        Expr zero = Expr.newBuilder().setType(nonNull).setLiteral(zero(nonNull)).build();
        column = Expr.newBuilder().setType(nonNull)
            .setCall(Call.newBuilder().setFunction(Function.COALESCE).addArgs(column).addArgs(zero)).build();
      }
      project.addExpressions(column);
    }
    return Operator.newBuilder()
        .setOutputSchema(TypeTranslator.schema(aggregate.getRowType()))
        .setProject(project)
        .build();
  }

  /**
   * The percentile of an APPROX_PERCENTILE (argument 1), PERCENTILE_CONT or PERCENTILE_DISC
   * (argument 0) call, which must be a constant of the aggregate's input (a literal projected below it).
   */
  private static double percentile(org.apache.calcite.rel.core.Aggregate aggregate,
      org.apache.calcite.rel.core.AggregateCall call, int argument) {
    String name = call.getAggregation().getName().toUpperCase(java.util.Locale.ROOT);
    int column = call.getArgList().get(argument);
    org.apache.calcite.rel.RelNode input = aggregate.getInput();
    if (input instanceof org.apache.calcite.rel.core.Project project
        && project.getProjects().get(column) instanceof org.apache.calcite.rex.RexLiteral literal
        && literal.getValueAs(Double.class) != null) {
      double p = literal.getValueAs(Double.class);
      if (!(p >= 0 && p <= 1)) {
        throw PlanningException.unpositioned(PlanningException.Code.VALIDATION_ERROR,
            name + " percentile must be between 0 and 1, got " + p);
      }
      return p;
    }
    throw unsupported(name + " with a percentile that is not a constant");
  }

  private static Literal zero(DataType type) {
    return switch (type.getKind()) {
      case DECIMAL -> Literal.newBuilder().setDecimalUnscaled("0").build();
      case REAL, DOUBLE -> Literal.newBuilder().setDoubleValue(0).build();
      default -> Literal.newBuilder().setLongValue(0).build();
    };
  }

  private static Field field(String name, DataType type) {
    return Field.newBuilder().setName(name).setType(type).build();
  }

  private static PlanningException unsupported(String what) {
    return PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
        "Unsupported SQL: " + what + " is not supported by Squall");
  }
}
