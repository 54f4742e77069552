package dev.squall.task.write.bench;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.task.write.CommitMessages;
import dev.squall.task.write.DataFileNames;
import dev.squall.task.write.DataFileTaskWriter;
import dev.squall.task.write.LocalParquetWrite;
import dev.squall.task.write.WriteTarget;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;

/**
 * Writer-task throughput beside DuckDB. First the figure to hold against DuckDB: the engine's column
 * batches written to one local Parquet file by {@link LocalParquetWrite} (the writer task's path:
 * checks, column-wise encoding, footer, Iceberg metrics), timed in turns with DuckDB's
 * {@code COPY t TO 'x.parquet' (FORMAT parquet, COMPRESSION zstd)} at {@code threads = 1} over the same
 * rows (loaded untimed from Squall's file), so both see the same load on a shared machine; printed
 * also as {@code bench<TAB>name<TAB>Squall rows/s<TAB>DuckDB rows/s<TAB>ratio} from the medians.
 * Then {@link DataFileTaskWriter} on Arrow batches (one thread, as in one task: conversion to
 * columns and Parquet encoding) into Iceberg's InMemoryFileIO, S3FileIO on the embedded S3 (S3Proxy in
 * this JVM, on disk), and the same partitioned by {@code month(shipdate)}; and DuckDB's COPY with 1
 * thread and all cores. Squall writes zstd, the codec Iceberg sets on new tables.
 *
 * <p>Data: lineitem-like rows (BIGINT key, INTEGER, two DECIMAL(12,2), DATE over 7 years, DOUBLE,
 * two VARCHAR) in Arrow batches of 65,536 rows, built before timing. MB = 10^6 bytes of Arrow
 * buffers. Each figure is the median of {@code reps} timed runs after one warm-up run.
 *
 * <p>Arguments: {@code [rows] [reps]}, default {@code 2000000 3}. Not a unit test: run it as a main
 * (docs/writes.md).
 */
public final class WriterBenchmark {
  private static final String BUCKET = "squall-bench";
  /** The lineitem-like columns of the batches {@link #batches} makes. */
  static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "orderkey", Types.LongType.get()),
      Types.NestedField.optional(2, "quantity", Types.IntegerType.get()),
      Types.NestedField.optional(3, "extendedprice", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(4, "discount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(5, "shipdate", Types.DateType.get()),
      Types.NestedField.optional(6, "tax", Types.DoubleType.get()),
      Types.NestedField.optional(7, "returnflag", Types.StringType.get()),
      Types.NestedField.optional(8, "comment", Types.StringType.get()));
  private static final int BATCH = 65_536;
  /** Tables Iceberg creates get zstd (its codec default for new tables since 1.4); DuckDB writes zstd too. */
  private static final Map<String, String> PROPERTIES = Map.of("write.parquet.compression-codec", "zstd");

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path dir = Files.createTempDirectory("squall-writer-bench-");
    try (BufferAllocator allocator = new RootAllocator();
        EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), 0, List.of(BUCKET));
        LocalCatalog local = LocalCatalog.open(s3, dir, BUCKET);
        FileIO s3io = local.newFileIO();
        FileIO memory = new InMemoryFileIO()) {
      List<VectorSchemaRoot> batches = batches(allocator, rows);
      long bytes = batches.stream().mapToLong(b -> b.getFieldVectors().stream()
          .mapToLong(FieldVector::getBufferSize).sum()).sum();
      System.out.printf("rows %,d in %d batches, %.1f MB of Arrow buffers; %d CPUs, load average %.1f%n",
          rows, batches.size(), bytes / 1e6, Runtime.getRuntime().availableProcessors(),
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());

      PartitionSpec byMonth = PartitionSpec.builderFor(SCHEMA).month("shipdate").build();
      String location = "s3://" + BUCKET + "/warehouse/bench/lineitem";
      List<String> lastFiles = new ArrayList<>();
      // The engine's own batches, converted once before timing (what operators will hand the writer).
      List<Column[]> columns = batches.stream().map(ArrowColumns::read).toList();
      Path squallFile = dir.resolve("squall.parquet");
      Path duckFile = dir.resolve("duck.parquet");
      try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
        LocalParquetWrite.writeNanos(squallFile, SCHEMA, columns, PROPERTIES);
        st.execute("CREATE TABLE t AS SELECT * FROM read_parquet('" + squallFile + "')");
        st.execute("SET threads = 1");
        // Squall and DuckDB runs alternate, so that both see the same load on a shared machine.
        double[][] both = timePair(reps,
            () -> LocalParquetWrite.writeNanos(squallFile, SCHEMA, columns, PROPERTIES),
            () -> st.execute("COPY t TO '" + duckFile + "' (FORMAT parquet, COMPRESSION zstd)"));
        report("Squall writer, engine columns -> local Parquet file", rows, bytes, both[0]);
        report("DuckDB COPY to local Parquet (zstd), 1 thread, alternating", rows, bytes, both[1]);
        System.out.printf("  Squall file %.1f MB, DuckDB file %.1f MB%n", Files.size(squallFile) / 1e6,
            Files.size(duckFile) / 1e6);
        double squallRate = rows / median(both[0]) * 1e3;
        double duckRate = rows / median(both[1]) * 1e3;
        System.out.printf("bench\twrite parquet %d rows\t%.0f\t%.0f\t%.2f%n", rows, squallRate, duckRate,
            squallRate / duckRate);
      }
      report("Squall writer -> InMemoryFileIO, unpartitioned", rows, bytes,
          time(reps, run -> write(memory, "mem", PartitionSpec.unpartitioned(), batches, run, null)));
      report("Squall writer -> S3FileIO (embedded S3), unpartitioned", rows, bytes,
          time(reps, run -> write(s3io, location, PartitionSpec.unpartitioned(), batches, run, lastFiles)));
      List<String> unpartitionedFiles = List.copyOf(lastFiles);
      List<String> partitioned = new ArrayList<>();
      report("Squall writer -> S3FileIO (embedded S3), month(shipdate)", rows, bytes,
          time(reps, run -> write(s3io, location + "_m", byMonth, batches, run, partitioned)));

      try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
        String files = unpartitionedFiles.stream().map(f -> "'" + local.localPathOf(f) + "'")
            .collect(Collectors.joining(", "));
        st.execute("CREATE TABLE t AS SELECT * FROM read_parquet([" + files + "])");
        Path out = dir.resolve("duck.parquet");
        for (int threads : new int[] {1, Runtime.getRuntime().availableProcessors()}) {
          st.execute("SET threads = " + threads);
          report("DuckDB COPY to local Parquet (zstd), " + threads + " thread(s)", rows, bytes, time(reps, run -> {
            st.execute("COPY t TO '" + out + "' (FORMAT parquet, COMPRESSION zstd)");
          }));
        }
        System.out.printf("  DuckDB file %.1f MB; load average at the end %.1f%n", Files.size(out) / 1e6,
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      }
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  interface Run {
    void run(int i) throws Exception;
  }

  private static double[] time(int reps, Run body) throws Exception {
    body.run(-1);
    double[] ms = new double[reps];
    for (int i = 0; i < reps; i++) {
      long t = System.nanoTime();
      body.run(i);
      ms[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(ms);
    return ms;
  }

  interface Step {
    void run() throws Exception;
  }

  /** Times two steps in turns, after one warm-up of each: [0] the first's runs, [1] the second's, sorted (ms). */
  private static double[][] timePair(int reps, Step first, Step second) throws Exception {
    first.run();
    second.run();
    double[][] ms = new double[2][reps];
    for (int i = 0; i < reps; i++) {
      long t = System.nanoTime();
      first.run();
      ms[0][i] = (System.nanoTime() - t) / 1e6;
      t = System.nanoTime();
      second.run();
      ms[1][i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(ms[0]);
    Arrays.sort(ms[1]);
    return ms;
  }

  private static double median(double[] ms) {
    return ms[ms.length / 2];
  }

  private static void report(String what, long rows, long bytes, double[] ms) {
    double median = median(ms);
    System.out.printf("%-62s median %8.0f ms  %6.2f M rows/s  %6.1f MB/s  (runs %s)%n", what, median,
        rows / median / 1e3, bytes / median / 1e3, Arrays.toString(Arrays.stream(ms).mapToLong(Math::round).toArray()));
  }

  private static void write(FileIO io, String location, PartitionSpec spec, List<VectorSchemaRoot> batches, int run,
      List<String> files) {
    WriteTarget target = new WriteTarget(location, SCHEMA, spec, FileFormat.PARQUET, PROPERTIES);
    DataFileTaskWriter writer = new DataFileTaskWriter(io, target,
        new DataFileNames("bench", 1, 0, run + 1, FileFormat.PARQUET));
    for (VectorSchemaRoot b : batches) {
      writer.write(b);
    }
    List<DataFile> written = writer.complete();
    if (files != null) {
      files.clear();
      written.forEach(f -> files.add(f.location()));
      long messageBytes = written.stream().mapToLong(f -> CommitMessages.toJson(f, spec).length()).sum();
      if (run == 0) {
        System.out.printf("  %s: %d files, %.1f MB, commit messages %,d bytes (%,d per file)%n",
            spec.isUnpartitioned() ? "unpartitioned" : spec.toString().replaceAll("\\s+", " "), written.size(),
            written.stream().mapToLong(DataFile::fileSizeInBytes).sum() / 1e6, messageBytes, messageBytes / written.size());
      }
    }
  }

  /** {@code rows} lineitem-like rows of {@link #SCHEMA} in Arrow batches of 65,536 rows (seeded, so every call gives the same). */
  static List<VectorSchemaRoot> batches(BufferAllocator allocator, long rows) {
    org.apache.arrow.vector.types.pojo.Schema arrow = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        dev.squall.engine.types.SqlType.BIGINT.arrowField("orderkey"),
        dev.squall.engine.types.SqlType.INTEGER.arrowField("quantity"),
        dev.squall.engine.types.SqlType.decimal(12, 2).arrowField("extendedprice"),
        dev.squall.engine.types.SqlType.decimal(12, 2).arrowField("discount"),
        dev.squall.engine.types.SqlType.DATE.arrowField("shipdate"),
        dev.squall.engine.types.SqlType.DOUBLE.arrowField("tax"),
        dev.squall.engine.types.SqlType.VARCHAR.arrowField("returnflag"),
        dev.squall.engine.types.SqlType.VARCHAR.arrowField("comment")));
    Random random = new Random(42);
    String[] flags = {"A", "N", "R"};
    String[] words = {"carefully", "final", "deposits", "sleep", "quickly", "ironic", "packages", "among"};
    List<VectorSchemaRoot> out = new ArrayList<>();
    for (long start = 0; start < rows; start += BATCH) {
      int n = (int) Math.min(BATCH, rows - start);
      VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator);
      root.allocateNew();
      for (int i = 0; i < n; i++) {
        long key = start + i;
        ((BigIntVector) root.getVector(0)).setSafe(i, key);
        ((IntVector) root.getVector(1)).setSafe(i, 1 + random.nextInt(50));
        ((DecimalVector) root.getVector(2)).setSafe(i, BigDecimal.valueOf(90_000 + random.nextInt(10_000_000), 2));
        ((DecimalVector) root.getVector(3)).setSafe(i, BigDecimal.valueOf(random.nextInt(11), 2));
        ((DateDayVector) root.getVector(4)).setSafe(i, 8035 + random.nextInt(2557));
        ((Float8Vector) root.getVector(5)).setSafe(i, random.nextInt(9) / 100.0);
        ((VarCharVector) root.getVector(6)).setSafe(i, flags[random.nextInt(3)].getBytes(StandardCharsets.UTF_8));
        String comment = words[random.nextInt(8)] + " " + words[random.nextInt(8)] + " " + words[random.nextInt(8)];
        ((VarCharVector) root.getVector(7)).setSafe(i, comment.getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(n);
      out.add(root);
    }
    return out;
  }
}
