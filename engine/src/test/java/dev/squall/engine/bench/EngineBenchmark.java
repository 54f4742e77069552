package dev.squall.engine.bench;

import static dev.squall.engine.testing.X.and;
import static dev.squall.engine.testing.X.date;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.str;

import dev.squall.engine.FragmentExecutor;
import dev.squall.engine.input.BatchSource;
import dev.squall.engine.input.BatchSources;
import dev.squall.engine.input.InputProvider;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.Agg;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.WindowRel;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.WindowCall;
import dev.squall.proto.v1.WindowFrame;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.io.FileIO;

/**
 * Prints rows per second of the engine beside DuckDB (1 thread, like one Squall task) on the same
 * TPC-H Parquet files on this machine. Not a test: run it with a classpath (see docs/benchmarks.md).
 *
 * <p>Usage: {@code EngineBenchmark [scaleFactor=0.1] [repetitions=3] [lineFilter]}. Each figure is
 * the best of the repetitions after untimed warm-up runs of each engine for a second
 * ({@code -Dsquall.bench.warmupSeconds}), the engine's and DuckDB's timed runs of a line taking
 * turns; rows/s counts the rows of the largest input.
 * With {@code lineFilter}, only the lines whose name contains it (ignoring case; alternatives
 * separated by {@code |}) are checked and timed, e.g. {@code "in memory"} or
 * {@code "lineitem (in memory)|q1 (in|decimal expressions (in"}, so that one line can be profiled
 * alone.
 *
 * <p>Every line is printed twice: aligned for reading, and as
 * {@code bench<TAB>name<TAB>engine rows/s<TAB>duckdb rows/s<TAB>ratio} for scripts (ratio = engine
 * rows/s over DuckDB rows/s). Before a line whose plan and SQL give the same rows is timed, the
 * engine's answer is compared with DuckDB's once and the run stops with an {@link AssertionError}
 * naming the difference when they differ, so that a figure never measures a wrong plan.
 */
public final class EngineBenchmark {
  private static TpchFixture fixture;
  /** Lower-cased substrings of which a line's name must contain one to run, or null for every line. */
  private static String[] lineFilter;

  public static void main(String[] args) throws Exception {
    double sf = args.length > 0 ? Double.parseDouble(args[0]) : 0.1;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    lineFilter = args.length > 2 ? args[2].toLowerCase(Locale.ROOT).split("\\|") : null;
    long t0 = System.nanoTime();
    fixture = TpchFixture.get(sf);
    long lineitemRows = fixture.table("lineitem").rows();
    System.out.printf("TPC-H SF %s generated in %.1f s: lineitem %d rows, orders %d rows%n", sf, (System.nanoTime() - t0) / 1e9,
        lineitemRows, fixture.table("orders").rows());
    Connection duck = DuckDbOracle.connection();
    try (Statement st = duck.createStatement()) {
      st.execute("SET threads TO 1");
      st.execute("CREATE OR REPLACE TABLE lineitem_mem AS SELECT * FROM " + fixture.duckdbSource("lineitem"));
    }
    System.out.printf("%-50s %14s %14s %8s%n", "benchmark", "engine rows/s", "duckdb rows/s", "ratio");

    // 1. Filter + project over lineitem (Parquet scan included on both sides).
    Rel li = Rel.scan(fixture, "lineitem", 0, "l_quantity", "l_extendedprice", "l_discount", "l_shipdate");
    Rel fp = li.filter(r -> and(r.col("l_shipdate").ge(date("1994-01-01")), r.col("l_discount").le(dec("0.07"))))
        .project(r -> m("rev", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))), "q", r.col("l_quantity")));
    // Both engines reduce the projected rows to their count and sum, so neither pays for
    // handing a result set over (DuckDB's JDBC rows, the engine's Arrow output edge).
    Rel fpSum = fp.aggregate(List.of(), List.of(Agg.countStar("n"), Agg.sum("rev", "r")), AggMode.SINGLE);
    checkedReport("filter+project lineitem (scan incl.)", lineitemRows, reps, fpSum, scanInputs(fpSum.op()));

    // 1b. The same over batches already in memory (operators only, no Parquet decoding).
    List<VectorSchemaRoot> cached = new ArrayList<>();
    BufferAllocator cacheAlloc = new RootAllocator();
    Rel liAll = Rel.scan(fixture, "lineitem", 0, "l_orderkey", "l_quantity", "l_extendedprice", "l_discount", "l_tax",
        "l_returnflag", "l_linestatus", "l_shipdate");
    try (FragmentExecutor.Execution ex = FragmentExecutor.execute(liAll.op(), scanInputs(liAll.op()), cacheAlloc, 0)) {
      while (ex.hasNext()) {
        try (VectorSchemaRoot batch = ex.next()) {
          cached.add(moveTo(batch, cacheAlloc));
        }
      }
    }
    // Repeat the batches until there are enough rows for the 1M-row sort.
    int base = cached.size();
    long cachedRows = lineitemRows;
    while (cachedRows < 1_000_000) {
      for (int i = 0; i < base; i++) {
        VectorSchemaRoot r = cached.get(i);
        cached.add(r.slice(0, r.getRowCount()));
        cachedRows += r.getRowCount();
      }
    }
    String memSql = "SELECT l_orderkey, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate FROM lineitem_mem";
    Rel mem = memRel(liAll, memSql);
    // As a planner would, hand the filter only the columns the query reads.
    int[] fpColumns = {1, 2, 3, 7};
    Rel fpSource = memRel(Rel.scan(fixture, "lineitem", 0, "l_quantity", "l_extendedprice", "l_discount", "l_shipdate"),
        "SELECT l_quantity, l_extendedprice, l_discount, l_shipdate FROM lineitem_mem");
    Rel fpMem = fpSource.filter(r -> and(r.col("l_shipdate").ge(date("1994-01-01")), r.col("l_discount").le(dec("0.07"))))
        .project(r -> m("rev", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))), "q", r.col("l_quantity")));
    List<VectorSchemaRoot> once = cached.subList(0, base);
    Rel fpMemSum = fpMem.aggregate(List.of(), List.of(Agg.countStar("n"), Agg.sum("rev", "r")), AggMode.SINGLE);
    checkedReport("filter+project lineitem (in memory)", lineitemRows, reps, fpMemSum, memInputs(once, fpColumns));

    // 2. TPC-H Q1.
    Rel q1 = q1(li.op().getScan().getInputIndex() == 0 ? Rel.scan(fixture, "lineitem", 0, "l_quantity", "l_extendedprice",
        "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate") : null);
    checkedReport("TPC-H Q1 (scan incl.)", lineitemRows, reps, q1, scanInputs(q1.op()));
    Rel q1Mem = q1(memRel(Rel.scan(fixture, "lineitem", 0, "l_quantity", "l_extendedprice", "l_discount", "l_tax",
        "l_returnflag", "l_linestatus", "l_shipdate"), "SELECT l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, "
        + "l_linestatus, l_shipdate FROM lineitem_mem"));
    checkedReport("TPC-H Q1 (in memory)", lineitemRows, reps, q1Mem, memInputs(once, 1, 2, 3, 4, 5, 6, 7));

    // 3. lineitem joined with orders.
    Rel join = Rel.scan(fixture, "lineitem", 0, "l_orderkey", "l_extendedprice")
        .join(Rel.scan(fixture, "orders", 1, "o_orderkey", "o_orderdate"), JoinType.INNER, List.of("l_orderkey"), List.of("o_orderkey"), null, false)
        .aggregate(List.of(), List.of(Agg.countStar("n"), Agg.max("o_orderdate", "d")), AggMode.SINGLE);
    checkedReport("lineitem JOIN orders (scan incl.)", lineitemRows, reps, join, scanInputs(join.op()));

    // 4. GROUP BY on string columns: a low-cardinality one (dictionary-encoded in the files) and
    // l_comment, nearly one group per row; the second is counted again so that both sides hand
    // back a single row.
    Rel byMode = Rel.scan(fixture, "lineitem", 0, "l_shipmode", "l_shipinstruct", "l_quantity", "l_extendedprice")
        .aggregate(List.of("l_shipmode", "l_shipinstruct"), List.of(Agg.countStar("n"), Agg.sum("l_quantity", "q"),
            Agg.sum("l_extendedprice", "p")), AggMode.SINGLE);
    checkedReport("group by l_shipmode, l_shipinstruct (scan incl.)", lineitemRows, reps, byMode, scanInputs(byMode.op()));
    Rel byComment = Rel.scan(fixture, "lineitem", 0, "l_comment")
        .aggregate(List.of("l_comment"), List.of(Agg.countStar("n")), AggMode.SINGLE)
        .aggregate(List.of(), List.of(Agg.countStar("groups"), Agg.sum("n", "total")), AggMode.SINGLE);
    checkedReport("group by l_comment (scan incl.)", lineitemRows, reps, byComment, scanInputs(byComment.op()));

    // 5. Decimal-heavy expressions: Q1's charge, a decimal division and a sum of each.
    Rel decScan = Rel.scan(fixture, "lineitem", 0, "l_quantity", "l_extendedprice", "l_discount", "l_tax");
    Rel dec = decimals(decScan);
    checkedReport("decimal expressions (scan incl.)", lineitemRows, reps, dec, scanInputs(dec.op()));
    Rel decMem = decimals(memRel(decScan, "SELECT l_quantity, l_extendedprice, l_discount, l_tax FROM lineitem_mem"));
    checkedReport("decimal expressions (in memory)", lineitemRows, reps, decMem, memInputs(once, 1, 2, 3, 4));

    // 6. Filters on low-cardinality strings (dictionary-encoded in the files), then LIKE on one of
    // them and on free text.
    // Each scan reads only the columns its query uses, as the planner's trimmed scans do.
    Rel inFilter = countAndSum(Rel.scan(fixture, "lineitem", 0, "l_shipmode", "l_returnflag", "l_extendedprice")
        .filter(r -> and(r.col("l_shipmode").in(str("MAIL"), str("SHIP")), r.col("l_returnflag").eq(str("R")))));
    checkedReport("string IN and = filter (scan incl.)", lineitemRows, reps, inFilter, scanInputs(inFilter.op()));
    Rel likeDict = countAndSum(Rel.scan(fixture, "lineitem", 0, "l_shipinstruct", "l_extendedprice")
        .filter(r -> r.col("l_shipinstruct").like("%IN PERSON")));
    checkedReport("LIKE on l_shipinstruct (scan incl.)", lineitemRows, reps, likeDict, scanInputs(likeDict.op()));
    Rel likeText = countAndSum(Rel.scan(fixture, "lineitem", 0, "l_comment", "l_extendedprice")
        .filter(r -> r.col("l_comment").like("%furious%")));
    checkedReport("LIKE on l_comment (scan incl.)", lineitemRows, reps, likeText, scanInputs(likeText.op()));
    // TPC-H Q13's form: NOT LIKE with two infixes.
    Rel likeSegments = countAndSum(Rel.scan(fixture, "lineitem", 0, "l_comment", "l_extendedprice")
        .filter(r -> r.col("l_comment").like("%carefully%deposits%").not()));
    checkedReport("NOT LIKE two infixes on l_comment (scan incl.)", lineitemRows, reps, likeSegments,
        scanInputs(likeSegments.op()));

    // 7. Joins on string keys: free-text columns (orders built, few matches) and the order key
    // as text (every lineitem row matches).
    Rel commentJoin = Rel.scan(fixture, "lineitem", 0, "l_comment", "l_extendedprice")
        .join(Rel.scan(fixture, "orders", 1, "o_comment", "o_orderdate"), JoinType.INNER, List.of("l_comment"), List.of("o_comment"),
            null, false)
        .aggregate(List.of(), List.of(Agg.countStar("n"), Agg.max("o_orderdate", "d")), AggMode.SINGLE);
    checkedReport("lineitem JOIN orders on comment (scan incl.)", lineitemRows, reps, commentJoin, scanInputs(commentJoin.op()));
    Rel lineKeys = Rel.scan(fixture, "lineitem", 0, "l_orderkey", "l_extendedprice")
        .project(r -> m("l_key", r.col("l_orderkey").cast(SqlType.VARCHAR), "l_extendedprice", r.col("l_extendedprice")));
    Rel orderKeys = Rel.scan(fixture, "orders", 1, "o_orderkey", "o_orderdate")
        .project(r -> m("o_key", r.col("o_orderkey").cast(SqlType.VARCHAR), "o_orderdate", r.col("o_orderdate")));
    Rel textKeyJoin = lineKeys.join(orderKeys, JoinType.INNER, List.of("l_key"), List.of("o_key"), null, false)
        .aggregate(List.of(), List.of(Agg.countStar("n"), Agg.max("o_orderdate", "d"), Agg.sum("l_extendedprice", "p")), AggMode.SINGLE);
    checkedReport("lineitem JOIN orders on key as text (scan incl.)", lineitemRows, reps, textKeyJoin, scanInputs(textKeyJoin.op()));

    // 8. Sort of (up to) 1M rows held in memory.
    int sortRows = 1_000_000;
    Rel sort = mem.limit(0, sortRows).sort(List.of(Key.asc("l_extendedprice"), Key.asc("l_orderkey")));
    try (Statement st = duck.createStatement()) {
      st.execute("CREATE OR REPLACE TABLE sort_input AS SELECT l_orderkey, l_quantity, l_extendedprice, l_discount, l_tax, "
          + "l_returnflag, l_linestatus, l_shipdate FROM lineitem_mem, range(" + (1_000_000 / lineitemRows + 1) + ") LIMIT " + sortRows);
    }
    report("sort " + sortRows + " rows (in memory)", sortRows, reps, sort.op(), memInputs(cached),
        "CREATE OR REPLACE TEMP TABLE sorted AS SELECT * FROM sort_input ORDER BY l_extendedprice, l_orderkey");

    // 9. Window functions: a running sum over a ROWS frame per order, then a rank per supplier
    // (two sorts of the whole input), reduced to one row on both sides.
    Rel windowInput = Rel.scan(fixture, "lineitem", 0, "l_orderkey", "l_linenumber", "l_suppkey", "l_shipdate", "l_extendedprice");
    WindowFrame lastThree = WindowRel.frame(WindowFrame.Unit.ROWS,
        WindowRel.bound(FrameBound.Kind.PRECEDING, X.lit(2)), WindowRel.bound(FrameBound.Kind.CURRENT_ROW, null));
    Rel running = WindowRel.window(windowInput, new WindowRel.Spec(List.of("l_orderkey"), List.of(Key.asc("l_linenumber"))),
        List.of(WindowRel.Call.of(WindowCall.Function.SUM, SqlType.decimal(38, 2), "SUM(l_extendedprice)").arg(4).frame(lastThree)),
        "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW");
    Rel ranked = WindowRel.window(running, new WindowRel.Spec(List.of("l_suppkey"), List.of(Key.asc("l_shipdate"))),
        List.of(WindowRel.Call.of(WindowCall.Function.RANK, SqlType.BIGINT, "RANK()")), "");
    Rel windows = ranked.aggregate(List.of(), List.of(Agg.countStar("n"), Agg.sum("w5", "s"), Agg.max("w6", "r")), AggMode.SINGLE);
    checkedReport("windows: running sum per order, rank per supplier (scan incl.)", lineitemRows, reps, windows,
        scanInputs(windows.op()));

    cached.forEach(VectorSchemaRoot::close); // slices included
    cacheAlloc.close();
  }

  private static Rel q1(Rel li) {
    return li.filter(r -> r.col("l_shipdate").le(date("1998-12-01").minusInterval(X.daysInterval(90))))
        .project(r -> m("l_returnflag", r.col("l_returnflag"), "l_linestatus", r.col("l_linestatus"),
            "l_quantity", r.col("l_quantity"), "l_extendedprice", r.col("l_extendedprice"),
            "disc_price", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))),
            "charge", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))).times(dec("1").plus(r.col("l_tax"))),
            "l_discount", r.col("l_discount")))
        .aggregate(List.of("l_returnflag", "l_linestatus"), List.of(Agg.sum("l_quantity", "sum_qty"),
            Agg.sum("l_extendedprice", "sum_base_price"), Agg.sum("disc_price", "sum_disc_price"), Agg.sum("charge", "sum_charge"),
            Agg.avg("l_quantity", "avg_qty"), Agg.avg("l_extendedprice", "avg_price"), Agg.avg("l_discount", "avg_disc"),
            Agg.countStar("count_order")), AggMode.SINGLE);
  }

  /** Q1's charge, a quotient of decimals, and a sum of each (DuckDB divides decimals in DOUBLE). */
  private static Rel decimals(Rel li) {
    return li.project(r -> m(
            "charge", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))).times(dec("1").plus(r.col("l_tax"))),
            "unit_price", r.col("l_extendedprice").div(r.col("l_quantity")),
            "tax_share", r.col("l_extendedprice").times(r.col("l_tax")).plus(r.col("l_extendedprice").times(r.col("l_discount")))))
        .aggregate(List.of(), List.of(Agg.sum("charge", "sum_charge"), Agg.sum("unit_price", "sum_unit_price"),
            Agg.sum("tax_share", "sum_tax_share")), AggMode.SINGLE);
  }

  private static Rel countAndSum(Rel filtered) {
    return filtered.aggregate(List.of(), List.of(Agg.countStar("n"), Agg.sum("l_extendedprice", "p")), AggMode.SINGLE);
  }

  private static Rel memRel(Rel scan, String sql) {
    Operator op = Operator.newBuilder().setOutputSchema(scan.op().getOutputSchema())
        .setShuffleRead(dev.squall.proto.v1.ShuffleRead.newBuilder().setInputIndex(0)).build();
    return new Rel(op, scan.names(), scan.types(), sql, false, 0);
  }

  private static VectorSchemaRoot moveTo(VectorSchemaRoot batch, BufferAllocator allocator) {
    List<org.apache.arrow.vector.FieldVector> moved = new ArrayList<>();
    for (org.apache.arrow.vector.FieldVector v : batch.getFieldVectors()) {
      org.apache.arrow.vector.util.TransferPair tp = v.getTransferPair(allocator);
      tp.transfer();
      moved.add((org.apache.arrow.vector.FieldVector) tp.getTo());
    }
    return new VectorSchemaRoot(batch.getSchema().getFields(), moved, batch.getRowCount());
  }

  private static Map<String, X> m(Object... kv) {
    Map<String, X> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put((String) kv[i], (X) kv[i + 1]);
    }
    return out;
  }

  private static InputProvider scanInputs(Operator op) {
    return TestInputs.forPlan(op, fixture);
  }

  /** Shuffle input 0 delivering slices of the cached batches (the cache keeps its own). */
  private static InputProvider memInputs(List<VectorSchemaRoot> cached) {
    return memInputs(cached, null);
  }

  /** As above, with only the given columns of each cached batch. */
  private static InputProvider memInputs(List<VectorSchemaRoot> cached, int... columns) {
    return new InputProvider() {
      @Override
      public ScanInput scanInput(int inputIndex) {
        throw new IllegalArgumentException("no scans");
      }

      @Override
      public FileIO fileIO() {
        return null;
      }

      @Override
      public BatchSource shuffleInput(int inputIndex, BufferAllocator allocator) {
        List<VectorSchemaRoot> copies = new ArrayList<>();
        for (VectorSchemaRoot r : cached) {
          VectorSchemaRoot slice = r.slice(0, r.getRowCount());
          if (columns == null) {
            copies.add(slice);
            continue;
          }
          List<org.apache.arrow.vector.FieldVector> kept = new ArrayList<>();
          for (int c = 0; c < slice.getFieldVectors().size(); c++) {
            final int col = c;
            if (java.util.Arrays.stream(columns).anyMatch(x -> x == col)) {
              kept.add(slice.getVector(c));
            } else {
              slice.getVector(c).close();
            }
          }
          copies.add(new VectorSchemaRoot(kept));
        }
        return BatchSources.of(copies);
      }
    };
  }

  private static boolean skipped(String name) {
    return lineFilter != null && java.util.Arrays.stream(lineFilter).noneMatch(name.toLowerCase(Locale.ROOT)::contains);
  }

  private static void report(String name, long rows, int reps, Operator plan, InputProvider inputs, String duckSql) throws Exception {
    if (skipped(name)) {
      return;
    }
    Body engineRun = () -> {
      try (BufferAllocator allocator = new RootAllocator()) {
        FragmentExecutor.run(plan, inputs, allocator, 0, b -> { });
      }
    };
    Body duckRun = () -> {
      try (Statement st = DuckDbOracle.connection().createStatement()) {
        if (duckSql.startsWith("CREATE")) {
          st.execute(duckSql);
        } else {
          try (ResultSet rs = st.executeQuery(duckSql)) {
            while (rs.next()) {
              rs.getObject(1);
            }
          }
        }
      }
    };
    double[] best = bestOfEach(reps, engineRun, duckRun);
    double engine = best[0];
    double duck = best[1];
    System.out.printf(Locale.ROOT, "%-50s %14.0f %14.0f %8.2f%n", name, rows / engine, rows / duck, duck / engine);
    System.out.printf(Locale.ROOT, "bench\t%s\t%.0f\t%.0f\t%.3f%n", name, rows / engine, rows / duck, duck / engine);
  }

  /**
   * As {@link #report}, after checking once that the engine's plan gives DuckDB's rows for the
   * relation's SQL (as a set of rows; decimals exact, doubles to 1e-9 relative).
   *
   * @throws AssertionError naming the first difference when they differ
   */
  private static void checkedReport(String name, long rows, int reps, Rel rel, InputProvider inputs) throws Exception {
    if (skipped(name)) {
      return;
    }
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), rel.sql());
    String difference = Rows.difference(expected, Rows.run(rel.op(), inputs, 0), false);
    if (difference != null) {
      throw new AssertionError(name + ": the engine's answer differs from DuckDB's: " + difference);
    }
    report(name, rows, reps, rel.op(), inputs, rel.sql());
  }

  interface Body {
    void run() throws Exception;
  }

  /** How long each engine runs a line untimed before its timed runs, so that the JIT has compiled its loops. */
  private static final double WARM_UP_SECONDS = Double.parseDouble(System.getProperty("squall.bench.warmupSeconds", "1"));

  /**
   * The best seconds of {@code reps} runs of each body after warm-up runs of each (for at least
   * {@link #WARM_UP_SECONDS}, and once at least), the two taking turns, so that a slow spell of the
   * machine falls on both engines rather than on one.
   */
  private static double[] bestOfEach(int reps, Body engine, Body duck) throws Exception {
    for (Body body : new Body[] {engine, duck}) {
      long until = System.nanoTime() + (long) (WARM_UP_SECONDS * 1e9);
      do {
        body.run();
      } while (System.nanoTime() < until);
    }
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE};
    for (int i = 0; i < reps; i++) {
      best[0] = Math.min(best[0], seconds(engine));
      best[1] = Math.min(best[1], seconds(duck));
    }
    return best;
  }

  private static double seconds(Body body) throws Exception {
    long t = System.nanoTime();
    body.run();
    return (System.nanoTime() - t) / 1e9;
  }
}
