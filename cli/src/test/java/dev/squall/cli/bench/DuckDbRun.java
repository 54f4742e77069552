package dev.squall.cli.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * The DuckDB side of {@link BenchmarkRunner}, run as a process of its own so that neither engine
 * takes CPU or heap from the other: creates the views in the file given (one {@code create view}
 * statement per line, over the Parquet data files of the tables' current snapshots), then runs the
 * workload's queries (DuckDB's dialect, {@link BenchmarkWorkload#duckDbSql}), the best of {@code runs} timed runs after
 * one warm-up run (with {@code runs} = 0, one run and no warm-up), in an in-memory DuckDB with its
 * default threads (all cores).
 *
 * <p>Prints one line per query to standard output: {@code duckdb<TAB>name<TAB>best ms<TAB>rows},
 * or {@code duckdb<TAB>name<TAB>failed<TAB>message} when the query fails.
 *
 * <p>Arguments: {@code viewsFile runs [workload] [queries]} (workload {@code tpch}, the default, or
 * {@code tpcds}; queries a comma-separated list of query names, every query unless given).
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
      List<String> queries = args.length > 3 ? List.of(args[3].split(",")) : workload.queryNames();
      for (String q : queries) {
        String sql = workload.duckDbSql(q);
        try {
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
          System.out.printf(Locale.ROOT, "duckdb\t%s\t%.3f\t%d%n", q, best, rows);
        } catch (Exception e) {
          System.out.printf(Locale.ROOT, "duckdb\t%s\tfailed\t%s%n", q, String.valueOf(e.getMessage()).replaceAll("\\s+", " "));
        }
      }
    }
  }
}
