package dev.squall.engine.operator.join;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Batch;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.hash.RowHashes;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.spill.HashPartitionedSpill;
import dev.squall.engine.spill.SpillFile;
import dev.squall.engine.spill.SpilledInput;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.JoinType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A join of every join type (INNER, LEFT, RIGHT, FULL, SEMI, ANTI): the build side (chosen by the
 * plan) is read whole into columns, the probe side streams, and a subclass finds the candidate
 * pairs of each probe batch ({@link HashJoinOperator} from a {@link JoinHashTable} on equi-keys,
 * {@link NestedLoopJoinOperator} every pair). Candidates are checked against the optional residual
 * condition over the concatenated (left ++ right) row in chunks of {@value #PAIR_CHUNK}, so memory
 * stays bounded for many-to-many matches; this class keeps the outer, semi and anti bookkeeping.
 *
 * <p>Output: left columns then right columns; SEMI and ANTI output the left columns only.
 *
 * <p>A join that can partition ({@link HashJoinOperator}) becomes a grace hash join when its build
 * side would take the task past its spill threshold: both inputs go to disk by key hash and the
 * partitions are joined one at a time, each by a join of its own (which partitions again if need
 * be). Every join type stays correct, as a row's output depends only on the rows of equal key,
 * which share its partition.
 */
public abstract class JoinOperator extends BatchOperator {
  private static final int PAIR_CHUNK = BATCH_ROWS;

  private final BatchOperator probe;
  private final BatchOperator build;
  private final boolean buildLeft;
  private final JoinType joinType;
  protected final int[] probeKeys;
  protected final int[] buildKeys;
  protected final Evaluator residual;
  private final int leftWidth;
  private final boolean probeOuter;
  private final boolean buildOuter;
  private final boolean semiOrAnti;
  protected final boolean probeSideFilter; // SEMI/ANTI answered per probe row
  private final Deque<ColumnBatch> pending = new ArrayDeque<>();

  private Column[] buildCols;
  /** Per key, the type both sides' keys are compared in, or null when they already agree. */
  protected final SqlType[] keyTypes;
  protected int buildRows;
  private boolean[] buildMatched;
  private boolean probeDone;
  private boolean finished;
  private boolean built;
  /** The spill level of this join: 0, or one more than the join whose partition it joins. */
  protected int spillLevel;
  private HashPartitionedSpill buildSpill;
  private HashPartitionedSpill probeSpill;
  private List<SpillFile> buildParts;
  private List<SpillFile> probeParts;
  private int nextPartition;
  private BatchOperator partitionPass;
  /** Block nested-loop join: the build side on disk, joined a block (what fits) at a time. */
  private boolean blockMode;
  private SpillFile blockBuild;
  private SpillFile.Reader blockReader;
  private ColumnBatch blockLookahead;
  private boolean lastBlock;
  private int blocksJoined;
  /** The probe side, written on the pass over the first block and read again for every later one. */
  private SpillFile blockProbe;
  private SpillFile.Reader probeReader;
  /** Probe rows (by their index in the probe side) matched by some block so far. */
  private java.util.BitSet probeSeen;
  /** Index in the probe side of the next probe row of this pass. */
  private long probeRow;

  /**
   * @param buildLeft whether the left input is the build side
   * @param leftKeys key columns of the left input; rightKeys of the right input (same count)
   * @param residual over left ++ right columns, or null
   */
  protected JoinOperator(OperatorMemory memory, Schema schema, BatchOperator left, BatchOperator right,
      JoinType joinType, int[] leftKeys, int[] rightKeys, Evaluator residual, boolean buildLeft) {
    super(memory, schema, List.of(left, right));
    if (leftKeys.length != rightKeys.length) {
      throw EngineException.badPlan("join has " + leftKeys.length + " left keys and " + rightKeys.length + " right keys");
    }
    if (joinType == JoinType.JOIN_TYPE_UNSPECIFIED || joinType == JoinType.UNRECOGNIZED) {
      throw EngineException.badPlan("join without a join type");
    }
    this.buildLeft = buildLeft;
    this.probe = buildLeft ? right : left;
    this.build = buildLeft ? left : right;
    this.probeKeys = buildLeft ? rightKeys : leftKeys;
    this.buildKeys = buildLeft ? leftKeys : rightKeys;
    this.joinType = joinType;
    this.residual = residual;
    this.leftWidth = left.schema().getFields().size();
    boolean full = joinType == JoinType.FULL;
    this.probeOuter = full || (joinType == JoinType.LEFT && !buildLeft) || (joinType == JoinType.RIGHT && buildLeft);
    this.buildOuter = full || (joinType == JoinType.RIGHT && !buildLeft) || (joinType == JoinType.LEFT && buildLeft);
    this.semiOrAnti = joinType == JoinType.SEMI || joinType == JoinType.ANTI;
    this.probeSideFilter = semiOrAnti && !buildLeft;
    this.keyTypes = new SqlType[probeKeys.length];
    for (int k = 0; k < probeKeys.length; k++) {
      keyTypes[k] = commonKeyType(typeOf(probe, probeKeys[k]), typeOf(build, buildKeys[k]));
    }
    int expected = semiOrAnti ? leftWidth : leftWidth + right.schema().getFields().size();
    if (expected != types.size()) {
      throw EngineException.badPlan(joinType + " join yields " + expected + " columns but its output schema has " + types.size());
    }
  }

  /**
   * The join asks its probe input for the next batch only once every output batch made from the
   * previous one has been handed on ({@code pending} is empty), so a consumer that keeps no batch
   * lets the probe side reuse its arrays too. The build side is kept whole and gets no promise.
   */
  @Override
  public void promiseConsumerKeepsNoBatch() {
    super.promiseConsumerKeepsNoBatch();
    probe.promiseConsumerKeepsNoBatch();
  }

  @Override
  protected ColumnBatch produce() {
    if (!built) {
      built = true;
      buildTable();
    }
    if (probeParts != null) {
      return nextFromPartitions();
    }
    while (pending.isEmpty()) {
      if (!probeDone) {
        ColumnBatch batch = nextProbe();
        if (batch == null) {
          probeDone = true;
          continue;
        }
        probeBatch(batch, batch.rows());
      } else if (!finished) {
        finished = true;
        emitBuildTail();
      } else if (blockMode && !lastBlock) {
        nextBlock();
      } else {
        // Exhausted: the build side's memory goes back to the operators above.
        releaseState();
        memory.reserveTotal(0);
        return null;
      }
    }
    return pending.poll();
  }

  private void buildTable() {
    List<SqlType> buildTypes = new ArrayList<>();
    build.schema().getFields().forEach(f -> buildTypes.add(SqlType.fromArrow(f.getType())));
    boolean mayPartition = partitionable() && memory.canSpill() && spillLevel < HashPartitionedSpill.MAX_LEVELS;
    boolean mayBlock = !partitionable() && memory.canSpill();
    List<Column[]> parts = mayPartition ? drainWithinThreshold(this::partitionInputs)
        : mayBlock ? drainWithinThreshold(this::spillBlocks) : drain(build, memory);
    if (parts == null) {
      if (blockMode) {
        loadBlock();
      }
      return;
    }
    setBuild(parts);
  }

  /** Makes {@code parts} (batches of the build side's columns) the build side to probe, indexed. */
  private void setBuild(List<Column[]> parts) {
    List<SqlType> buildTypes = new ArrayList<>();
    build.schema().getFields().forEach(f -> buildTypes.add(SqlType.fromArrow(f.getType())));
    buildCols = new Column[buildTypes.size()];
    for (int c = 0; c < buildCols.length; c++) {
      List<Column> col = new ArrayList<>();
      for (Column[] p : parts) {
        col.add(p[c]);
      }
      buildCols[c] = parts.size() == 1 ? parts.get(0)[c] : Column.concat(buildTypes.get(c), col);
    }
    buildRows = parts.stream().mapToInt(p -> p.length == 0 ? 0 : p[0].size()).sum();
    long bytes = 0;
    for (Column c : buildCols) {
      bytes += c.bytes();
    }
    bytes += buildRows + indexBuildSide(buildCols);
    if (probeSeen != null) {
      bytes += probeSeen.size() / 8;
    }
    memory.reserveTotal(bytes);
    buildMatched = new boolean[buildRows];
  }

  /**
   * Reads the build side while it fits under the task's spill threshold; once it does not, hands
   * the batches read so far to {@code overflow} (which takes the rest of the build side too) and
   * answers null.
   */
  private List<Column[]> drainWithinThreshold(java.util.function.Consumer<List<Column[]>> overflow) {
    List<Column[]> parts = new ArrayList<>();
    long bytes = 0;
    int rows = 0;
    ColumnBatch batch;
    while ((batch = build.next()) != null) {
      Column[] cols = batch.columns();
      parts.add(cols);
      for (Column c : cols) {
        bytes += c.bytes();
      }
      rows += batch.rows();
      // The columns, their matched flags and the index about to be built on them.
      if (!memory.tryReserveTotal(bytes + rows + indexBytes(rows))) {
        overflow.accept(parts);
        return null;
      }
    }
    return parts;
  }

  /**
   * The build side of a join that cannot partition (a nested-loop join) past the spill threshold:
   * written whole to a spill file, the batches read so far first, to be joined a block at a time
   * ({@link #loadBlock}).
   */
  private void spillBlocks(List<Column[]> parts) {
    blockMode = true;
    blockBuild = memory.spill().newFile(name());
    for (Column[] p : parts) {
      blockBuild.write(new ColumnBatch(p, p[0].size()), build.schema(), memory.allocator());
    }
    parts.clear();
    memory.reserveTotal(0);
    ColumnBatch batch;
    while ((batch = build.next()) != null) {
      blockBuild.write(batch, build.schema(), memory.allocator());
    }
    blockBuild.finish();
    blockReader = blockBuild.open(memory.allocator());
    blockProbe = memory.spill().newFile(name());
    if (probeOuter || probeSideFilter) {
      probeSeen = new java.util.BitSet();
    }
  }

  /**
   * Block nested-loop join: reads the next block of the spilled build side, as many rows as fit
   * under the task's spill threshold (at least one batch), and makes it the build side. The pass
   * over the first block reads the probe input and writes it to disk; later passes read it back.
   * Outer, semi and anti joins stay exact: a block's unmatched (or, for a build-side semi or anti
   * join, matched) build rows are known after its pass over the whole probe side, and a probe row's
   * match in any block is remembered by its index, so that the last pass decides the probe side's
   * unmatched, semi and anti rows.
   */
  private void loadBlock() {
    buildCols = null;
    buildMatched = null;
    memory.reserveTotal(0);
    List<Column[]> parts = new ArrayList<>();
    long bytes = 0;
    int rows = 0;
    lastBlock = false;
    while (true) {
      memory.checkCancelled();
      ColumnBatch b = blockLookahead != null ? blockLookahead : blockReader.next();
      blockLookahead = null;
      if (b == null) {
        lastBlock = true;
        break;
      }
      long nextBytes = bytes + b.bytes();
      int nextRows = rows + b.rows();
      long need = nextBytes + nextRows + indexBytes(nextRows) + (probeSeen == null ? 0 : probeSeen.size() / 8);
      if (parts.isEmpty()) {
        memory.reserveTotal(need);
      } else if (!memory.tryReserveTotal(need)) {
        blockLookahead = b;
        break;
      }
      parts.add(b.columns());
      bytes = nextBytes;
      rows = nextRows;
    }
    if (lastBlock) {
      blockReader.close();
      blockReader = null;
      blockBuild.delete();
    }
    setBuild(parts);
    blocksJoined++;
    probeRow = 0;
  }

  /** After a block's pass: the next block, joined with the probe side read back from disk. */
  private void nextBlock() {
    if (probeReader != null) {
      probeReader.close();
    }
    probeReader = blockProbe.open(memory.allocator());
    loadBlock();
    probeDone = false;
    finished = false;
  }

  /** The next probe batch: from the probe input (written to disk when blocks follow), or read back. */
  private ColumnBatch nextProbe() {
    if (!blockMode) {
      return probe.next();
    }
    if (probeReader != null) {
      memory.checkCancelled();
      return probeReader.next();
    }
    ColumnBatch b = probe.next();
    if (b != null && !lastBlock) {
      blockProbe.write(b, probe.schema(), memory.allocator());
    }
    return b;
  }

  /** Blocks of the build side joined so far by a block nested-loop join (0 when it fit in memory). */
  public int blocksJoined() {
    return blocksJoined;
  }

  /**
   * Grace hash join: the build side (what was read of it, then the rest) and then the probe side
   * go to disk by the hash of their keys in the key types both sides share, so that rows that can
   * match land in the same partition; {@link #nextFromPartitions} then joins partition by partition.
   */
  private void partitionInputs(List<Column[]> readSoFar) {
    buildSpill = new HashPartitionedSpill(memory, build.schema(), spillLevel);
    for (Column[] cols : readSoFar) {
      ColumnBatch b = new ColumnBatch(cols, cols[0].size());
      buildSpill.add(b, RowHashes.of(buildKeyColumns(cols), b.rows(), new int[b.rows()]));
    }
    readSoFar.clear();
    memory.reserveTotal(0);
    ColumnBatch batch;
    while ((batch = build.next()) != null) {
      buildSpill.add(batch, RowHashes.of(buildKeyColumns(batch.columns()), batch.rows(), new int[batch.rows()]));
    }
    buildParts = new ArrayList<>(buildSpill.finish());
    probeSpill = new HashPartitionedSpill(memory, probe.schema(), spillLevel);
    while ((batch = probe.next()) != null) {
      probeSpill.add(batch, RowHashes.of(probeKeyColumns(batch), batch.rows(), new int[batch.rows()]));
    }
    probeParts = new ArrayList<>(probeSpill.finish());
  }

  /**
   * The joins of the partitions, one after another. Each pass builds on the smaller of its two
   * files (every join type runs with either build side) and partitions again, by the next bits of
   * the hash, when its build side still does not fit.
   */
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
      if (nextPartition >= probeParts.size()) {
        return null;
      }
      int p = nextPartition++;
      SpillFile buildFile = buildParts.set(p, null);
      SpillFile probeFile = probeParts.set(p, null);
      if (buildFile == null && probeFile == null) {
        continue;
      }
      SpillFile leftFile = buildLeft ? buildFile : probeFile;
      SpillFile rightFile = buildLeft ? probeFile : buildFile;
      long leftBytes = leftFile == null ? 0 : leftFile.bytes();
      long rightBytes = rightFile == null ? 0 : rightFile.bytes();
      boolean passBuildLeft = leftBytes < rightBytes || (leftBytes == rightBytes && buildLeft);
      String suffix = "/p" + spillLevel + "." + p;
      BatchOperator leftIn = buildLeft ? build : probe;
      BatchOperator rightIn = buildLeft ? probe : build;
      SpilledInput left = new SpilledInput(memory.child(suffix + ".left"), leftIn.schema(),
          leftFile == null ? List.of() : List.of(leftFile));
      SpilledInput right = new SpilledInput(memory.child(suffix + ".right"), rightIn.schema(),
          rightFile == null ? List.of() : List.of(rightFile));
      try {
        partitionPass = partitionPass(memory.child(suffix), left, right, joinType,
            buildLeft ? buildKeys : probeKeys, buildLeft ? probeKeys : buildKeys, passBuildLeft, spillLevel + 1);
      } catch (RuntimeException e) {
        left.close();
        right.close();
        throw e;
      }
    }
  }

  /** Whether this join can split its inputs by key hash and join them partition by partition. */
  protected boolean partitionable() {
    return false;
  }

  /** Heap bytes of the index {@link #indexBuildSide} builds over {@code rows} rows. */
  protected long indexBytes(int rows) {
    return 0;
  }

  /**
   * A join of the same type, keys and residual over one spilled partition of each input.
   *
   * @param level the spill level of the new join
   */
  protected JoinOperator partitionPass(OperatorMemory memory, BatchOperator left, BatchOperator right,
      JoinType joinType, int[] leftKeys, int[] rightKeys, boolean buildLeft, int level) {
    throw new UnsupportedOperationException(name() + " does not partition its inputs");
  }

  /**
   * Indexes the build side's columns (all of its {@link #buildRows} rows) for {@link #findPairs}.
   *
   * @return the heap bytes of the index, reserved against the operator's memory
   */
  protected abstract long indexBuildSide(Column[] buildColumns);

  /**
   * Offers every candidate pair of probe row and build row of a probe batch to {@code pairs}, probe
   * row by probe row; with {@code firstMatchEnough} one pair per probe row suffices.
   */
  protected abstract void findPairs(ColumnBatch batch, int n, Pairs pairs, boolean firstMatchEnough);

  /** Whether the join has one key and both sides hold it as longs ({@link SqlType.Physical#LONG}). */
  protected final boolean singleLongKey() {
    if (buildKeys.length != 1) {
      return false;
    }
    SqlType shared = keyTypes[0] != null ? keyTypes[0] : typeOf(build, buildKeys[0]);
    return shared.physical() == SqlType.Physical.LONG;
  }

  /** The probe batch's key columns in the key types shared with the build side. */
  protected final Column[] probeKeyColumns(ColumnBatch batch) {
    Column[] keys = new Column[probeKeys.length];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = batch.column(probeKeys[k]);
    }
    return inKeyTypes(keys);
  }

  /** The build side's key columns in the key types shared with the probe side. */
  protected final Column[] buildKeyColumns(Column[] buildColumns) {
    return inKeyTypes(keyColumns(buildColumns, buildKeys));
  }

  /** Key columns (either side's, in key order) cast, where needed, to the types both sides compare in. */
  private Column[] inKeyTypes(Column[] keys) {
    for (int k = 0; k < keys.length; k++) {
      if (keyTypes[k] != null) {
        keys[k] = dev.squall.engine.expr.Casts.cast(keys[k], keyTypes[k]);
      }
    }
    return keys;
  }

  /** Candidate pairs of one probe batch, flushed through the residual a chunk at a time. */
  protected final class Pairs {
    private final ColumnBatch batch;
    private final boolean[] probeMatched;
    // Sized to the probe batch at first (a runtime filter leaves many batches nearly empty), grown
    // up to a chunk when rows match several build rows.
    private int[] pi;
    private int[] bi;
    private int k;

    private Pairs(ColumnBatch batch, boolean[] probeMatched) {
      this.batch = batch;
      this.probeMatched = probeMatched;
      int capacity = Math.min(PAIR_CHUNK, Math.max(16, batch.rows()));
      this.pi = new int[capacity];
      this.bi = new int[capacity];
    }

    /** Adds probe row p with build row b. */
    public void add(int p, int b) {
      if (k == pi.length) {
        if (pi.length < PAIR_CHUNK) {
          int capacity = Math.min(PAIR_CHUNK, pi.length * 2);
          pi = Arrays.copyOf(pi, capacity);
          bi = Arrays.copyOf(bi, capacity);
        } else {
          flush(batch, pi, bi, k, probeMatched);
          k = 0;
        }
      }
      pi[k] = p;
      bi[k] = b;
      k++;
    }

    private void finish() {
      if (k > 0) {
        flush(batch, pi, bi, k, probeMatched);
        k = 0;
      }
    }
  }

  private static Column[] keyColumns(Column[] cols, int[] keys) {
    Column[] k = new Column[keys.length];
    for (int i = 0; i < keys.length; i++) {
      k[i] = cols[keys[i]];
    }
    return k;
  }

  protected static boolean anyNull(Column[] keys, int row) {
    for (Column k : keys) {
      if (k.isNull(row)) {
        return true;
      }
    }
    return false;
  }

  private void probeBatch(ColumnBatch batch, int n) {
    boolean[] probeMatched = new boolean[n];
    Pairs pairs = new Pairs(batch, probeMatched);
    findPairs(batch, n, pairs, probeSideFilter && residual == null);
    pairs.finish();
    long firstRow = probeRow;
    probeRow += n;
    if (probeSeen != null) {
      // Matches in earlier blocks count; only the last block's pass answers for the probe rows.
      for (int p = 0; p < n; p++) {
        if (probeMatched[p]) {
          probeSeen.set(Math.toIntExact(firstRow + p));
        } else if (probeSeen.get(Math.toIntExact(firstRow + p))) {
          probeMatched[p] = true;
        }
      }
      if (!lastBlock) {
        return;
      }
    }
    if (probeOuter || probeSideFilter) {
      boolean wantMatched = joinType == JoinType.SEMI;
      int[] rows = new int[n];
      int m = 0;
      for (int p = 0; p < n; p++) {
        if (probeSideFilter ? probeMatched[p] == wantMatched : !probeMatched[p]) {
          rows[m++] = p;
        }
      }
      if (m > 0) {
        int[] none = new int[m];
        Arrays.fill(none, -1);
        emit(batch, rows, none, m, !probeSideFilter);
      }
    }
  }

  private static SqlType typeOf(BatchOperator op, int column) {
    if (column < 0 || column >= op.schema().getFields().size()) {
      throw EngineException.badPlan("join key column " + column + " is outside its input's " + op.schema().getFields().size() + " columns");
    }
    return SqlType.fromArrow(op.schema().getFields().get(column).getType());
  }

  /**
   * The type two join keys are hashed and compared in: null when their representations already
   * agree; DOUBLE when either is floating; DECIMAL(38, larger scale) for decimals and integers of
   * different scales (exact, so no value is rounded into a false match); TIMESTAMP for a DATE
   * against a TIMESTAMP.
   */
  private static SqlType commonKeyType(SqlType a, SqlType b) {
    boolean aTime = a.kind() == dev.squall.proto.v1.DataType.Kind.DATE || a.kind() == dev.squall.proto.v1.DataType.Kind.TIMESTAMP;
    boolean bTime = b.kind() == dev.squall.proto.v1.DataType.Kind.DATE || b.kind() == dev.squall.proto.v1.DataType.Kind.TIMESTAMP;
    if (aTime && bTime && a.kind() != b.kind()) {
      return SqlType.TIMESTAMP;
    }
    if (a.physical() == b.physical() && (!a.isDecimal() || a.scale() == b.scale())) {
      return null;
    }
    if (a.isNumeric() && b.isNumeric()) {
      if (a.isFloating() || b.isFloating()) {
        return SqlType.DOUBLE;
      }
      return SqlType.decimal(38, Math.max(a.isDecimal() ? a.scale() : 0, b.isDecimal() ? b.scale() : 0));
    }
    throw EngineException.badPlan("join keys of types " + a + " and " + b + " cannot be compared");
  }

  private void flush(ColumnBatch batch, int[] pi, int[] bi, int k, boolean[] probeMatched) {
    // One probe batch of a join without keys meets every build row: stop between chunks of pairs.
    memory.checkCancelled();
    int[] keep = null;
    int kept = k;
    if (residual != null) {
      Batch pairs = pairBatch(batch, pi, bi, k);
      BoolColumn ok = (BoolColumn) residual.evaluate(pairs);
      keep = new int[k];
      kept = 0;
      for (int j = 0; j < k; j++) {
        if (ok.isTrue(j)) {
          keep[kept++] = j;
        }
      }
    }
    int[] p2 = new int[kept];
    int[] b2 = new int[kept];
    for (int j = 0; j < kept; j++) {
      int src = keep == null ? j : keep[j];
      p2[j] = pi[src];
      b2[j] = bi[src];
      probeMatched[p2[j]] = true;
      buildMatched[b2[j]] = true;
    }
    if (!semiOrAnti && kept > 0) {
      emit(batch, p2, b2, kept, true);
    }
  }

  /** The (left ++ right) columns of candidate pairs, gathered when the residual reads them. */
  private Batch pairBatch(ColumnBatch probeBatch, int[] pi, int[] bi, int k) {
    int[] p = Arrays.copyOf(pi, k);
    int[] b = Arrays.copyOf(bi, k);
    Column[] cache = new Column[leftWidth + buildColsWidthIfRight()];
    return new Batch() {
      @Override
      public int rows() {
        return k;
      }

      @Override
      public Column column(int index) {
        if (index < cache.length && cache[index] != null) {
          return cache[index];
        }
        boolean isLeft = index < leftWidth;
        int local = isLeft ? index : index - leftWidth;
        boolean fromBuild = isLeft == buildLeft;
        Column c = fromBuild ? buildCols[local].gather(b, k) : probeBatch.column(local).gather(p, k);
        if (index < cache.length) {
          cache[index] = c;
        }
        return c;
      }
    };
  }

  private int buildColsWidthIfRight() {
    return buildLeft ? probe.schema().getFields().size() : build.schema().getFields().size();
  }

  /**
   * Queues output rows: probe rows {@code pi} with build rows {@code bi} (-1 = NULLs), or, when
   * {@code withBuild} is false, the probe rows alone (probe-side SEMI/ANTI).
   */
  private void emit(ColumnBatch probeBatch, int[] pi, int[] bi, int k, boolean withBuild) {
    for (int start = 0; start < k; start += BATCH_ROWS) {
      int n = Math.min(BATCH_ROWS, k - start);
      int[] p = Arrays.copyOfRange(pi, start, start + n);
      int[] b = Arrays.copyOfRange(bi, start, start + n);
      int probeWidth = probe.schema().getFields().size();
      int buildWidth = build.schema().getFields().size();
      int probeOffset = buildLeft ? buildWidth : 0;
      int buildOffset = buildLeft ? 0 : probeWidth;
      int width = types.size();
      Column[] blockCols = buildCols; // the block's, though another block may follow
      // Columns are gathered when the consumer reads them (an aggregate above often reads few).
      pending.add(ColumnBatch.lazy(width, n, c -> {
        if (c >= probeOffset && c < probeOffset + probeWidth) {
          return probeBatch.column(c - probeOffset).gather(p, n);
        }
        if (withBuild && c >= buildOffset && c < buildOffset + buildWidth) {
          return blockCols[c - buildOffset].gather(b, n);
        }
        return Column.nulls(types.get(c), n);
      }));
    }
  }

  /** After the probe side: unmatched build rows (outer joins) or the build-side SEMI/ANTI answer. */
  private void emitBuildTail() {
    if (!buildOuter && !(semiOrAnti && buildLeft)) {
      return;
    }
    boolean wantMatched = joinType == JoinType.SEMI;
    int[] rows = new int[buildRows];
    int m = 0;
    for (int b = 0; b < buildRows; b++) {
      if (semiOrAnti ? buildMatched[b] == wantMatched : !buildMatched[b]) {
        rows[m++] = b;
      }
    }
    int probeWidth = probe.schema().getFields().size();
    int buildWidth = build.schema().getFields().size();
    int probeOffset = buildLeft ? buildWidth : 0;
    int buildOffset = buildLeft ? 0 : probeWidth;
    List<SqlType> probeTypes = new ArrayList<>();
    probe.schema().getFields().forEach(f -> probeTypes.add(SqlType.fromArrow(f.getType())));
    for (int start = 0; start < m; start += BATCH_ROWS) {
      int n = Math.min(BATCH_ROWS, m - start);
      int[] b = Arrays.copyOfRange(rows, start, start + n);
      Column[] out = new Column[types.size()];
      for (int c = 0; c < buildWidth; c++) {
        out[buildOffset + c] = buildCols[c].gather(b, n);
      }
      if (!semiOrAnti) {
        for (int c = 0; c < probeWidth; c++) {
          out[probeOffset + c] = Column.nulls(probeTypes.get(c), n);
        }
      }
      pending.add(new ColumnBatch(out, n));
    }
  }

  @Override
  protected void releaseState() {
    pending.clear();
    buildCols = null;
    buildMatched = null;
    blockLookahead = null;
    probeSeen = null;
    try {
      for (SpillFile.Reader r : new SpillFile.Reader[] {blockReader, probeReader}) {
        if (r != null) {
          r.close();
        }
      }
    } finally {
      blockReader = null;
      probeReader = null;
      for (SpillFile f : new SpillFile[] {blockBuild, blockProbe}) {
        if (f != null) {
          f.delete();
        }
      }
    }
    try {
      if (partitionPass != null) {
        partitionPass.close();
        partitionPass = null;
      }
    } finally {
      for (HashPartitionedSpill s : new HashPartitionedSpill[] {buildSpill, probeSpill}) {
        if (s != null) {
          s.delete();
        }
      }
    }
  }
}
