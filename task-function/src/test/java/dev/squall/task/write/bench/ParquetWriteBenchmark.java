package dev.squall.task.write.bench;

import dev.squall.task.write.DataFileNames;
import dev.squall.task.write.DataFileTaskWriter;
import dev.squall.task.write.WriteTarget;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;

/**
 * The engine-side line "write rows to Parquet" of the engine benchmark: one task's data-file
 * writer ({@link DataFileTaskWriter}, one thread, unpartitioned, Iceberg's default zstd) writing
 * {@code rows} lineitem-like rows ({@link WriterBenchmark#batches}) beside DuckDB with
 * {@code SET threads TO 1} copying the same rows from an in-memory table to one local Parquet file
 * ({@code COPY t TO '...' (FORMAT parquet, COMPRESSION zstd)}). It lives here, not beside
 * {@code EngineBenchmark}, because the writer is part of the task function, which the engine module
 * does not depend on.
 *
 * <p>Squall writes through Iceberg's InMemoryFileIO (conversion and Parquet encoding, no disk);
 * DuckDB writes to a file under the temporary directory (mostly the page cache). DuckDB's table is
 * loaded, untimed, from the file Squall wrote, after that file was checked against figures
 * computed from the Arrow batches themselves (row count, sums of every column, string lengths): a
 * difference stops the run with an {@link AssertionError}.
 *
 * <p>Prints an aligned line and {@code bench<TAB>name<TAB>engine rows/s<TAB>duckdb rows/s<TAB>ratio}
 * (ratio = engine rows/s over DuckDB rows/s), as {@code EngineBenchmark} does. Each figure is the
 * best of {@code reps} timed runs after one warm-up run.
 *
 * <p>Arguments: {@code [rows] [reps]}, default {@code 1000000 3}. Not a unit test: run it as a main
 * (docs/benchmarks.md).
 */
public final class ParquetWriteBenchmark {
  private ParquetWriteBenchmark() {}

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path dir = Files.createTempDirectory("squall-parquet-write-bench-");
    try (BufferAllocator allocator = new RootAllocator(); FileIO memory = new InMemoryFileIO();
        Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
      List<VectorSchemaRoot> batches = WriterBenchmark.batches(allocator, rows);
      List<String> written = new ArrayList<>();
      double engine = best(reps, run -> written.add(squallWrite(memory, batches, run)));

      // Check the file Squall wrote, then load DuckDB's copy of the rows from it (both untimed).
      Path squallFile = dir.resolve("squall.parquet");
      try (InputStream in = memory.newInputFile(written.get(written.size() - 1)).newStream()) {
        Files.copy(in, squallFile, StandardCopyOption.REPLACE_EXISTING);
      }
      String expected = expectedFigures(batches);
      String actual = duckFigures(st, "read_parquet('" + squallFile + "')");
      if (!expected.equals(actual)) {
        throw new AssertionError("the Parquet file Squall wrote does not hold the rows given:\n expected " + expected
            + "\n file     " + actual);
      }
      st.execute("SET threads TO 1");
      st.execute("CREATE TABLE t AS SELECT * FROM read_parquet('" + squallFile + "')");
      Path duckFile = dir.resolve("duckdb.parquet");
      double duckdb = best(reps, run -> st.execute("COPY t TO '" + duckFile + "' (FORMAT parquet, COMPRESSION zstd)"));
      if (!expected.equals(duckFigures(st, "read_parquet('" + duckFile + "')"))) {
        throw new AssertionError("DuckDB's Parquet file does not hold the rows given");
      }

      String name = "write " + rows + " rows to Parquet";
      System.out.printf(Locale.ROOT, "%-50s %14s %14s %8s%n", "benchmark", "engine rows/s", "duckdb rows/s", "ratio");
      System.out.printf(Locale.ROOT, "%-50s %14.0f %14.0f %8.2f%n", name, rows / engine, rows / duckdb, duckdb / engine);
      System.out.printf(Locale.ROOT, "bench\t%s\t%.0f\t%.0f\t%.3f%n", name, rows / engine, rows / duckdb, duckdb / engine);
      System.out.printf(Locale.ROOT, "  files: Squall %.1f MB, DuckDB %.1f MB%n", Files.size(squallFile) / 1e6,
          Files.size(duckFile) / 1e6);
      batches.forEach(VectorSchemaRoot::close);
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * The engine side under test: one task's data-file writer over all batches; returns the location
   * of the one data file it wrote.
   */
  private static String squallWrite(FileIO io, List<VectorSchemaRoot> batches, int run) {
    // The codec every table created since Iceberg 1.4 records (a table without the property is gzip).
    WriteTarget target = new WriteTarget("mem", WriterBenchmark.SCHEMA, PartitionSpec.unpartitioned(), FileFormat.PARQUET,
        Map.of(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT_SINCE_1_4_0));
    DataFileTaskWriter writer = new DataFileTaskWriter(io, target, new DataFileNames("bench", 1, 0, run + 2, FileFormat.PARQUET));
    for (VectorSchemaRoot b : batches) {
      writer.write(b);
    }
    List<DataFile> files = writer.complete();
    if (files.size() != 1) {
      throw new AssertionError("expected one data file, got " + files.size());
    }
    return files.get(0).location();
  }

  /** Row count, sums of the integer, decimal and date columns, and total string lengths, from the Arrow batches. */
  private static String expectedFigures(List<VectorSchemaRoot> batches) {
    long count = 0;
    long keys = 0;
    long quantities = 0;
    BigDecimal prices = BigDecimal.ZERO;
    BigDecimal discounts = BigDecimal.ZERO;
    long days = 0;
    long flagChars = 0;
    long commentChars = 0;
    for (VectorSchemaRoot b : batches) {
      for (int i = 0; i < b.getRowCount(); i++) {
        count++;
        keys += ((BigIntVector) b.getVector(0)).get(i);
        quantities += ((IntVector) b.getVector(1)).get(i);
        prices = prices.add(((DecimalVector) b.getVector(2)).getObject(i));
        discounts = discounts.add(((DecimalVector) b.getVector(3)).getObject(i));
        days += ((DateDayVector) b.getVector(4)).get(i);
        flagChars += ((VarCharVector) b.getVector(6)).get(i).length;
        commentChars += ((VarCharVector) b.getVector(7)).get(i).length;
      }
    }
    return figures(count, keys, quantities, prices, discounts, days, flagChars, commentChars);
  }

  /** The same figures computed by DuckDB over {@code source} (ASCII strings: length = bytes). */
  private static String duckFigures(Statement st, String source) throws Exception {
    try (ResultSet rs = st.executeQuery("SELECT count(*), sum(orderkey), sum(quantity), sum(extendedprice), sum(discount), "
        + "sum(shipdate - DATE '1970-01-01'), sum(length(returnflag)), sum(length(comment)) FROM " + source)) {
      rs.next();
      return figures(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getBigDecimal(4), rs.getBigDecimal(5), rs.getLong(6),
          rs.getLong(7), rs.getLong(8));
    }
  }

  private static String figures(long count, long keys, long quantities, BigDecimal prices, BigDecimal discounts, long days,
      long flagChars, long commentChars) {
    return String.format(Locale.ROOT, "rows %d, keys %d, quantities %d, prices %s, discounts %s, days %d, chars %d + %d", count,
        keys, quantities, prices.stripTrailingZeros().toPlainString(), discounts.stripTrailingZeros().toPlainString(), days,
        flagChars, commentChars);
  }

  interface Run {
    void run(int i) throws Exception;
  }

  /** Best wall time in seconds of {@code reps} runs after one warm-up run. */
  private static double best(int reps, Run body) throws Exception {
    body.run(-1);
    double best = Double.MAX_VALUE;
    for (int i = 0; i < reps; i++) {
      long t = System.nanoTime();
      body.run(i);
      best = Math.min(best, (System.nanoTime() - t) / 1e9);
    }
    return best;
  }
}
