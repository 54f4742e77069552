package dev.squall.shuffle.bench;

import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.ShuffleSegment;
import dev.squall.shuffle.MapOutput;
import dev.squall.shuffle.MapTaskAttempt;
import dev.squall.shuffle.ShuffleReader;
import dev.squall.shuffle.ShuffleReaderOptions;
import dev.squall.shuffle.ShuffleWriter;
import dev.squall.shuffle.ShuffleWriterOptions;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Shuffle write and read throughput against the embedded S3 (S3Proxy in this JVM, in memory),
 * beside raw S3 PUTs and GETs of the same bytes on the same server.
 *
 * <p>Data: lineitem-like rows (BIGINT key, INTEGER, two DECIMAL(12,2), DATE, DOUBLE, two VARCHAR)
 * built in memory before timing. M map tasks hash-partition them on the BIGINT key into R
 * partitions (one writer per map task, run one after another, as each would run in its own
 * Lambda); then R reduce tasks read their partition from every map output (one after another;
 * each reader runs its own parallel ranged GETs). Raw: one PUT per map output of the same size,
 * then one whole-object GET each, and the same M×R ranged GETs with the same parallelism.
 * MB = 10^6 bytes. Each figure is the median of {@code reps} timed runs after one warm-up run.
 *
 * <p>Arguments: {@code [rows] [maps] [partitions] [LZ4_FRAME|ZSTD|NONE] [reps]}, default
 * {@code 2000000 8 64 LZ4_FRAME 3}. Not a unit test: run it as a main (docs/benchmarks.md).
 */
public final class ShuffleBenchmark {
  private static final String BUCKET = "squall-bench";
  private static final Schema SCHEMA = new Schema(List.of(
      field("orderkey", new ArrowType.Int(64, true)),
      field("partkey", new ArrowType.Int(32, true)),
      field("quantity", new ArrowType.Decimal(12, 2, 128)),
      field("price", new ArrowType.Decimal(12, 2, 128)),
      field("shipdate", new ArrowType.Date(DateUnit.DAY)),
      field("tax", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      field("flag", ArrowType.Utf8.INSTANCE),
      field("comment", ArrowType.Utf8.INSTANCE)));
  private static final String[] WORDS = {"carefully", "final", "deposits", "sleep", "quickly", "regular", "ideas",
      "haggle", "blithely", "pending", "accounts", "furiously", "bold", "requests", "along", "the"};

  private ShuffleBenchmark() {}

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    int maps = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 64;
    Compression compression = args.length > 3 ? Compression.valueOf(args[3]) : Compression.LZ4_FRAME;
    int reps = args.length > 4 ? Integer.parseInt(args[4]) : 3;

    try (EmbeddedS3 server = EmbeddedS3.startTransient(BUCKET); S3Client s3 = server.newClient();
        BufferAllocator allocator = new RootAllocator()) {
      List<List<VectorSchemaRoot>> inputs = new ArrayList<>();
      long arrowBytes = 0;
      Random random = new Random(42);
      int perMap = rows / maps;
      for (int m = 0; m < maps; m++) {
        List<VectorSchemaRoot> batches = new ArrayList<>();
        for (int done = 0; done < perMap; done += 8192) {
          VectorSchemaRoot batch = batch(allocator, random, Math.min(8192, perMap - done));
          arrowBytes += batch.getFieldVectors().stream().mapToLong(FieldVector::getBufferSize).sum();
          batches.add(batch);
        }
        inputs.add(batches);
      }
      System.out.printf("Shuffle benchmark: %,d rows, %d map tasks x %d partitions, %s, Arrow input %.1f MB, %d timed runs%n",
          (long) perMap * maps, maps, partitions, compression, arrowBytes / 1e6, reps);

      double[] write = new double[reps];
      double[] read = new double[reps];
      double[] put = new double[reps];
      double[] get = new double[reps];
      double[] rangedGet = new double[reps];
      long objectBytes = 0;
      for (int rep = -1; rep < reps; rep++) {
        String job = "bench/run" + (rep + 1);
        ShuffleOutput output = ShuffleOutput.newBuilder().setBucket(BUCKET).setJobPrefix(job)
            .setCompression(compression)
            .setPartitioning(Partitioning.newBuilder().setHash(Partitioning.Hash.newBuilder().addKeys(0).setPartitions(partitions)))
            .build();
        long t0 = System.nanoTime();
        List<MapOutput> outs = new ArrayList<>();
        for (int m = 0; m < maps; m++) {
          ShuffleWriter writer = ShuffleWriter.open(s3, allocator, output, new MapTaskAttempt(1, m, 0), ShuffleWriterOptions.DEFAULT);
          for (VectorSchemaRoot batch : inputs.get(m)) {
            writer.write(batch);
          }
          outs.add(writer.close());
        }
        double writeSeconds = (System.nanoTime() - t0) / 1e9;
        objectBytes = outs.stream().mapToLong(MapOutput::objectBytes).sum();

        t0 = System.nanoTime();
        long rowsRead = 0;
        for (int p = 0; p < partitions; p++) {
          List<ShuffleSegment> segments = new ArrayList<>();
          for (MapOutput out : outs) {
            segments.addAll(out.segmentsFor(p));
          }
          try (ShuffleReader reader = ShuffleReader.open(s3, allocator, segments, ShuffleReaderOptions.DEFAULT)) {
            while (reader.hasNext()) {
              rowsRead += reader.next().getRowCount();
            }
          }
        }
        double readSeconds = (System.nanoTime() - t0) / 1e9;
        if (rowsRead != (long) perMap * maps) {
          throw new IllegalStateException("Read " + rowsRead + " rows, wrote " + (long) perMap * maps);
        }

        // Raw S3 with the same object sizes: one PUT each, then one GET each.
        List<byte[]> raw = new ArrayList<>();
        for (MapOutput out : outs) {
          byte[] bytes = new byte[(int) out.objectBytes()];
          random.nextBytes(bytes);
          raw.add(bytes);
        }
        t0 = System.nanoTime();
        for (int m = 0; m < maps; m++) {
          String key = job + "/raw/" + m;
          s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(raw.get(m)));
        }
        double putSeconds = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        for (int m = 0; m < maps; m++) {
          String key = job + "/raw/" + m;
          s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArrayUnsafe();
        }
        double getSeconds = (System.nanoTime() - t0) / 1e9;
        // Raw ranged GETs of exactly the shuffle's segments (of the raw objects), 8 in flight per reduce task.
        t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(ShuffleReaderOptions.DEFAULT.maxInFlight());
        try {
          for (int p = 0; p < partitions; p++) {
            List<Future<?>> futures = new ArrayList<>();
            for (int m = 0; m < maps; m++) {
              String key = job + "/raw/" + m;
              for (ShuffleSegment s : outs.get(m).segmentsFor(p)) {
                String range = "bytes=" + s.getOffset() + "-" + (s.getOffset() + s.getLength() - 1);
                futures.add(pool.submit(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range(range)).asByteArrayUnsafe()));
              }
            }
            for (Future<?> f : futures) {
              f.get();
            }
          }
        } finally {
          pool.shutdown();
        }
        double rangedSeconds = (System.nanoTime() - t0) / 1e9;
        if (rep >= 0) {
          write[rep] = writeSeconds;
          read[rep] = readSeconds;
          put[rep] = putSeconds;
          get[rep] = getSeconds;
          rangedGet[rep] = rangedSeconds;
        }
      }
      double w = median(write);
      double r = median(read);
      System.out.printf("object bytes %.1f MB (%.2fx smaller than Arrow input), %d objects, %d segments per reduce task%n",
          objectBytes / 1e6, (double) arrowBytes / objectBytes, maps, maps);
      System.out.println("| step | seconds | MB/s of object bytes | MB/s of Arrow bytes |");
      System.out.println("| --- | ---: | ---: | ---: |");
      row("shuffle write (partition + encode + PUT)", w, objectBytes, arrowBytes);
      row("raw S3 PUT, same object sizes", median(put), objectBytes, -1);
      row("shuffle read (ranged GETs + decode)", r, objectBytes, arrowBytes);
      row("raw S3 GET, whole objects", median(get), objectBytes, -1);
      row("raw S3 ranged GETs, same segments", median(rangedGet), objectBytes, -1);
      for (List<VectorSchemaRoot> batches : inputs) {
        batches.forEach(VectorSchemaRoot::close);
      }
    }
  }

  private static void row(String step, double seconds, long objectBytes, long arrowBytes) {
    System.out.printf("| %s | %.3f | %.1f | %s |%n", step, seconds, objectBytes / 1e6 / seconds,
        arrowBytes < 0 ? "" : String.format("%.1f", arrowBytes / 1e6 / seconds));
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static VectorSchemaRoot batch(BufferAllocator allocator, Random random, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector orderkey = (BigIntVector) root.getVector(0);
    IntVector partkey = (IntVector) root.getVector(1);
    DecimalVector quantity = (DecimalVector) root.getVector(2);
    DecimalVector price = (DecimalVector) root.getVector(3);
    DateDayVector shipdate = (DateDayVector) root.getVector(4);
    Float8Vector tax = (Float8Vector) root.getVector(5);
    VarCharVector flag = (VarCharVector) root.getVector(6);
    VarCharVector comment = (VarCharVector) root.getVector(7);
    for (int i = 0; i < rows; i++) {
      orderkey.setSafe(i, random.nextInt(6_000_000));
      partkey.setSafe(i, random.nextInt(200_000));
      quantity.setSafe(i, BigDecimal.valueOf(1 + random.nextInt(50) * 100L, 2));
      price.setSafe(i, BigDecimal.valueOf(90_000 + random.nextInt(10_000_000), 2));
      shipdate.setSafe(i, 8000 + random.nextInt(2500));
      tax.setSafe(i, random.nextInt(9) / 100.0);
      flag.setSafe(i, new byte[] {(byte) "ANR".charAt(random.nextInt(3))});
      StringBuilder text = new StringBuilder();
      int words = 3 + random.nextInt(4);
      for (int w = 0; w < words; w++) {
        text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
      }
      comment.setSafe(i, text.toString().getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(rows);
    return root;
  }
}
