package dev.squall.cli.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;

/**
 * The DuckDB side of {@link BenchmarkRunner}, run as a process of its own so that neither engine
 * takes CPU or heap from the other: creates the views in the file given (one {@code create view}
 * statement per line, over the Parquet data files of the tables' current snapshots), then answers
 * query names read from standard input, one a line, until its end: each query (DuckDB's dialect,
 * {@link BenchmarkWorkload#duckDbSql}) runs {@code runs} timed runs after one warm-up run (with
 * {@code runs} = 0, one run and no warm-up), in an in-memory DuckDB with its default threads (all
 * cores). Reading names one at a time lets the benchmark run each query here right before running
 * it in Squall, so that a slower or faster spell of the machine falls on both.
 *
 * <p>Prints one line per query to standard output, flushed at once: {@code
 * duckdb<TAB>name<TAB>best ms<TAB>rows}, or {@code duckdb<TAB>name<TAB>failed<TAB>message} when
 * the query fails or is unknown.
 *
 * <p>Arguments: {@code viewsFile runs [workload]} (workload {@code tpch}, the default, or {@code
 * tpcds}).
 */
public final class DuckDbRun {
  private DuckDbRun() {}

  public static void main(String[] args) throws Exception {
    Path views = Path.of(args[0]);
    int runs = Integer.parseInt(args[1]);
    BenchmarkWorkload workload = BenchmarkWorkload.byId(args.length > 2 ? args[2] : "tpch");
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
      for (String view : Files.readAllLines(views)) {
        if (!view.isBlank()) {
          st.execute(view);
        }
      }
      for (String setting : workload.duckDbSettings()) {
        st.execute(setting);
      }
      BufferedReader names = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String q;
      while ((q = names.readLine()) != null) {
        if (!q.isBlank()) {
          System.out.println(run(st, workload, q.trim(), runs));
          System.out.flush();
        }
      }
    }
  }

  /** One query's result line: the best of {@code runs} timed runs after one warm-up, or the failure. */
  private static String run(Statement st, BenchmarkWorkload workload, String q, int runs) {
    try {
      String sql = workload.duckDbSql(q);
      double best = Double.MAX_VALUE;
      long rows = 0;
      for (int r = 0; r <= runs; r++) {
        long t = System.nanoTime();
        rows = 0;
        try (ResultSet rs = st.executeQuery(sql)) {
          while (rs.next()) {
            rows++;
          }
        }
        if (r > 0 || runs == 0) {
          best = Math.min(best, (System.nanoTime() - t) / 1e6);
        }
      }
      return String.format(Locale.ROOT, "duckdb\t%s\t%.3f\t%d", q, best, rows);
    } catch (Exception e) {
      return String.format(Locale.ROOT, "duckdb\t%s\tfailed\t%s", q, String.valueOf(e.getMessage()).replaceAll("\\s+", " "));
    }
  }
}
