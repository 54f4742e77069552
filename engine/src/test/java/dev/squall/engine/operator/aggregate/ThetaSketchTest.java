package dev.squall.engine.operator.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.ThetaValueBytes;
import dev.squall.proto.v1.DataType.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.IntFunction;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * THETA_SKETCH split over two partial accumulators and a final one yields the same sketch as one
 * built directly from Iceberg's own single-value serialization ({@link Conversions}) of the same
 * non-NULL values, for every column type ANALYZE sketches; below 4096 distinct values its estimate
 * is the exact count.
 */
class ThetaSketchTest {
  private static final int ROWS = 3000;

  private record Case(SqlType type, Type iceberg, IntFunction<Object> value, Column column) {}

  private static boolean[] nulls() {
    boolean[] nulls = new boolean[ROWS];
    for (int i = 0; i < ROWS; i += 7) {
      nulls[i] = true;
    }
    return nulls;
  }

  private static List<Case> cases() {
    Random rnd = new Random(5);
    long[] longs = new long[ROWS];
    double[] doubles = new double[ROWS];
    long[] unscaled = new long[ROWS];
    boolean[] bools = new boolean[ROWS];
    List<byte[]> strings = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      longs[i] = rnd.nextInt(900) - 450; // repeats, negatives
      doubles[i] = (rnd.nextInt(500) - 250) / 4.0;
      unscaled[i] = rnd.nextInt(1000) * 1_000_003L;
      bools[i] = rnd.nextBoolean();
      strings.add(("v" + rnd.nextInt(700) + "é").getBytes(StandardCharsets.UTF_8));
    }
    BytesColumn text = BytesColumn.withCapacity(new SqlType(Kind.VARCHAR, 0, 0), ROWS, ROWS * 8);
    boolean[] nulls = nulls();
    for (int i = 0; i < ROWS; i++) {
      if (nulls[i]) {
        text.appendNull();
      } else {
        text.append(strings.get(i));
      }
    }
    SqlType decimal = SqlType.decimal(20, 3);
    return List.of(
        new Case(SqlType.BIGINT, Types.LongType.get(), i -> longs[i], new LongColumn(SqlType.BIGINT, longs, nulls, ROWS)),
        new Case(SqlType.INTEGER, Types.IntegerType.get(), i -> (int) longs[i],
            new LongColumn(SqlType.INTEGER, longs, nulls, ROWS)),
        new Case(SqlType.DATE, Types.DateType.get(), i -> (int) longs[i], new LongColumn(SqlType.DATE, longs, nulls, ROWS)),
        new Case(SqlType.TIMESTAMP, Types.TimestampType.withoutZone(), i -> longs[i] * 1_000_000L,
            new LongColumn(SqlType.TIMESTAMP, scaled(longs), nulls, ROWS)),
        new Case(SqlType.DOUBLE, Types.DoubleType.get(), i -> doubles[i],
            new DoubleColumn(SqlType.DOUBLE, doubles, nulls, ROWS)),
        new Case(new SqlType(Kind.REAL, 0, 0), Types.FloatType.get(), i -> (float) doubles[i],
            new DoubleColumn(new SqlType(Kind.REAL, 0, 0), doubles, nulls, ROWS)),
        new Case(decimal, Types.DecimalType.of(20, 3), i -> new BigDecimal(BigInteger.valueOf(unscaled[i]), 3),
            new DecimalColumn(decimal, unscaled, null, nulls, ROWS)),
        new Case(SqlType.VARCHAR, Types.StringType.get(), i -> new String(strings.get(i), StandardCharsets.UTF_8), text),
        new Case(SqlType.BOOLEAN, Types.BooleanType.get(), i -> bools[i], new BoolColumn(bools, nulls, ROWS)));
  }

  private static long[] scaled(long[] v) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * 1_000_000L;
    }
    return out;
  }

  @Test
  void partialAndFinalSketchesEqualOneBuiltFromIcebergsSerialization() {
    boolean[] nulls = nulls();
    for (Case c : cases()) {
      UpdateSketch expected = UpdateSketch.builder().setNominalEntries(4096).build();
      Set<Object> distinct = new HashSet<>();
      for (int i = 0; i < ROWS; i++) {
        if (!nulls[i]) {
          Object v = c.value().apply(i);
          ByteBuffer bytes = Conversions.toByteBuffer(c.iceberg(), v);
          byte[] array = new byte[bytes.remaining()];
          bytes.duplicate().get(array);
          assertThat(ThetaValueBytes.of(c.type().kind(), v)).as(c.type() + " " + v).isEqualTo(array);
          expected.update(array);
          distinct.add(v);
        }
      }
      // Two map tasks see the two halves; the final task unions their states.
      int half = ROWS / 2;
      byte[][] states = new byte[2][];
      for (int part = 0; part < 2; part++) {
        SketchAccumulators.Theta partial = new SketchAccumulators.Theta(0, SketchAccumulators.Phase.PARTIAL,
            new SqlType(Kind.VARBINARY, 0, 0));
        int from = part * half;
        int n = part == 0 ? half : ROWS - half;
        int[] rows = new int[n];
        for (int i = 0; i < n; i++) {
          rows[i] = from + i;
        }
        partial.add(new int[n], n, 1, new ColumnBatch(new Column[] {c.column().gather(rows, n)}, n));
        states[part] = ((BytesColumn) partial.results(1)[0]).value(0);
      }
      SketchAccumulators.Theta last = new SketchAccumulators.Theta(0, SketchAccumulators.Phase.FINAL,
          new SqlType(Kind.VARBINARY, 0, 0));
      last.add(new int[2], 2, 1, new ColumnBatch(new Column[] {
          BytesColumn.of(new SqlType(Kind.VARBINARY, 0, 0), states[0], states[1])}, 2));
      CompactSketch result = CompactSketch.wrap(Memory.wrap(((BytesColumn) last.results(1)[0]).value(0)));
      assertThat(result.getEstimate()).as(c.type().toString()).isEqualTo(distinct.size());
      assertThat(result.toByteArray()).as(c.type().toString()).isEqualTo(expected.compact().toByteArray());
    }
  }

  @Test
  void aGroupWithoutValuesYieldsAnEmptySketchNotNull() {
    SketchAccumulators.Theta single = new SketchAccumulators.Theta(0, SketchAccumulators.Phase.SINGLE,
        new SqlType(Kind.VARBINARY, 0, 0));
    single.add(new int[2], 2, 1, new ColumnBatch(new Column[] {
        new LongColumn(SqlType.BIGINT, new long[2], new boolean[] {true, true}, 2)}, 2));
    BytesColumn out = (BytesColumn) single.results(1)[0];
    assertThat(out.isNull(0)).isFalse();
    assertThat(CompactSketch.wrap(Memory.wrap(out.value(0))).getEstimate()).isZero();
  }
}
