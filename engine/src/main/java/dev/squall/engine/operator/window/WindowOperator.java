package dev.squall.engine.operator.window;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.operator.BatchOperator;
import dev.squall.engine.operator.sort.RowOrder;
import dev.squall.engine.operator.sort.SortOperator;
import dev.squall.engine.spill.SpillFile;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Window;
import dev.squall.proto.v1.WindowCall;
import dev.squall.proto.v1.WindowFrame;
import java.math.RoundingMode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Window functions over the task's rows (plan-proto {@link Window}). Buffers its whole input
 * (reserved against the task budget, so that too much input fails with "task memory exceeded"
 * naming this operator), sorts it by (partition keys ascending, order keys) with the engine's row
 * order ({@link RowOrder}), finds partitions and peer groups ({@link PartitionLayout}), and computes
 * each call over every partition: rank functions ({@link RankFunctions}), value functions
 * ({@link ValueFunctions}) and aggregates over frames ({@link FrameAggregates}), frames being row
 * ranges ({@link FrameBounds}). Emits the input columns, then one column per call, in sorted order.
 */
public final class WindowOperator extends BatchOperator {
  /** Rows of the external sort's output taken at a time when the window spills. */
  private static final int PIECE_ROWS = 1024;
  private final BatchOperator input;
  private final Window window;
  private final int inputWidth;
  private Column[] output;
  private boolean started;
  /** The input past the spill threshold, computed as an external sort streams it. */
  private Streamed stream;
  /** The whole result, which output batches select slices of. */
  private ColumnBatch result;
  private int rows;
  private int emitted;

  /**
   * @param schema the input's columns then one per call
   * @throws EngineException a bad plan when the schema or a key does not fit the input
   */
  public WindowOperator(OperatorMemory memory, Schema schema, BatchOperator input, Window window) {
    super(memory, schema, List.of(input));
    this.input = input;
    this.window = window;
    this.inputWidth = input.schema().getFields().size();
    if (types.size() != inputWidth + window.getCallsCount()) {
      throw EngineException.badPlan("window output has " + types.size() + " columns, not the input's "
          + inputWidth + " and " + window.getCallsCount() + " calls");
    }
    List<Integer> columns = new ArrayList<>(window.getPartitionKeysList());
    window.getOrderKeysList().forEach(k -> columns.add(k.getColumn()));
    window.getCallsList().forEach(c -> columns.addAll(c.getArgsList()));
    for (int c : columns) {
      if (c < 0 || c >= inputWidth) {
        throw EngineException.badPlan("window column " + c + " is outside the input's " + inputWidth + " columns");
      }
    }
  }

  @Override
  protected ColumnBatch produce() {
    if (!started) {
      started = true;
      List<ColumnBatch> buffer = readInput();
      if (stream == null) {
        compute(buffer);
        result = new ColumnBatch(output, rows);
      }
    }
    if (stream != null) {
      ColumnBatch b = stream.next();
      if (b == null) {
        releaseState();
        memory.reserveTotal(0);
      }
      return b;
    }
    if (emitted >= rows) {
      return null;
    }
    int n = Math.min(BATCH_ROWS, rows - emitted);
    // A selection over the result: the columns are gathered only when read downstream.
    ColumnBatch out = result.slice(emitted, n);
    emitted += n;
    return out;
  }

  /**
   * Buffers the input; when the operator may spill and the buffer (and the copy sorting makes)
   * would take the task past its spill threshold, hands what it read and the rest of the input to
   * an external sort and streams its output partition by partition ({@link Streamed}), answering
   * null.
   */
  private List<ColumnBatch> readInput() {
    List<ColumnBatch> buffer = new ArrayList<>();
    boolean spill = memory.canSpill();
    long bytes = 0;
    ColumnBatch batch;
    while ((batch = input.next()) != null) {
      Column[] cols = batch.columns();
      buffer.add(new ColumnBatch(cols, batch.rows()));
      rows += batch.rows();
      long b = bytes(cols);
      bytes += b;
      if (!spill) {
        memory.reserve(b);
      } else if (!memory.tryReserveTotal(2 * bytes)) {
        memory.reserveTotal(0);
        rows = 0;
        stream = new Streamed(buffer);
        return null;
      }
    }
    return buffer;
  }

  private void compute(List<ColumnBatch> buffer) {
    Column[] sorted = sortedInput(buffer);
    output = evaluate(sorted, rows, 0, null);
  }

  /**
   * The input columns then one column per call over {@code n} rows sorted by (partition keys,
   * order keys), whole partitions. Reserves {@code held} bytes besides its own state.
   *
   * @param layoutOut when not null, receives the rows' partition layout
   */
  private Column[] evaluate(Column[] sorted, int n, long held, PartitionLayout[] layoutOut) {
    Column[] out = new Column[types.size()];
    System.arraycopy(sorted, 0, out, 0, inputWidth);
    if (n == 0) {
      return out;
    }
    PartitionLayout layout = new PartitionLayout(sorted, n, window.getPartitionKeysList(), window.getOrderKeysList());
    if (layoutOut != null) {
      layoutOut[0] = layout;
    }
    long state = held + bytes(sorted) + PartitionLayout.bytesPerRow() * n;
    memory.reserveTotal(state);
    for (int c = 0; c < window.getCallsCount(); c++) {
      WindowCall call = window.getCalls(c);
      FrameBounds frames = call.hasFrame() ? new FrameBounds(call.getFrame(), layout, sorted, window.getOrderKeysList()) : null;
      memory.reserveTotal(state + (frames == null ? 0 : FrameBounds.bytesPerRow() * n));
      SqlType type = types.get(inputWidth + c);
      Column arg = call.getArgsCount() == 0 ? null : sorted[call.getArgs(0)];
      Column result = switch (call.getFunction()) {
        case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE -> RankFunctions.compute(call, layout, arg, type);
        case LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE -> ValueFunctions.compute(call, layout, frames, arg, type);
        case SUM, SUM0, AVG, COUNT, COUNT_STAR, MIN, MAX -> FrameAggregates.compute(call, layout, frames, arg, type);
        default -> throw EngineException.badPlan("window function " + call.getFunction());
      };
      out[inputWidth + c] = result;
      state += result.bytes();
      memory.reserveTotal(state);
    }
    memory.reserveTotal(held + bytes(out));
    return out;
  }

  /** Partition keys (ascending) then order keys: the order the operator sorts its input in. */
  private List<SortKey> sortKeys() {
    List<SortKey> keys = new ArrayList<>(partitionKeys());
    keys.addAll(window.getOrderKeysList());
    return keys;
  }

  private List<SortKey> partitionKeys() {
    List<SortKey> keys = new ArrayList<>();
    for (int k : window.getPartitionKeysList()) {
      keys.add(SortKey.newBuilder().setColumn(k).build());
    }
    return keys;
  }

  /** The whole input, sorted by partition keys then order keys ({@link #rows} rows). */
  private Column[] sortedInput(List<ColumnBatch> buffer) {
    Column[] all = new Column[inputWidth];
    for (int c = 0; c < inputWidth; c++) {
      List<Column> parts = new ArrayList<>();
      for (ColumnBatch b : buffer) {
        parts.add(b.column(c));
      }
      all[c] = parts.size() == 1 ? parts.get(0) : Column.concat(types.get(c), parts);
    }
    buffer.clear();
    if (rows == 0 || inputWidth == 0) {
      return all;
    }
    memory.reserveTotal(2 * bytes(all));
    int[] order = new RowOrder(all, sortKeys()).sortedRows(rows);
    Column[] sorted = new Column[inputWidth];
    for (int c = 0; c < inputWidth; c++) {
      sorted[c] = all[c].gather(order, rows);
    }
    memory.reserveTotal(bytes(sorted));
    return sorted;
  }

  /** Rows {@code [from, to)} of columns. */
  private static Column[] rows(Column[] cols, int from, int to) {
    int n = to - from;
    int[] idx = new int[n];
    for (int i = 0; i < n; i++) {
      idx[i] = from + i;
    }
    Column[] out = new Column[cols.length];
    for (int c = 0; c < cols.length; c++) {
      out[c] = cols[c].gather(idx, n);
    }
    return out;
  }

  private static long bytes(Column[] cols) {
    long b = 0;
    for (Column c : cols) {
      b += c == null ? 0 : c.bytes();
    }
    return b;
  }

  @Override
  protected void releaseState() {
    output = null;
    result = null;
    if (stream != null) {
      Streamed st = stream;
      stream = null;
      st.close();
    }
  }

  /** How a call reads the rows around a row, when it can be computed over a partition a segment at a time. */
  private enum Fix { NONE, ROW_NUMBER, RANK, DENSE_RANK, RUNNING, NTILE, PERCENT_RANK, CUME_DIST, WHOLE }

  /**
   * @param back rows before a row its value reads; ahead rows after it
   * @param peers whether it reads peer groups (so segments start at a peer group)
   * @param fix how a value computed over a segment becomes the partition's
   */
  private record Reach(long back, long ahead, boolean peers, Fix fix) { }

  /**
   * How the calls of a window read a partition computed a segment at a time.
   *
   * @param calls each call's reach (null: it cannot be computed so)
   * @param back rows before a segment that its calls read; ahead rows after it
   * @param peers whether a segment starts at a peer group
   * @param blocker the first call that cannot be computed so, or null
   */
  private record Segments(Reach[] calls, long back, long ahead, boolean peers, String blocker) {
    static Segments of(Window window, java.util.function.Function<WindowCall, Reach> reachOf) {
      Reach[] calls = new Reach[window.getCallsCount()];
      long back = 0;
      long ahead = 0;
      boolean peers = false;
      String blocker = null;
      for (int c = 0; c < calls.length; c++) {
        calls[c] = reachOf.apply(window.getCalls(c));
        if (calls[c] == null) {
          blocker = blocker == null ? window.getCalls(c).getFunction().name() : blocker;
          continue;
        }
        back = Math.max(back, calls[c].back());
        ahead = Math.max(ahead, calls[c].ahead());
        peers |= calls[c].peers();
      }
      return new Segments(calls, back, ahead, peers, blocker);
    }
  }

  /**
   * How {@code call} reads a partition whose rows were spooled to a spill file, so that its row count
   * and the values of calls over the whole partition are known before its first row is computed.
   */
  private static Reach spooledReach(WindowCall call) {
    switch (call.getFunction()) {
      case NTILE:
        return new Reach(0, 0, false, Fix.NTILE);
      case PERCENT_RANK:
        return new Reach(0, 0, true, Fix.PERCENT_RANK);
      case CUME_DIST:
        return new Reach(0, 0, true, Fix.CUME_DIST);
      case SUM, SUM0, COUNT, COUNT_STAR, MIN, MAX, FIRST_VALUE, LAST_VALUE: {
        boolean whole = call.hasFrame() && call.getFrame().getStart().getKind() == FrameBound.Kind.UNBOUNDED_PRECEDING
            && call.getFrame().getEnd().getKind() == FrameBound.Kind.UNBOUNDED_FOLLOWING;
        return whole ? new Reach(0, 0, false, Fix.WHOLE) : reach(call);
      }
      default:
        return reach(call);
    }
  }

  /** How {@code call} reads its partition, or null when it needs the partition whole. */
  private static Reach reach(WindowCall call) {
    switch (call.getFunction()) {
      case ROW_NUMBER:
        return new Reach(0, 0, false, Fix.ROW_NUMBER);
      case RANK:
        return new Reach(0, 0, true, Fix.RANK);
      case DENSE_RANK:
        return new Reach(0, 0, true, Fix.DENSE_RANK);
      case LAG:
        return new Reach(Math.max(0, call.getOffset()), 0, false, Fix.NONE);
      case LEAD:
        return new Reach(0, Math.max(0, call.getOffset()), false, Fix.NONE);
      case FIRST_VALUE, LAST_VALUE, NTH_VALUE, SUM, SUM0, AVG, COUNT, COUNT_STAR, MIN, MAX: {
        if (!call.hasFrame()) {
          return null;
        }
        WindowFrame f = call.getFrame();
        FrameBound s = f.getStart();
        FrameBound e = f.getEnd();
        if (f.getUnit() == WindowFrame.Unit.ROWS && bounded(s) && bounded(e)) {
          return new Reach(Math.max(rows(s, FrameBound.Kind.PRECEDING), rows(e, FrameBound.Kind.PRECEDING)),
              Math.max(rows(s, FrameBound.Kind.FOLLOWING), rows(e, FrameBound.Kind.FOLLOWING)), false, Fix.NONE);
        }
        boolean running = s.getKind() == FrameBound.Kind.UNBOUNDED_PRECEDING && e.getKind() == FrameBound.Kind.CURRENT_ROW
            && call.getFunction() != WindowCall.Function.AVG && call.getFunction() != WindowCall.Function.FIRST_VALUE
            && call.getFunction() != WindowCall.Function.LAST_VALUE && call.getFunction() != WindowCall.Function.NTH_VALUE;
        return running ? new Reach(0, 0, f.getUnit() == WindowFrame.Unit.RANGE, Fix.RUNNING) : null;
      }
      default:
        return null;
    }
  }

  private static boolean bounded(FrameBound b) {
    return b.getKind() == FrameBound.Kind.CURRENT_ROW || b.getKind() == FrameBound.Kind.PRECEDING
        || b.getKind() == FrameBound.Kind.FOLLOWING;
  }

  private static long rows(FrameBound b, FrameBound.Kind kind) {
    return b.getKind() == kind ? FrameBounds.rowCount(b) : 0;
  }

  /** Yields the rows of the batches read before the operator chose to spill, then the rest of its input. */
  private static final class Replay extends BatchOperator {
    private final BatchOperator rest;
    private final ArrayDeque<ColumnBatch> held;

    Replay(OperatorMemory memory, BatchOperator rest, List<ColumnBatch> held) {
      super(memory, rest.schema(), List.of());
      this.rest = rest;
      this.held = new ArrayDeque<>(held);
    }

    @Override
    protected ColumnBatch produce() {
      ColumnBatch b = held.poll();
      return b != null ? b : rest.next();
    }

    @Override
    protected void releaseState() {
      held.clear();
    }
  }

  /**
   * The window over an input past the spill threshold: an external sort ({@link SortOperator}, which
   * spills sorted runs and merges them) orders the rows by (partition keys, order keys), and the
   * calls are computed over whole partitions as they come out of the merge, holding one partition
   * (and the rows of the batch that ends it) at a time. A partition that alone passes the threshold
   * is computed a segment at a time when every call allows it ({@link #reach}): a segment keeps the
   * rows before it that its calls look back at and holds back the rows whose frames reach past it,
   * and running values (ROW_NUMBER, RANK, DENSE_RANK, running SUM, COUNT, MIN, MAX) carry over from
   * one segment to the next. When a call needs to know the partition whole (NTILE, PERCENT_RANK,
   * CUME_DIST, an aggregate or FIRST_VALUE/LAST_VALUE over the whole partition), the partition is
   * first written to a spill file while its row count and whole-partition values are taken, then
   * read back and computed a segment at a time ({@link #spooledReach}). Only calls that need more
   * (a frame reaching to the partition's end from each row, a running AVG or NTH_VALUE) fail the
   * operator with INSUFFICIENT_RESOURCES.
   */
  private final class Streamed {
    private final SortOperator sorter;
    private final List<SortKey> partitionKeys = partitionKeys();
    private final ArrayDeque<ColumnBatch> queue = new ArrayDeque<>();
    /** How segments of a partition read as it streams. */
    private final Segments streaming = Segments.of(window, WindowOperator::reach);
    /** How segments of a partition read back from its spill file read. */
    private final Segments spooled = Segments.of(window, WindowOperator::spooledReach);
    private long queuedBytes;
    private Segment segment;
    /** The partition being read back from its spill file, computed before the rows after it. */
    private ReadBack readBack;
    private boolean done;
    private Column[] sortedCols;
    private int sortedRows;
    private int sortedOffset;

    Streamed(List<ColumnBatch> buffered) {
      Replay rest = new Replay(memory.child("/input"), input, buffered);
      sorter = new SortOperator(memory.child("/sort"), rest, sortKeys(), -1, 0);
    }

    ColumnBatch next() {
      while (queue.isEmpty()) {
        queuedBytes = 0;
        if (readBack != null) {
          if (!readBack.step()) {
            readBack = null;
          }
          continue;
        }
        if (done) {
          return null;
        }
        advance();
      }
      return queue.poll();
    }

    /** Takes the next sorted batch: computes the partitions it ends, keeps the one it leaves open. */
    private void advance() {
      if (sortedCols == null || sortedOffset >= sortedRows) {
        sortedCols = null;
        ColumnBatch next = sorter.next();
        if (next != null) {
          sortedCols = next.columns();
          sortedRows = next.rows();
          sortedOffset = 0;
        }
      }
      if (sortedCols == null) {
        done = true;
        if (segment != null) {
          segment.process(true);
          segment = null;
        }
        memory.reserveTotal(queuedBytes);
        return;
      }
      // A piece of the sorted batch at a time, so that its copy and its output stay small.
      int n = Math.min(PIECE_ROWS, sortedRows - sortedOffset);
      Column[] cols = n == sortedRows ? sortedCols : rows(sortedCols, sortedOffset, sortedOffset + n);
      sortedOffset += n;
      int first = -1;
      int last = -1;
      if (segment != null && RowOrder.compareAcross(partitionKeys, segment.lastCols, segment.lastRow, cols, 0) != 0) {
        first = 0;
        last = 0;
      }
      RowOrder partitions = new RowOrder(cols, partitionKeys);
      for (int i = 1; i < n; i++) {
        if (partitions.compare(i - 1, i) != 0) {
          first = first < 0 ? i : first;
          last = i;
        }
      }
      if (first < 0) {
        if (segment == null) {
          segment = new Segment(streaming, null);
        }
        segment.add(cols, n);
      } else {
        int from = 0;
        if (segment != null) {
          if (first > 0) {
            segment.add(rows(cols, 0, first), first);
          }
          segment.process(true);
          if (readBack != null) {
            // The spooled partition is read back first; the rows after it are taken again then.
            sortedOffset -= n - first;
            segment = null;
            return;
          }
          from = first;
        }
        if (last > from) {
          // Whole partitions within the batch.
          enqueue(evaluate(rows(cols, from, last), last - from, queuedBytes, null), last - from);
        }
        segment = new Segment(streaming, null);
        segment.add(last == 0 ? cols : rows(cols, last, n), n - last);
      }
      // Computing the held rows takes about four times their bytes (their copy, layout, frames, values).
      // A partition of a few pieces is held whole; only a larger one is computed a segment at a time.
      if (segment.rows > 2 * PIECE_ROWS && !memory.tryReserveTotal(4 * segment.bytes + queuedBytes)) {
        if (streaming.blocker() == null) {
          segment.process(false);
        } else if (spooled.blocker() == null) {
          segment.spool();
        } else if (4 * segment.bytes > memory.taskBudget()) {
          throw tooLarge(segment, spooled.blocker() + " needs the whole partition");
        }
        memory.reserveTotal(segment.bytes + queuedBytes);
      }
    }

    private void enqueue(Column[] cols, int n) {
      if (n == 0) {
        return;
      }
      ColumnBatch whole = new ColumnBatch(cols, n);
      queuedBytes += bytes(cols);
      // Small batches: each one in flight counts against the budget besides the queued rows.
      for (int s = 0; s < n; s += PIECE_ROWS) {
        queue.add(whole.slice(s, Math.min(PIECE_ROWS, n - s)));
      }
    }

    void close() {
      queue.clear();
      sortedCols = null;
      if (segment != null && segment.spool != null) {
        segment.spool.file.delete();
      }
      segment = null;
      if (readBack != null) {
        readBack.close();
        readBack = null;
      }
      sorter.close();
    }

    private EngineException tooLarge(Segment s, String why) {
      return new EngineException(ErrorCode.INSUFFICIENT_RESOURCES, String.format(
          "task memory exceeded: operator %s holds %d rows (%d bytes) of one window partition, more than its share of"
              + " the task budget of %d bytes, and %s; raise the task memory (SQUALL_TASK_MEMORY_MB, squall local"
              + " --task-memory-mb)", name(), s.rows, s.bytes, memory.taskBudget(), why));
    }

    /**
     * A partition past the spill threshold whose calls need it whole: its rows go to a spill file
     * in order, while its row count and the values of its whole-partition calls are taken.
     */
    private final class Spool {
      private final SpillFile file = memory.spill().newFile(name());
      private long rows;
      /** Per call over the whole partition, its value over the rows so far (one row). */
      private final Column[] whole = new Column[window.getCallsCount()];

      void add(Column[] cols, int n) {
        file.write(new ColumnBatch(cols, n), input.schema(), memory.allocator());
        rows += n;
        PartitionLayout layout = null;
        for (int c = 0; c < whole.length; c++) {
          if (spooled.calls()[c] == null || spooled.calls()[c].fix() != Fix.WHOLE) {
            continue;
          }
          WindowCall call = window.getCalls(c);
          layout = layout != null ? layout
              : new PartitionLayout(cols, n, window.getPartitionKeysList(), window.getOrderKeysList());
          FrameBounds frames = new FrameBounds(call.getFrame(), layout, cols, window.getOrderKeysList());
          Column arg = call.getArgsCount() == 0 ? null : cols[call.getArgs(0)];
          SqlType type = types.get(inputWidth + c);
          WindowCall.Function f = call.getFunction();
          boolean picks = f == WindowCall.Function.FIRST_VALUE || f == WindowCall.Function.LAST_VALUE;
          // Over this piece alone: its first row holds the piece's value.
          Column piece = picks ? ValueFunctions.compute(call, layout, frames, arg, type)
              : FrameAggregates.compute(call, layout, frames, arg, type);
          if (f == WindowCall.Function.FIRST_VALUE && whole[c] != null) {
            continue;
          }
          Column next = Column.empty(type, 1);
          if (picks) {
            next.appendFrom(piece, 0);
          } else {
            combine(f, whole[c], piece, 0, next);
          }
          whole[c] = next;
        }
      }
    }

    /** Reads a spooled partition back and computes it a segment at a time. */
    private final class ReadBack {
      private final Spool spool;
      private final SpillFile.Reader reader;
      private final Segment segment;

      ReadBack(Spool spool) {
        this.spool = spool;
        spool.file.finish();
        reader = spool.file.open(memory.allocator());
        segment = new Segment(spooled, spool);
      }

      /** Computes the next batch of the file's rows that it can; false once the partition is done. */
      boolean step() {
        ColumnBatch b = reader.next();
        if (b == null) {
          segment.process(true);
          close();
          return false;
        }
        segment.add(b.columns(), b.rows());
        if (segment.rows > 2 * PIECE_ROWS) {
          segment.process(false);
        }
        memory.reserveTotal(segment.bytes + queuedBytes);
        return true;
      }

      void close() {
        reader.close();
        spool.file.delete();
      }
    }

    /**
     * The rows held of the current partition: rows {@code [h, h + rows)} of it (positions from its
     * first row), of which those from {@code u} on are not yet emitted.
     */
    private final class Segment {
      private final Segments plan;
      /** The partition read back from its spill file, whole; null while it streams. */
      private final Spool known;
      private final List<Column[]> parts = new ArrayList<>();
      private int rows;
      private long bytes;
      private Column[] lastCols;
      private int lastRow;
      private long h;
      private long u;
      /** Per DENSE_RANK call, the peer groups before row h. */
      private final long[] denseBefore;
      /** Per running aggregate, its value over the rows before h (null at the partition start). */
      private final Column[] carry;
      /** Where the partition's rows go once it spools (null while they are held). */
      private Spool spool;

      Segment(Segments plan, Spool known) {
        this.plan = plan;
        this.known = known;
        denseBefore = new long[plan.calls().length];
        carry = new Column[plan.calls().length];
      }

      void add(Column[] cols, int n) {
        if (n == 0) {
          return;
        }
        lastCols = cols;
        lastRow = n - 1;
        if (spool != null) {
          spool.add(cols, n);
          return;
        }
        parts.add(cols);
        rows += n;
        bytes += bytes(cols);
      }

      /** Writes the held rows, and the partition's rows from now on, to a spill file ({@link Spool}). */
      void spool() {
        spool = new Spool();
        for (Column[] p : parts) {
          spool.add(p, p.length == 0 ? 0 : p[0].size());
        }
        parts.clear();
        rows = 0;
        bytes = 0;
      }

      /**
       * Computes the held rows and emits those whose values they decide: all of them at the
       * partition's end; otherwise those whose frames end within them, keeping the rows later ones
       * look back at. A spooling partition at its end is read back instead ({@link ReadBack}).
       */
      void process(boolean atEnd) {
        if (spool != null) {
          readBack = new ReadBack(spool);
          spool = null;
          return;
        }
        if (rows == 0) {
          return;
        }
        Column[] chunk = new Column[inputWidth];
        for (int c = 0; c < inputWidth; c++) {
          List<Column> cs = new ArrayList<>();
          for (Column[] p : parts) {
            cs.add(p[c]);
          }
          chunk[c] = cs.size() == 1 ? cs.get(0) : Column.concat(types.get(c), cs);
        }
        int m = rows;
        PartitionLayout[] layout = new PartitionLayout[1];
        Column[] out = evaluate(chunk, m, queuedBytes, layout);
        long e = h + m;
        long cut = e;
        if (!atEnd) {
          cut = e - plan.ahead();
          if (plan.peers()) {
            cut = Math.min(cut, h + layout[0].peerStart[m - 1]);
          }
          if (cut <= u) {
            // One peer group (or frame) so far: hold on; past the budget the memory reservation fails.
            parts.clear();
            parts.add(chunk);
            return;
          }
        }
        int from = (int) (u - h);
        int to = (int) (cut - h);
        Column[] emit = new Column[types.size()];
        Column[] kept = from == 0 && to == m ? chunk : rows(chunk, from, to);
        System.arraycopy(kept, 0, emit, 0, inputWidth);
        for (int c = 0; c < plan.calls().length; c++) {
          emit[inputWidth + c] = corrected(c, out[inputWidth + c], from, to, chunk, layout[0]);
        }
        enqueue(emit, to - from);
        if (atEnd) {
          return;
        }
        long h2 = Math.max(h, cut - plan.back());
        if (plan.peers() && h2 < e) {
          h2 = h + layout[0].peerStart[(int) (h2 - h)];
        }
        if (h2 > h) {
          int r = (int) (h2 - 1 - h);
          for (int c = 0; c < plan.calls().length; c++) {
            Column v = out[inputWidth + c];
            if (plan.calls()[c].fix() == Fix.DENSE_RANK) {
              denseBefore[c] += ((LongColumn) v).value(r);
            } else if (plan.calls()[c].fix() == Fix.RUNNING) {
              Column next = Column.empty(v.type(), 1);
              combine(window.getCalls(c).getFunction(), carry[c], v, r, next);
              carry[c] = next;
            }
          }
        }
        parts.clear();
        int keepFrom = (int) (h2 - h);
        rows = m - keepFrom;
        bytes = 0;
        if (rows > 0) {
          Column[] rest = rows(chunk, keepFrom, m);
          parts.add(rest);
          bytes = bytes(rest);
          lastCols = rest;
          lastRow = rows - 1;
        }
        h = h2;
        u = cut;
      }

      /**
       * Rows {@code [from, to)} of a call's values over the held rows ({@code chunk}, laid out as
       * {@code layout}), made the partition's.
       */
      private Column corrected(int c, Column v, int from, int to, Column[] chunk, PartitionLayout layout) {
        int n = to - from;
        Reach reach = plan.calls()[c];
        switch (reach == null ? Fix.NONE : reach.fix()) {
          case ROW_NUMBER, RANK, DENSE_RANK -> {
            long add = reach.fix() == Fix.DENSE_RANK ? denseBefore[c] : h;
            long[] values = new long[n];
            for (int i = 0; i < n; i++) {
              values[i] = ((LongColumn) v).value(from + i) + add;
            }
            return new LongColumn(v.type(), values, null, n);
          }
          case RUNNING -> {
            Column out = Column.empty(v.type(), n);
            for (int i = 0; i < n; i++) {
              combine(window.getCalls(c).getFunction(), carry[c], v, from + i, out);
            }
            return out;
          }
          case NTILE -> {
            WindowCall call = window.getCalls(c);
            Column buckets = call.getArgsCount() == 0 ? null : chunk[call.getArgs(0)];
            long[] values = new long[n];
            boolean[] nulls = buckets != null && buckets.mayHaveNulls() ? new boolean[n] : null;
            for (int i = 0; i < n; i++) {
              long index = h + from + i;
              if (buckets == null) {
                values[i] = RankFunctions.ntile(index, known.rows, call.getOffset());
              } else if (buckets.isNull(from + i)) {
                nulls[i] = true;
              } else {
                values[i] = RankFunctions.ntile(index, known.rows, ((LongColumn) buckets).value(from + i));
              }
            }
            return new LongColumn(v.type(), values, nulls, n);
          }
          case PERCENT_RANK, CUME_DIST -> {
            // Segments start at a peer group and hold back the last one, so the peer groups of the
            // emitted rows are whole within the chunk.
            double[] values = new double[n];
            long size = known.rows;
            for (int i = 0; i < n; i++) {
              values[i] = reach.fix() == Fix.CUME_DIST ? (double) (h + layout.peerEnd[from + i]) / size
                  : size == 1 ? 0.0 : (double) (h + layout.peerStart[from + i]) / (size - 1);
            }
            return new DoubleColumn(v.type(), values, null, n);
          }
          case WHOLE -> {
            Column out = Column.empty(v.type(), n);
            for (int i = 0; i < n; i++) {
              out.appendFrom(known.whole[c], 0);
            }
            return out;
          }
          default -> {
            return from == 0 && to == v.size() ? v : rows(new Column[] {v}, from, to)[0];
          }
        }
      }
    }
  }

  /**
   * Appends to {@code out} a running aggregate's value: {@code carry}'s (over the rows before a
   * segment; null or NULL for none) combined with {@code v}'s row {@code i} (over the segment).
   */
  private static void combine(WindowCall.Function function, Column carry, Column v, int i, Column out) {
    if (carry == null || carry.isNull(0)) {
      out.appendFrom(v, i);
      return;
    }
    if (v.isNull(i)) {
      out.appendFrom(carry, 0);
      return;
    }
    switch (function) {
      case MIN, MAX -> {
        int c = carry.compareValues(0, v, i);
        boolean keepCarry = function == WindowCall.Function.MIN ? c <= 0 : c >= 0;
        out.appendFrom(keepCarry ? carry : v, keepCarry ? 0 : i);
      }
      default -> {
        SqlType t = out.type();
        switch (t.physical()) {
          case LONG -> {
            try {
              ((LongColumn) out).append(Math.addExact(((LongColumn) carry).value(0), ((LongColumn) v).value(i)));
            } catch (ArithmeticException e) {
              throw EngineException.user("Window SUM overflows " + t);
            }
          }
          case DECIMAL -> ((DecimalColumn) out).appendUnscaled(((DecimalColumn) carry).decimal(0)
              .add(((DecimalColumn) v).decimal(i)).setScale(t.scale(), RoundingMode.UNNECESSARY).unscaledValue());
          case DOUBLE -> ((DoubleColumn) out).append(((DoubleColumn) carry).value(0) + ((DoubleColumn) v).value(i));
          default -> throw EngineException.badPlan("window running " + function + " of type " + t);
        }
      }
    }
  }
}
