package dev.squall.engine.operator.join;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.testing.MemCheck;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.JoinType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The single-BIGINT-key layouts of {@link JoinHashTable} (direct-mapped and open-addressed): lookups
 * against a brute-force scan of the build keys, and every join type over their edge cases (NULL
 * keys, duplicates, negative keys, Long.MIN/MAX, a key range wider than a long, empty build sides)
 * against DuckDB running the same SQL over the same rows.
 */
class JoinHashTableTest {
  private static final Long MIN = Long.MIN_VALUE;
  private static final Long MAX = Long.MAX_VALUE;

  /** Build keys per case; the probe side holds these keys, their neighbours and NULLs. */
  private static Map<String, List<Long>> buildKeys() {
    List<Long> dense = new ArrayList<>();
    List<Long> sparse = new ArrayList<>();
    for (long k = -40; k < 60; k++) {
      dense.add(k % 7 == 0 ? null : k / 2); // duplicates, negatives, NULLs
      sparse.add(k % 9 == 0 ? null : (k / 3) * 1_000_000_007_000L); // range far above 4x the rows
    }
    return Map.of(
        "dense", dense,
        "sparse", sparse,
        "extremes", java.util.Arrays.asList(MIN, MAX, 0L, -1L, MIN, MAX, null, 1L, MIN + 1),
        "near_max", java.util.Arrays.asList(MAX, MAX - 1, MAX - 3, MAX, null), // direct, ending at MAX
        "near_min", java.util.Arrays.asList(MIN, MIN + 2, MIN, null), // direct, starting at MIN
        "all_null", java.util.Arrays.asList(null, null, null),
        "empty", List.of());
  }

  private static List<Long> probeKeys(List<Long> build) {
    List<Long> out = new ArrayList<>();
    for (Long k : build) {
      out.add(k);
      if (k != null) {
        out.add(k + 1); // wraps at MAX: MIN, also a probe of interest
        out.add(k - 1);
      }
    }
    out.addAll(java.util.Arrays.asList(null, MIN, MAX, 0L, -41L, 1_000_000L, MIN + 1, MAX - 1, null));
    return out;
  }

  private static MemTable table(String name, String prefix, List<Long> keys) {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      rows.add(new Object[] {(long) i, keys.get(i)});
    }
    return new MemTable(name, List.of(prefix + "id", prefix + "k"), List.of(SqlType.BIGINT, SqlType.BIGINT), rows);
  }

  @TestFactory
  Stream<DynamicTest> everyJoinTypeOverLongKeyEdgeCasesMatchesDuckDb() {
    List<DynamicTest> tests = new ArrayList<>();
    for (var c : buildKeys().entrySet()) {
      for (JoinType type : JoinType.values()) {
        if (type == JoinType.JOIN_TYPE_UNSPECIFIED || type == JoinType.UNRECOGNIZED) {
          continue;
        }
        for (boolean buildLeft : new boolean[] {false, true}) {
          String name = c.getKey() + "_" + type + (buildLeft ? "_build_left" : "_build_right");
          tests.add(DynamicTest.dynamicTest(name, () -> {
            MemTable build = table("jht_b_" + c.getKey(), "b_", c.getValue());
            MemTable probe = table("jht_p_" + c.getKey(), "p_", probeKeys(c.getValue()));
            // The build side is the one named by buildLeft: put the build keys there.
            MemTable left = buildLeft ? build : probe;
            MemTable right = buildLeft ? probe : build;
            String lk = buildLeft ? "b_k" : "p_k";
            String rk = buildLeft ? "p_k" : "b_k";
            Rel rel = left.rel(0).join(right.rel(1), type, List.of(lk), List.of(rk), null, buildLeft);
            MemCheck.check(rel, Map.of(0, left, 1, right), name, 7);
          }));
        }
      }
    }
    return tests.stream();
  }

  @Test
  void denseKeysAreDirectMappedAndWideOrOverflowingRangesOpenAddressed() {
    assertEquals(true, table(buildKeys().get("dense")).directMapped());
    assertEquals(true, table(buildKeys().get("near_max")).directMapped());
    assertEquals(true, table(buildKeys().get("near_min")).directMapped());
    assertEquals(false, table(buildKeys().get("sparse")).directMapped());
    assertEquals(false, table(buildKeys().get("extremes")).directMapped());
  }

  @Test
  void lookupsListEveryBuildRowOfTheKeyInInputOrder() {
    Random rnd = new Random(7);
    for (int round = 0; round < 40; round++) {
      int rows = rnd.nextInt(2000);
      long spread = switch (round % 4) {
        case 0 -> 50; // many duplicates, direct
        case 1 -> 4L * rows + 100; // about the direct-mapping limit
        case 2 -> 1L << 40; // open
        default -> 0; // any long, open
      };
      List<Long> keys = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        long k = spread == 0 ? rnd.nextLong() : Math.floorMod(rnd.nextLong(), spread) - spread / 2;
        keys.add(rnd.nextInt(10) == 0 ? null : k);
      }
      JoinHashTable t = table(keys);
      List<Long> probes = probeKeys(keys);
      for (int i = 0; i < 200; i++) {
        probes.add(spread == 0 ? rnd.nextLong() : Math.floorMod(rnd.nextLong(), 2 * spread) - spread);
      }
      int[] firsts = new int[probes.size()];
      t.findLongs(column(probes), probes.size(), firsts);
      for (int p = 0; p < probes.size(); p++) {
        List<Integer> expected = new ArrayList<>();
        for (int b = 0; b < rows; b++) {
          if (probes.get(p) != null && probes.get(p).equals(keys.get(b))) {
            expected.add(b);
          }
        }
        List<Integer> actual = new ArrayList<>();
        for (int b = firsts[p]; b >= 0; b = t.nextSameKey(b)) {
          actual.add(b);
        }
        assertEquals(expected, actual, "round " + round + " probe " + probes.get(p));
      }
    }
  }

  private static JoinHashTable table(List<Long> keys) {
    return new JoinHashTable(new Column[] {column(keys)}, keys.size());
  }

  private static LongColumn column(List<Long> keys) {
    long[] values = new long[keys.size()];
    boolean[] nulls = new boolean[keys.size()];
    for (int i = 0; i < values.length; i++) {
      nulls[i] = keys.get(i) == null;
      values[i] = nulls[i] ? 12345 : keys.get(i); // a NULL row's value must not matter
    }
    return new LongColumn(SqlType.BIGINT, values, nulls, values.length);
  }
}
