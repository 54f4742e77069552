package dev.squall.cli.bench;

/**
 * The 99 TPC-DS queries (103 statements) through the whole local serverless path beside DuckDB
 * over the same Parquet data files ({@link BenchmarkRunner}); a statement that fails on either side
 * is listed and left out of the geomean.
 *
 * <p>Not a test. Arguments: {@code scaleFactor [runs] [dataDir] [queries]}; see docs/benchmarks.md for the
 * command.
 */
public final class TpcdsBenchmark {
  private TpcdsBenchmark() {}

  public static void main(String[] args) throws Exception {
    BenchmarkRunner.run(BenchmarkWorkload.TPCDS, args);
  }
}
