package dev.squall.cli.bench;

import dev.squall.cli.local.TpchDialect;
import dev.squall.local.tpch.TpchQueries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;

/**
 * The DuckDB side of {@link TpchBenchmark}, run as a process of its own so that neither engine
 * takes CPU or heap from the other: creates the views in the file given (one {@code create view}
 * statement per line, over the Parquet data files of the tables' current snapshots), then runs the
 * 22 TPC-H queries (DuckDB's dialect, {@link TpchDialect}), the best of {@code runs} timed runs after
 * one warm-up run (with {@code runs} = 0, one run and no warm-up), in an in-memory DuckDB with its
 * default threads (all cores).
 *
 * <p>Prints one line per query to standard output: {@code duckdb<TAB>Q<n><TAB>best ms<TAB>rows},
 * or {@code duckdb<TAB>Q<n><TAB>failed<TAB>message} when the query fails.
 *
 * <p>Arguments: {@code viewsFile runs}.
 */
public final class DuckDbTpchRun {
  private DuckDbTpchRun() {}

  public static void main(String[] args) throws Exception {
    Path views = Path.of(args[0]);
    int runs = Integer.parseInt(args[1]);
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
      for (String view : Files.readAllLines(views)) {
        if (!view.isBlank()) {
          st.execute(view);
        }
      }
      for (int q = 1; q <= 22; q++) {
        String sql = TpchDialect.forDuckDb(TpchQueries.text(q));
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
          System.out.printf(Locale.ROOT, "duckdb\tQ%d\t%.3f\t%d%n", q, best, rows);
        } catch (Exception e) {
          System.out.printf(Locale.ROOT, "duckdb\tQ%d\tfailed\t%s%n", q, String.valueOf(e.getMessage()).replaceAll("\\s+", " "));
        }
      }
    }
  }
}
