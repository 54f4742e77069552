package dev.squall.engine.hash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RowHashesTest {
  @Test
  void rowsOfOneShufflePartitionStillSpreadOverTheSlotsOfATable() {
    // The rows a consumer task gets share hash mod 16; a table indexed by low bits would use 1/16 of its slots.
    int slotsLog2 = 12;
    Set<Integer> used = new HashSet<>();
    int rows = 0;
    for (long key = 0; rows < 4096; key++) {
      int h = Murmur3.hashLong(key, Column.HASH_SEED);
      if (Math.floorMod(h, 16) != 3) {
        continue;
      }
      rows++;
      used.add(RowHashes.slot(h, 32 - slotsLog2));
    }
    // 4096 random draws into 4096 slots fill about 1 - 1/e of them.
    assertThat(used.size()).isGreaterThan(2300);
  }

  @Test
  void rowHashesCombineKeyColumnsFromTheSeedAndSkipNulls() {
    LongColumn a = new LongColumn(SqlType.BIGINT, new long[] {7, 7}, new boolean[] {false, true}, 2);
    LongColumn b = new LongColumn(SqlType.BIGINT, new long[] {9, 9}, null, 2);
    int[] h = RowHashes.of(new Column[] {a, b}, 2, new int[2]);
    assertThat(h[0]).isEqualTo(Murmur3.hashLong(9, Murmur3.hashLong(7, Column.HASH_SEED)));
    assertThat(h[1]).isEqualTo(Murmur3.hashLong(9, Column.HASH_SEED));
  }
}
