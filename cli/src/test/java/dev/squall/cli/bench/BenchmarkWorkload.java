package dev.squall.cli.bench;

import dev.squall.cli.local.LocalDeployment;
import dev.squall.cli.local.TpchDialect;
import dev.squall.cli.local.TpchDuckDbViews;
import dev.squall.local.tpcds.TpcdsLoader;
import dev.squall.local.tpcds.TpcdsQueries;
import dev.squall.local.tpch.TpchQueries;
import java.util.ArrayList;
import java.util.List;

/**
 * A query workload the benchmarks run through the local stack beside DuckDB: which data to load,
 * the queries by name, and how DuckDB is set up to read the same data files with the same
 * semantics.
 *
 * @param name the benchmark's name in output, e.g. {@code TPC-H}
 * @param id the name the DuckDB child process is given ({@link #byId})
 * @param schema the namespace the queries run in (the {@code default_schema} property)
 * @param queryNames the queries in order, e.g. {@code Q1} or {@code q14a}
 * @param duckDbSettings statements DuckDB runs before the queries
 */
public record BenchmarkWorkload(String name, String id, String schema, List<String> queryNames, List<String> duckDbSettings) {
  /** The 22 TPC-H queries. */
  public static final BenchmarkWorkload TPCH = new BenchmarkWorkload("TPC-H", "tpch", "tpch", tpchNames(), List.of());
  /**
   * The 99 TPC-DS queries (103 statements); DuckDB divides integers as integers, as Trino and
   * Squall do.
   */
  public static final BenchmarkWorkload TPCDS = new BenchmarkWorkload("TPC-DS", "tpcds", TpcdsLoader.NAMESPACE,
      TpcdsQueries.names(), List.of("set integer_division = true"));

  /**
   * The workload of an id.
   *
   * @throws IllegalArgumentException for an unknown id
   */
  public static BenchmarkWorkload byId(String id) {
    return switch (id) {
      case "tpch" -> TPCH;
      case "tpcds" -> TPCDS;
      default -> throw new IllegalArgumentException("no workload " + id + " (tpch or tpcds)");
    };
  }

  private static List<String> tpchNames() {
    List<String> names = new ArrayList<>();
    for (int q = 1; q <= 22; q++) {
      names.add("Q" + q);
    }
    return names;
  }

  /** The SQL text of a query, as Squall runs it. */
  public String sql(String queryName) {
    return id.equals("tpch") ? TpchQueries.text(Integer.parseInt(queryName.substring(1))) : TpcdsQueries.text(queryName);
  }

  /** The SQL text of a query as DuckDB runs it. */
  public String duckDbSql(String queryName) {
    return TpchDialect.forDuckDb(sql(queryName));
  }

  /** Loads the data at the scale factor (nothing happens when it is there). */
  public void load(LocalDeployment stack, double scaleFactor) {
    if (id.equals("tpch")) {
      stack.loadTpch(scaleFactor, false, 100_000);
    } else {
      stack.loadTpcds(scaleFactor, false, 100_000);
    }
  }

  /** The DuckDB {@code create view} statements over the loaded tables' data files. */
  public List<String> duckDbViews(LocalDeployment stack) throws Exception {
    return id.equals("tpch") ? TpchDuckDbViews.statements(stack)
        : TpchDuckDbViews.statements(stack, TpcdsLoader.tpcdsTables().stream().map(TpcdsLoader::identifier).toList());
  }
}
