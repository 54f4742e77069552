package dev.squall.local.tpch;

import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.s3.EmbeddedS3;
import io.trino.tpch.TpchTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Times a TPC-H load into a fresh local stack (embedded S3 on a temporary directory, SQLite JDBC
 * catalog) beside the time the generator alone takes to produce the same rows.
 *
 * <p>Run: {@code java -cp <test classpath> dev.squall.local.tpch.TpchLoadBenchmark 0.1 [threads]}.
 * Prints one line per phase in seconds, rows per second and the bytes of Parquet written.
 */
public final class TpchLoadBenchmark {
  public static void main(String[] args) throws Exception {
    double sf = args.length > 0 ? Double.parseDouble(args[0]) : 0.1;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
    Path dir = Files.createTempDirectory("squall-tpch-bench-");
    long t0 = System.nanoTime();
    try (EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), 0, List.of());
        LocalCatalog local = LocalCatalog.open(s3, dir, "squall-warehouse")) {
      long t1 = System.nanoTime();
      TpchLoader.LoadReport report = new TpchLoader(local.catalog()).withThreads(threads)
          .withProgressBar(Boolean.parseBoolean(System.getProperty("progress", "false"))).load(sf);
      long t2 = System.nanoTime();
      long rows = report.rowsWritten().values().stream().mapToLong(Long::longValue).sum();
      long bytes;
      try (Stream<Path> files = Files.walk(dir.resolve("s3"))) {
        bytes = files.filter(p -> p.toString().endsWith(".parquet")).mapToLong(p -> p.toFile().length()).sum();
      }
      long g0 = System.nanoTime();
      long generated = 0;
      for (TpchTable<?> t : TpchTable.getTables()) {
        generated += TpchLoader.expectedRowCount(t, sf);
      }
      long g1 = System.nanoTime();
      System.out.printf("TPC-H SF %s, %d writer threads, %d cores%n", TpchLoader.scaleFactorText(sf), threads,
          Runtime.getRuntime().availableProcessors());
      System.out.printf("stack start (S3 + catalog): %.2f s%n", (t1 - t0) / 1e9);
      System.out.printf("load into Iceberg:          %.2f s  (%d rows, %.0f rows/s, %d data files, %.1f MB Parquet)%n",
          (t2 - t1) / 1e9, rows, rows / ((t2 - t1) / 1e9),
          report.dataFilesWritten().values().stream().mapToInt(Integer::intValue).sum(), bytes / 1e6);
      System.out.printf("generator alone, 1 thread:  %.2f s  (%d rows, %.0f rows/s)%n",
          (g1 - g0) / 1e9, generated, generated / ((g1 - g0) / 1e9));
      System.out.println("rows per table: " + report.rowsWritten());
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
