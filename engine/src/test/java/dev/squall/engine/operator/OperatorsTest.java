package dev.squall.engine.operator;

import static dev.squall.engine.testing.Rel.Agg.avg;
import static dev.squall.engine.testing.Rel.Agg.count;
import static dev.squall.engine.testing.Rel.Agg.countDistinct;
import static dev.squall.engine.testing.Rel.Agg.countStar;
import static dev.squall.engine.testing.Rel.Agg.max;
import static dev.squall.engine.testing.Rel.Agg.min;
import static dev.squall.engine.testing.Rel.Agg.sum;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;

import dev.squall.engine.testing.MemCheck;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.X;
import dev.squall.proto.v1.JoinType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every operator over shuffle-input batches with NULLs in every column, for an empty input, one row
 * and 3,000 rows in batches of 256 (joined with 200 rows), each compared with DuckDB running the same
 * SQL over the same rows.
 */
class OperatorsTest {
  private static final Map<String, BiFunction<Rel, Rel, Rel>> CASES = new LinkedHashMap<>();

  private static Map<String, X> m(Object... kv) {
    Map<String, X> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put((String) kv[i], (X) kv[i + 1]);
    }
    return out;
  }

  static {
    CASES.put("filter", (t, u) -> t.filter(r -> r.col("i").gt(lit(0))));
    CASES.put("filter_null_condition", (t, u) -> t.filter(r -> r.col("b")));
    CASES.put("project", (t, u) -> t.project(r -> m("id", r.col("id"), "e", r.col("d").times(dec("2")), "s", r.col("s"))));
    for (AggMode mode : AggMode.values()) {
      CASES.put("aggregate_grouped_" + mode, (t, u) -> t.aggregate(List.of("i", "s"), List.of(sum("d", "sd"), count("x", "cx"),
          countStar("n"), min("s", "mn"), max("dt", "mx"), avg("d", "ad"), sum("x", "sx"), avg("i", "ai"), max("b", "mb")), mode));
      CASES.put("aggregate_global_" + mode, (t, u) -> t.aggregate(List.of(), List.of(sum("d", "sd"), countStar("n"),
          min("dt", "mn"), max("s", "mx"), avg("x", "ax"), sum("i", "si")), mode));
      CASES.put("aggregate_count_distinct_" + mode, (t, u) -> t.aggregate(List.of("b"), List.of(countDistinct("s", "cd")), mode));
      CASES.put("aggregate_keys_only_" + mode, (t, u) -> t.aggregate(List.of("i", "b"), List.of(), mode));
    }
    for (JoinType type : JoinType.values()) {
      if (type == JoinType.JOIN_TYPE_UNSPECIFIED || type == JoinType.UNRECOGNIZED) {
        continue;
      }
      for (boolean buildLeft : new boolean[] {false, true}) {
        String suffix = type + (buildLeft ? "_build_left" : "_build_right");
        CASES.put("hash_join_" + suffix, (t, u) -> t.join(u, type, List.of("i"), List.of("u_i"), null, buildLeft));
        CASES.put("hash_join_residual_" + suffix, (t, u) -> t.join(u, type, List.of("i"), List.of("u_i"),
            r -> r.col("d").gt(r.col("u_d")), buildLeft));
        CASES.put("hash_join_two_keys_" + suffix, (t, u) -> t.join(u, type, List.of("s", "b"), List.of("u_s", "u_b"), null, buildLeft));
      }
      CASES.put("nested_loop_join_" + type, (t, u) -> t.filter(r -> r.col("id").lt(lit(200)))
          .nestedLoopJoin(u.filter(r -> r.col("u_id").lt(lit(150))), type, r -> r.col("i").lt(r.col("u_i"))));
    }
    // Keys of different types: INTEGER against DECIMAL(12,2) values of which half are not whole.
    CASES.put("hash_join_integer_with_decimal_key", (t, u) -> t.join(u.project(r -> m("u_id", r.col("u_id"),
        "u_k", r.col("u_i").cast(dev.squall.engine.types.SqlType.decimal(12, 2)).plus(dec("0.50").times(r.col("u_id").mod(lit(2)))))),
        JoinType.INNER, List.of("i"), List.of("u_k"), null, false));
    CASES.put("hash_join_date_with_timestamp_key", (t, u) -> t.join(u.project(r -> m("u_id", r.col("u_id"),
        "u_ts", r.col("u_dt").cast(dev.squall.engine.types.SqlType.TIMESTAMP))), JoinType.LEFT, List.of("dt"), List.of("u_ts"), null, true));
    CASES.put("sort_asc_nulls_last", (t, u) -> t.sort(List.of(Key.asc("i"), Key.asc("s"), Key.asc("id"))));
    CASES.put("sort_desc_nulls_first", (t, u) -> t.sort(List.of(Key.desc("d"), new Key("dt", false, true), Key.asc("id"))));
    CASES.put("sort_mixed", (t, u) -> t.sort(List.of(new Key("s", true, false), new Key("b", false, true), Key.desc("id"))));
    CASES.put("top_n", (t, u) -> t.topN(List.of(Key.desc("x"), Key.asc("id")), 25, 0));
    CASES.put("top_n_offset", (t, u) -> t.topN(List.of(Key.asc("s"), Key.desc("id")), 10, 7));
    CASES.put("limit_offset_over_sort", (t, u) -> t.sort(List.of(Key.asc("id"))).limit(300, 700));
    CASES.put("offset_only_over_sort", (t, u) -> t.sort(List.of(Key.asc("id"))).limit(2990, -1));
    CASES.put("limit_zero", (t, u) -> t.sort(List.of(Key.asc("id"))).limit(0, 0));
    CASES.put("union_all", (t, u) -> t.unionAll(u));
    CASES.put("union_all_aggregated", (t, u) -> t.unionAll(u).aggregate(List.of("s"), List.of(countStar("n"), sum("d", "sd")), AggMode.SPLIT));
  }

  @TestFactory
  Stream<DynamicTest> operatorsMatchDuckDb() {
    List<DynamicTest> tests = new ArrayList<>();
    int[] sizes = {0, 1, 3000};
    for (var c : CASES.entrySet()) {
      for (int n : sizes) {
        tests.add(DynamicTest.dynamicTest(c.getKey() + "_rows" + n, () -> {
          MemTable t = MemTable.random("t", n, 15, 11 + n);
          MemTable u = MemTable.random("u", n == 3000 ? 200 : n, 15, 23 + n).renamed("u", "u_");
          Rel rel = c.getValue().apply(t.rel(0), u.rel(1));
          MemCheck.check(rel, Map.of(0, t, 1, u), c.getKey(), 256);
        }));
      }
    }
    return tests.stream();
  }
}
