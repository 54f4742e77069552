package dev.squall.engine.runtimefilter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.Literal;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Listed long keys dense in their range are tested in a bitmap, sparse ones in a hash set; a
 * probe column's verdicts are the same either way and equal membership in the listed keys.
 */
class LongKeyBitmapTest {
  @Test
  void aBitmapHoldsExactlyItsKeysAcrossWordEdgesAndNegativeValues() {
    long[] keys = {-70, -64, -63, -1, 0, 63, 64, 127, 128, 190};
    LongKeyBitmap bitmap = LongKeyBitmap.of(-70, 190, keys);
    assertThat(bitmap).isNotNull();
    Set<Long> listed = new HashSet<>();
    for (long k : keys) {
      listed.add(k);
    }
    for (long v = -70; v <= 190; v++) {
      assertThat(bitmap.contains(v)).as("key %d", v).isEqualTo(listed.contains(v));
    }
  }

  @Test
  void sparseKeysAndHugeRangesTakeNoBitmap() {
    assertThat(LongKeyBitmap.of(0, 64 * 10 - 1, new long[10])).isNotNull();
    assertThat(LongKeyBitmap.of(0, 64 * 10, new long[10])).isNull(); // 65 bits a key
    assertThat(LongKeyBitmap.of(Long.MIN_VALUE, Long.MAX_VALUE, new long[] {Long.MIN_VALUE, Long.MAX_VALUE})).isNull();
    assertThat(LongKeyBitmap.of(0, LongKeyBitmap.MAX_BITS, new long[1 << 20])).isNull(); // past 1 MiB
    assertThat(LongKeyBitmap.of(5, 5, new long[0])).isNull();
  }

  @Test
  void denseAndSparseListsSelectTheSameRowsAsMembership() {
    Random random = new Random(42);
    for (long stride : new long[] {1, 3, 63, 64, 65, 1_000_003}) {
      Set<Long> listed = new HashSet<>();
      KeyFilter.Builder proto = KeyFilter.newBuilder().setColumn(0).setHasValues(true);
      long first = 1_000 - random.nextInt(2_000);
      for (int i = 0; i < 300; i++) {
        long key = first + i * stride + (stride > 1 ? random.nextInt((int) Math.min(stride, 1_000)) % stride : 0);
        if (listed.add(key)) {
          proto.addValues(Literal.newBuilder().setLongValue(key));
        }
      }
      long min = listed.stream().mapToLong(Long::longValue).min().getAsLong();
      long max = listed.stream().mapToLong(Long::longValue).max().getAsLong();
      ProbeKeyFilter filter = new ProbeKeyFilter(proto.setMin(Literal.newBuilder().setLongValue(min))
          .setMax(Literal.newBuilder().setLongValue(max)).build());
      int n = 4_000;
      long[] values = new long[n];
      boolean[] nulls = new boolean[n];
      for (int r = 0; r < n; r++) {
        // Half the rows hit a listed key, the rest fall anywhere around the range.
        values[r] = r % 2 == 0 ? first + (r / 2 % 300) * stride : min - 100 + (long) (random.nextDouble() * (max - min + 200));
        nulls[r] = r % 11 == 5;
      }
      LongColumn col = new LongColumn(SqlType.BIGINT, values, nulls, n);
      int[] rows = new int[n];
      for (int r = 0; r < n; r++) {
        rows[r] = r;
      }
      int kept = filter.select(col, rows, n);
      int k = 0;
      for (int r = 0; r < n; r++) {
        boolean member = !nulls[r] && listed.contains(values[r]);
        if (member) {
          assertThat(k).as("stride %d: row %d kept", stride, r).isLessThan(kept);
          assertThat(rows[k++]).as("stride %d: row %d kept", stride, r).isEqualTo(r);
        }
      }
      assertThat(kept).as("stride %d: only members kept", stride).isEqualTo(k);
    }
  }
}
