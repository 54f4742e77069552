package dev.squall.engine.operator.aggregate;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.hash.RowHashes;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.spill.HashPartitionedSpill;
import dev.squall.engine.spill.SpillFile;
import dev.squall.engine.spill.SpilledInput;
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
 * is reserved against the task budget after every input batch. When the state would take the
 * task past its spill threshold, the table stops growing and rows of new groups are spilled by
 * hash partition ({@link HashPartitionedSpill}); after the table's groups, each partition is
 * aggregated by a pass of its own, which spills again by the next bits of the hash when its
 * groups still do not fit.
 */
public final class HashAggregateOperator extends BatchOperator {
  /** Rows added to a table that may spill between two checks of its memory. */
  private static final int SPILLING_STEP_ROWS = 1024;
  /** Least heap bytes a new group is taken to add to the table (slot, id, hash), before accumulators. */
  private static final long MIN_GROUP_BYTES = 48;
  private final BatchOperator input;
  private final int[] groupKeys;
  private final Aggregate agg;
  private final int level;
  private GroupTable table;
  private boolean consumed;
  /** Rows of groups not in the table once it stopped growing, by hash partition; null until then. */
  private HashPartitionedSpill spilled;
  private List<SpillFile> partitions;
  private int nextPartition;
  private HashAggregateOperator partitionPass;
  /** Key values of the group that exists even without input rows ({@code Aggregate.always_group}), or null. */
  private final Column[] alwaysGroup;
  private final List<Accumulator> accumulators = new ArrayList<>();
  private Column[] result;
  private int resultRows;
  private int emitted;

  public HashAggregateOperator(OperatorMemory memory, Schema schema, BatchOperator input, Aggregate agg) {
    this(memory, schema, input, agg, 0);
  }

  /** @param level the spill level of this pass: 0, or one more than the pass whose partition it reads */
  private HashAggregateOperator(OperatorMemory memory, Schema schema, BatchOperator input, Aggregate agg, int level) {
    super(memory, schema, List.of(input));
    this.input = input;
    // Each input batch is consumed whole (keys and values copied into the group table and the
    // accumulators, spilled rows written out) before the next is asked for.
    input.promiseConsumerKeepsNoBatch();
    this.agg = agg;
    this.level = level;
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
        case THETA_SKETCH -> new SketchAccumulators.Theta(arg(call, 0), phase(mode), out);
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
    if (!consumed) {
      consumed = true;
      consume();
    }
    if (emitted >= resultRows) {
      if (result != null) {
        result = null;
        memory.reserveTotal(0);
      }
      return nextFromPartitions();
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
    } else if (alwaysGroup != null && level == 0) {
      // Once, in the first pass: passes over spilled partitions must not add it again.
      table.assign(alwaysGroup, 1);
    }
    ColumnBatch input;
    boolean maySpill = groupKeys.length > 0 && memory.canSpill();
    while ((input = this.input.next()) != null) {
      int step = maySpill ? stepRows(input) : Integer.MAX_VALUE;
      for (int start = 0; start < input.rows(); start += step) {
        int n = Math.min(step, input.rows() - start);
        ColumnBatch batch = n == input.rows() ? input : input.slice(start, n);
        if (spilled != null) {
          spillNewGroups(batch, keysOf(batch), n);
          continue;
        }
        int[] ids = groupKeys.length == 0 ? new int[n] : table.assign(keysOf(batch), n);
        int groups = table.groups();
        for (Accumulator acc : accumulators) {
          acc.add(ids, n, groups, batch);
        }
        if (!tryReserveState()) {
          startSpilling();
        }
      }
    }
    if (spilled != null) {
      partitions = spilled.finish();
      spilled = null;
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
    table = null;
    // Passes over spilled partitions have accumulators of their own.
    accumulators.clear();
    long bytes = 0;
    for (Column c : result) {
      bytes += c.bytes();
    }
    memory.reserveTotal(bytes);
  }

  /**
   * Rows to add before the next memory check. A table that may spill grows a slice at a time near
   * its threshold, so that it passes it by little; while even a batch of nothing but new groups
   * (at the table's bytes per group so far, and the batch's key bytes) fits twice in the task's
   * headroom, the whole batch goes at once, since a slice is a copy of every column it reads.
   */
  private int stepRows(ColumnBatch input) {
    int n = input.rows();
    int groups = table.groups();
    long perGroup = Math.max(MIN_GROUP_BYTES + 16L * accumulators.size(), groups == 0 ? 0 : stateBytes() / groups);
    long growth = perGroup * n;
    for (int k : groupKeys) {
      growth += input.column(k).bytes();
    }
    return 2 * growth <= memory.spillHeadroom() ? n : SPILLING_STEP_ROWS;
  }

  private Column[] keysOf(ColumnBatch batch) {
    Column[] keys = new Column[groupKeys.length];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = batch.column(groupKeys[k]);
    }
    return keys;
  }

  /** Heap bytes of the group table and the accumulators. */
  private long stateBytes() {
    long bytes = table.bytes();
    for (Accumulator acc : accumulators) {
      bytes += acc.bytes();
    }
    return bytes;
  }

  /** Reserves the table's and accumulators' bytes; false when the operator should spill instead. */
  private boolean tryReserveState() {
    long bytes = stateBytes();
    if (groupKeys.length == 0 || !memory.canSpill() || level >= HashPartitionedSpill.MAX_LEVELS) {
      memory.reserveTotal(bytes);
      return true;
    }
    if (memory.tryReserveTotal(bytes)) {
      return true;
    }
    // The state is already on the heap: account it (within the budget's headroom) and stop growing.
    memory.reserveTotal(bytes);
    return false;
  }

  /**
   * The table stops growing: from now on rows of groups it holds are aggregated as before, rows
   * of other groups go to disk by hash partition, to be aggregated partition by partition once
   * the table's groups are out. A group is thus either wholly in the table or wholly spilled, so
   * every mode (SINGLE, PARTIAL, FINAL) aggregates spilled rows exactly as it would have.
   */
  private void startSpilling() {
    spilled = new HashPartitionedSpill(memory, input.schema(), level);
  }

  private void spillNewGroups(ColumnBatch batch, Column[] keys, int n) {
    int[] hashes = RowHashes.of(keys, n, new int[n]);
    int[] ids = table.lookup(keys, n, hashes);
    int[] inTable = new int[n];
    int[] toDisk = new int[n];
    int t = 0;
    int d = 0;
    for (int i = 0; i < n; i++) {
      if (ids[i] >= 0) {
        inTable[t++] = i;
      } else {
        toDisk[d++] = i;
      }
    }
    if (t > 0) {
      ColumnBatch known = t == n ? batch : batch.select(inTable, t);
      int[] knownIds = t == n ? ids : new int[t];
      for (int i = 0; t != n && i < t; i++) {
        knownIds[i] = ids[inTable[i]];
      }
      for (Accumulator acc : accumulators) {
        acc.add(knownIds, t, table.groups(), known);
      }
      long bytes = table.bytes();
      for (Accumulator acc : accumulators) {
        bytes += acc.bytes();
      }
      memory.reserveTotal(bytes);
    }
    if (d > 0) {
      int[] diskHashes = new int[d];
      for (int i = 0; i < d; i++) {
        diskHashes[i] = hashes[toDisk[i]];
      }
      spilled.add(d == n ? batch : batch.select(toDisk, d), diskHashes);
    }
  }

  /** After the table's groups: each spilled partition aggregated by a pass of its own. */
  private ColumnBatch nextFromPartitions() {
    while (true) {
      if (partitionPass != null) {
        ColumnBatch b = partitionPass.next();
        if (b != null) {
          return b;
        }
        partitionPass.close();
        partitionPass = null;
      }
      if (partitions == null || nextPartition >= partitions.size()) {
        return null;
      }
      int p = nextPartition++;
      SpillFile file = partitions.set(p, null);
      if (file == null) {
        continue;
      }
      String suffix = "/p" + level + "." + p;
      SpilledInput read = new SpilledInput(memory.child(suffix + ".read"), input.schema(), List.of(file));
      partitionPass = new HashAggregateOperator(memory.child(suffix), schema, read, agg, level + 1);
    }
  }

  @Override
  protected void releaseState() {
    try {
      if (partitionPass != null) {
        partitionPass.close();
        partitionPass = null;
      }
    } finally {
      if (spilled != null) {
        spilled.delete();
      }
      if (partitions != null) {
        partitions.stream().filter(f -> f != null).forEach(SpillFile::delete);
      }
      table = null;
      result = null;
    }
  }
}
