package dev.squall.engine.operator.aggregate;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.Aggregate.Mode;
import dev.squall.proto.v1.AggregateCall;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hash aggregation in SINGLE, PARTIAL or FINAL mode. Output: the group keys in order, then the
 * aggregate columns — one per call, except a PARTIAL AVG which yields two (sum, count) and a FINAL
 * AVG which reads two (args = [sum column, count column]). COUNT in FINAL mode sums the partial
 * counts. Without group keys there is exactly one output row, even for empty input.
 *
 * <p>The whole input is consumed before the first output batch; state (group table, accumulators)
 * is reserved against the task budget after every input batch.
 */
public final class HashAggregateOperator extends BatchOperator {
  private final BatchOperator input;
  private final int[] groupKeys;
  private final GroupTable table;
  /** Key values of the group that exists even without input rows ({@code Aggregate.always_group}), or null. */
  private final Column[] alwaysGroup;
  private final List<Accumulator> accumulators = new ArrayList<>();
  private Column[] result;
  private int resultRows;
  private int emitted;

  public HashAggregateOperator(OperatorMemory memory, Schema schema, BatchOperator input, Aggregate agg) {
    super(memory, schema, List.of(input));
    this.input = input;
    Mode mode = agg.getMode();
    if (mode == Mode.MODE_UNSPECIFIED || mode == Mode.UNRECOGNIZED) {
      throw EngineException.badPlan("aggregate without a mode");
    }
    List<SqlType> inTypes = new ArrayList<>();
    input.schema().getFields().forEach(f -> inTypes.add(SqlType.fromArrow(f.getType())));
    groupKeys = agg.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    List<SqlType> keyTypes = new ArrayList<>();
    for (int k : groupKeys) {
      checkColumn(k, inTypes.size());
      keyTypes.add(inTypes.get(k));
    }
    table = new GroupTable(keyTypes);
    if (agg.getAlwaysGroupCount() == 0) {
      alwaysGroup = null;
    } else if (agg.getAlwaysGroupCount() != groupKeys.length) {
      throw EngineException.badPlan("aggregate always_group has " + agg.getAlwaysGroupCount() + " values for "
          + groupKeys.length + " group keys");
    } else {
      alwaysGroup = new Column[groupKeys.length];
      for (int k = 0; k < groupKeys.length; k++) {
        alwaysGroup[k] = dev.squall.engine.expr.Literals.column(agg.getAlwaysGroup(k), keyTypes.get(k), 1);
      }
    }
    int outCol = groupKeys.length;
    for (AggregateCall call : agg.getAggregatesList()) {
      for (int a : call.getArgsList()) {
        checkColumn(a, inTypes.size());
      }
      if (outCol >= types.size()) {
        throw EngineException.badPlan("aggregate output schema has too few columns for " + agg.getAggregatesCount() + " aggregates");
      }
      SqlType out = types.get(outCol);
      Accumulator acc = switch (call.getKind()) {
        case SUM -> new Accumulators.Sum(arg(call, 0), inTypes.get(arg(call, 0)), out);
        case COUNT_STAR -> mode == Mode.FINAL
            ? new Accumulators.Count(arg(call, 0), true, out)
            : new Accumulators.Count(-1, false, out);
        case COUNT -> new Accumulators.Count(arg(call, 0), mode == Mode.FINAL, out);
        case MIN -> out.isString() ? new Accumulators.MinMaxBytes(arg(call, 0), false, out)
            : new Accumulators.MinMax(arg(call, 0), false, out);
        case MAX -> out.isString() ? new Accumulators.MinMaxBytes(arg(call, 0), true, out)
            : new Accumulators.MinMax(arg(call, 0), true, out);
        case AVG -> mode == Mode.FINAL
            ? new Accumulators.Avg(arg(call, 0), arg(call, 1), inTypes.get(arg(call, 0)), out, false, null)
            : new Accumulators.Avg(arg(call, 0), -1, inTypes.get(arg(call, 0)), out, mode == Mode.PARTIAL, out);
        case COUNT_IF -> new Accumulators.Count(arg(call, 0), mode == Mode.FINAL, mode != Mode.FINAL, out);
        case APPROX_COUNT_DISTINCT -> new SketchAccumulators.DistinctCount(arg(call, 0), phase(mode), out);
        case APPROX_PERCENTILE -> new SketchAccumulators.Percentile(arg(call, 0), call.getPercentile(), phase(mode), out);
        case MAX_BY, MIN_BY -> new ValueByKey(arg(call, 0), arg(call, 1), call.getKind() == AggregateCall.Kind.MAX_BY,
            mode == Mode.PARTIAL, out, mode == Mode.PARTIAL && outCol + 1 < types.size() ? types.get(outCol + 1) : out);
        case LISTAGG, PERCENTILE_CONT, PERCENTILE_DISC -> {
          if (mode != Mode.SINGLE) {
            throw EngineException.badPlan(call.getKind() + " runs in SINGLE mode only");
          }
          yield new OrderedSetAccumulator(call, inTypes, out);
        }
        case SINGLE_VALUE -> {
          if (mode != Mode.SINGLE) {
            throw EngineException.badPlan("SINGLE_VALUE runs in SINGLE mode only");
          }
          yield new SingleValue(arg(call, 0), out);
        }
        default -> throw EngineException.badPlan("unsupported aggregate " + call.getKind());
      };
      accumulators.add(acc);
      boolean twoStates = call.getKind() == AggregateCall.Kind.AVG || call.getKind() == AggregateCall.Kind.MAX_BY
          || call.getKind() == AggregateCall.Kind.MIN_BY;
      outCol += twoStates && mode == Mode.PARTIAL ? 2 : 1;
    }
    if (outCol != types.size()) {
      throw EngineException.badPlan("aggregate yields " + outCol + " columns but its output schema has " + types.size());
    }
  }

  private static SketchAccumulators.Phase phase(Mode mode) {
    return switch (mode) {
      case PARTIAL -> SketchAccumulators.Phase.PARTIAL;
      case FINAL -> SketchAccumulators.Phase.FINAL;
      default -> SketchAccumulators.Phase.SINGLE;
    };
  }

  private static void checkColumn(int index, int width) {
    if (index < 0 || index >= width) {
      throw EngineException.badPlan("aggregate column " + index + " is outside the input's " + width + " columns");
    }
  }

  private static int arg(AggregateCall call, int i) {
    if (call.getArgsCount() <= i) {
      throw EngineException.badPlan(call.getKind() + " needs " + (i + 1) + " argument column(s)");
    }
    return call.getArgs(i);
  }

  @Override
  protected ColumnBatch produce() {
    if (result == null) {
      consume();
    }
    if (emitted >= resultRows) {
      return null;
    }
    int n = Math.min(BATCH_ROWS, resultRows - emitted);
    Column[] cols = new Column[result.length];
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = emitted + i;
    }
    for (int c = 0; c < cols.length; c++) {
      cols[c] = emitted == 0 && n == resultRows ? result[c] : result[c].gather(rows, n);
    }
    emitted += n;
    return new ColumnBatch(cols, n);
  }

  private void consume() {
    if (groupKeys.length == 0) {
      // One group for the whole input, present even when the input is empty.
      table.assign(new Column[0], 1);
    } else if (alwaysGroup != null) {
      table.assign(alwaysGroup, 1);
    }
    ColumnBatch batch;
    while ((batch = input.next()) != null) {
      int n = batch.rows();
      int[] ids;
      if (groupKeys.length == 0) {
        ids = new int[n];
      } else {
        Column[] keys = new Column[groupKeys.length];
        for (int k = 0; k < keys.length; k++) {
          keys[k] = batch.column(groupKeys[k]);
        }
        ids = table.assign(keys, n);
      }
      int groups = table.groups();
      for (Accumulator acc : accumulators) {
        acc.add(ids, n, groups, batch);
      }
      reserveState();
    }
    int groups = table.groups();
    List<Column> out = new ArrayList<>();
    Column[] keys = table.keys();
    for (Column k : keys) {
      out.add(k);
    }
    for (Accumulator acc : accumulators) {
      for (Column c : acc.results(groups)) {
        out.add(c);
      }
    }
    result = out.toArray(new Column[0]);
    for (int c = 0; c < result.length; c++) {
      result[c] = dev.squall.engine.expr.Casts.cast(result[c], types.get(c));
    }
    resultRows = groups;
    reserveState();
  }

  private void reserveState() {
    long bytes = table.bytes();
    for (Accumulator acc : accumulators) {
      bytes += acc.bytes();
    }
    memory.reserveTotal(bytes);
  }
}
