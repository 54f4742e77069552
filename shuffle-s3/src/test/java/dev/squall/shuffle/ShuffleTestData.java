package dev.squall.shuffle;

import dev.squall.proto.v1.Compression;
import dev.squall.proto.v1.ShuffleSegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Rows of every SQL type Squall maps to Arrow (types.proto), with NULLs and edge values, as
 * plain Java values; builds Arrow batches from them and reads batches back into the same form.
 * Row values: Boolean, Byte, Short, Integer, Long, Float, Double, BigDecimal (scale 10 and 2),
 * Integer days, Long micros, String, hex String of bytes, null.
 */
final class ShuffleTestData {
  static final int BOOL = 0, I8 = 1, I16 = 2, I32 = 3, I64 = 4, F32 = 5, F64 = 6, DEC38 = 7, DEC9 = 8,
      DATE = 9, TS = 10, STR = 11, BIN = 12, NUL = 13;

  static final Schema SCHEMA = new Schema(List.of(
      field("b", ArrowType.Bool.INSTANCE),
      field("i8", new ArrowType.Int(8, true)),
      field("i16", new ArrowType.Int(16, true)),
      field("i32", new ArrowType.Int(32, true)),
      field("i64", new ArrowType.Int(64, true)),
      field("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
      field("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      field("d38", new ArrowType.Decimal(38, 10, 128)),
      field("d9", new ArrowType.Decimal(9, 2, 128)),
      field("dt", new ArrowType.Date(DateUnit.DAY)),
      field("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
      field("s", ArrowType.Utf8.INSTANCE),
      field("bin", ArrowType.Binary.INSTANCE),
      new Field("nul", FieldType.nullable(ArrowType.Null.INSTANCE), null)));

  private static final String[] WORDS = {"", "a", "B", "hello", "ünïcödé", "€uro", "日本語", "emoji 😀", "tab\tnl\n",
      "x".repeat(300)};

  private ShuffleTestData() {}

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /** {@code count} random rows; about 1 value in 8 is NULL; i32 and s come from small domains. */
  static List<List<Object>> rows(long seed, int count) {
    Random random = new Random(seed);
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      Object[] row = new Object[SCHEMA.getFields().size()];
      row[BOOL] = random.nextBoolean();
      row[I8] = (byte) random.nextInt();
      row[I16] = (short) random.nextInt();
      row[I32] = random.nextInt(21) - 2;
      row[I64] = pick(random, random.nextLong(), Long.MIN_VALUE, Long.MAX_VALUE, 0L);
      row[F32] = pick(random, random.nextFloat() * 1000 - 500, -0.0f, Float.NaN, Float.NEGATIVE_INFINITY);
      row[F64] = pick(random, random.nextGaussian() * 1e6, -0.0d, Double.NaN, Double.MAX_VALUE);
      BigInteger big = new BigInteger(120, random);
      row[DEC38] = new BigDecimal(random.nextBoolean() ? big : big.negate(), 10);
      row[DEC9] = BigDecimal.valueOf(random.nextInt(1_999_999_999) - 999_999_999L, 2);
      row[DATE] = random.nextInt(40_000) - 10_000;
      row[TS] = random.nextLong() >> 12;
      row[STR] = WORDS[random.nextInt(WORDS.length)];
      byte[] bytes = new byte[random.nextInt(20)];
      random.nextBytes(bytes);
      row[BIN] = HexFormat.of().formatHex(bytes);
      row[NUL] = null;
      for (int c = 0; c < row.length; c++) {
        if (random.nextInt(8) == 0) {
          row[c] = null;
        }
      }
      rows.add(Arrays.asList(row));
    }
    return rows;
  }

  @SafeVarargs
  private static <T> T pick(Random random, T usual, T... edges) {
    return random.nextInt(6) == 0 ? edges[random.nextInt(edges.length)] : usual;
  }

  /** One Arrow batch holding {@code rows}; the caller closes it. */
  static VectorSchemaRoot batch(BufferAllocator allocator, List<List<Object>> rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    for (int r = 0; r < rows.size(); r++) {
      List<Object> row = rows.get(r);
      for (int c = 0; c < row.size(); c++) {
        set(root.getVector(c), r, row.get(c));
      }
    }
    root.setRowCount(rows.size());
    return root;
  }

  private static void set(FieldVector vector, int i, Object value) {
    if (vector instanceof NullVector) {
      return;
    }
    if (value == null) {
      vector.setNull(i);
      return;
    }
    if (vector instanceof BitVector v) {
      v.setSafe(i, (Boolean) value ? 1 : 0);
    } else if (vector instanceof TinyIntVector v) {
      v.setSafe(i, (Byte) value);
    } else if (vector instanceof SmallIntVector v) {
      v.setSafe(i, (Short) value);
    } else if (vector instanceof IntVector v) {
      v.setSafe(i, (Integer) value);
    } else if (vector instanceof BigIntVector v) {
      v.setSafe(i, (Long) value);
    } else if (vector instanceof Float4Vector v) {
      v.setSafe(i, (Float) value);
    } else if (vector instanceof Float8Vector v) {
      v.setSafe(i, (Double) value);
    } else if (vector instanceof DecimalVector v) {
      v.setSafe(i, (BigDecimal) value);
    } else if (vector instanceof DateDayVector v) {
      v.setSafe(i, (Integer) value);
    } else if (vector instanceof TimeStampMicroVector v) {
      v.setSafe(i, (Long) value);
    } else if (vector instanceof VarCharVector v) {
      v.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
    } else if (vector instanceof VarBinaryVector v) {
      v.setSafe(i, HexFormat.of().parseHex((String) value));
    } else {
      throw new IllegalArgumentException("No setter for " + vector.getClass());
    }
  }

  /** The rows of a batch, in the same Java form as {@link #rows}. */
  static List<List<Object>> read(VectorSchemaRoot root) {
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < root.getRowCount(); r++) {
      Object[] row = new Object[root.getFieldVectors().size()];
      for (int c = 0; c < row.length; c++) {
        row[c] = get(root.getVector(c), r);
      }
      rows.add(Arrays.asList(row));
    }
    return rows;
  }

  private static Object get(FieldVector vector, int i) {
    if (vector.isNull(i)) {
      return null;
    }
    if (vector instanceof BitVector v) {
      return v.get(i) == 1;
    } else if (vector instanceof DateDayVector v) {
      return v.get(i);
    } else if (vector instanceof TimeStampMicroVector v) {
      return v.get(i);
    } else if (vector instanceof VarCharVector v) {
      return new String(v.get(i), StandardCharsets.UTF_8);
    } else if (vector instanceof VarBinaryVector v) {
      return HexFormat.of().formatHex(v.get(i));
    }
    return vector.getObject(i);
  }

  /** Multiset of rows: row → count. */
  static Map<List<Object>, Integer> multiset(List<List<Object>> rows) {
    Map<List<Object>, Integer> counts = new HashMap<>();
    for (List<Object> row : rows) {
      counts.merge(row, 1, Integer::sum);
    }
    return counts;
  }

  /**
   * Writes {@code rows} as map outputs of stage 1 in one shuffle partition, {@code perOutput} rows
   * each (map task m gets rows m × perOutput onwards), to {@code bucket} under the job {@code job};
   * returns the reduce side's segments.
   */
  static List<ShuffleSegment> writeMapOutputs(S3Client s3, BufferAllocator allocator, String bucket, String job,
      List<List<Object>> rows, int perOutput) {
    List<ShuffleSegment> segments = new ArrayList<>();
    for (int m = 0; m * perOutput < rows.size(); m++) {
      ShuffleWriter writer = ShuffleWriter.open(s3, allocator, ShuffleRoundTripTest.output(job,
          ShuffleRoundTripTest.hash(1, 0), Compression.LZ4_FRAME).toBuilder().setBucket(bucket).build(),
          new MapTaskAttempt(1, m, 0), ShuffleWriterOptions.DEFAULT);
      try (VectorSchemaRoot batch = batch(allocator, rows.subList(m * perOutput, Math.min(rows.size(),
          (m + 1) * perOutput)))) {
        writer.write(batch);
      }
      segments.addAll(writer.close().segmentsFor(0));
    }
    return segments;
  }
}
