package dev.squall.cli.bench;

/**
 * The 22 TPC-H queries through the whole local serverless path beside DuckDB over the same
 * Parquet data files ({@link BenchmarkRunner}).
 *
 * <p>Not a test. Arguments: {@code scaleFactor [runs] [dataDir] [queries]}; see docs/benchmarks.md for the
 * command.
 */
public final class TpchBenchmark {
  private TpchBenchmark() {}

  public static void main(String[] args) throws Exception {
    BenchmarkRunner.run(BenchmarkWorkload.TPCH, args);
  }
}
