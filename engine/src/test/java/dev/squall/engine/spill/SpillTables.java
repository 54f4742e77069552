package dev.squall.engine.spill;

import dev.squall.engine.testing.TpchFixture;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Tables for spilling tests, written as Parquet beside the TPC-H fixture so that DuckDB reads the
 * same files: {@code spill_facts} (300,000 rows: many distinct groups, a join key with NULLs and
 * keys missing from the dimension, and {@code hot}, 40% one value for a skewed join) and
 * {@code spill_dims} (110,000 rows, every tenth key twice, NULL keys).
 */
final class SpillTables {
  static final int FACT_ROWS = 300_000;
  static final int DIM_KEYS = 100_000;
  static final long HOT_KEY = 7;

  private SpillTables() {}

  static TpchFixture fixture() {
    TpchFixture f = TpchFixture.sf001();
    synchronized (SpillTables.class) {
      f.addTable("spill_facts", new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "k", Types.LongType.get()),
          Types.NestedField.optional(3, "g", Types.StringType.get()),
          Types.NestedField.optional(4, "v", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(5, "s", Types.StringType.get()),
          Types.NestedField.optional(6, "hot", Types.LongType.get())),
          List.of(facts(0, FACT_ROWS / 2), facts(FACT_ROWS / 2, FACT_ROWS / 2)), Map.of());
      f.addTable("spill_dims", new Schema(
          Types.NestedField.optional(1, "dk", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "w", Types.DoubleType.get())),
          List.of(dims()), Map.of());
    }
    return f;
  }

  private static List<Object[]> facts(int first, int n) {
    Random rnd = new Random(17 + first);
    String[] words = {"quick", "brown", "fox", "jumps", "over", "lazy", "dog", "again"};
    List<Object[]> rows = new ArrayList<>(n);
    for (int i = first; i < first + n; i++) {
      Object k = rnd.nextInt(100) == 0 ? null : (long) rnd.nextInt(DIM_KEYS * 6 / 5);
      Object g = rnd.nextInt(200) == 0 ? null : "grp-" + ((long) i * 7919 % 150_000);
      Object v = rnd.nextInt(50) == 0 ? null : BigDecimal.valueOf(rnd.nextInt(2_000_000) - 1_000_000, 2);
      String s = words[rnd.nextInt(words.length)] + " " + words[rnd.nextInt(words.length)] + " " + rnd.nextInt(1000);
      Object hot = rnd.nextInt(5) < 2 ? HOT_KEY : (long) i;
      rows.add(new Object[] {(long) i, k, g, v, s, hot});
    }
    return rows;
  }

  private static List<Object[]> dims() {
    Random rnd = new Random(29);
    List<Object[]> rows = new ArrayList<>();
    for (int k = 0; k < DIM_KEYS; k++) {
      int copies = k % 10 == 0 ? 2 : 1;
      for (int c = 0; c < copies; c++) {
        Object key = rnd.nextInt(100) == 0 ? null : (long) k;
        rows.add(new Object[] {key, "name-" + k + "-" + c, Math.round(rnd.nextDouble() * 1e6) / 1e3});
      }
    }
    return rows;
  }
}
