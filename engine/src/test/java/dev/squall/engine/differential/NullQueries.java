package dev.squall.engine.differential;

import static dev.squall.engine.differential.EdgeCase.answer;
import static dev.squall.engine.differential.EdgeCase.prefixed;
import static dev.squall.engine.differential.HandWrittenQueries.m;
import static dev.squall.engine.testing.Rel.Agg.avg;
import static dev.squall.engine.testing.Rel.Agg.count;
import static dev.squall.engine.testing.Rel.Agg.countDistinct;
import static dev.squall.engine.testing.Rel.Agg.countStar;
import static dev.squall.engine.testing.Rel.Agg.max;
import static dev.squall.engine.testing.Rel.Agg.min;
import static dev.squall.engine.testing.Rel.Agg.sum;
import static dev.squall.engine.testing.X.and;
import static dev.squall.engine.testing.X.caseWhen;
import static dev.squall.engine.testing.X.coalesce;
import static dev.squall.engine.testing.X.date;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.or;
import static dev.squall.engine.testing.X.str;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.JoinType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * NULL-heavy queries over the {@code nulls} table: three-valued filters and logic, NULL-aware
 * functions, aggregates over NULLs and over all-NULL columns, NULL group keys, joins on nullable
 * keys (NULL never matches; outer joins keep the row), NULL ordering.
 */
final class NullQueries {
  private NullQueries() {}

  private static final String C = "nulls";

  static final JoinType[] ALL_JOINS = {JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL, JoinType.SEMI, JoinType.ANTI};

  static Rel nulls(TpchFixture f, int input) {
    return Rel.scan(f, "nulls", input, "id", "k", "g", "d", "x", "dt", "b", "s", "k2", "nul_s", "nul_d");
  }

  static List<EdgeCase> all(TpchFixture f) {
    List<EdgeCase> q = new ArrayList<>();
    Rel t = nulls(f, 0);

    Map<String, Function<Rel, X>> filters = new LinkedHashMap<>();
    filters.put("is_null", r -> r.col("k").isNull());
    filters.put("is_not_null_and_is_null", r -> and(r.col("k").isNotNull(), r.col("g").isNull()));
    filters.put("eq_drops_nulls", r -> r.col("k").eq(lit(3)));
    filters.put("not_eq", r -> r.col("k").eq(lit(3)).not());
    filters.put("ne_or_eq", r -> or(r.col("k").ne(lit(3)), r.col("g").eq(str("red"))));
    filters.put("is_not_false", r -> r.col("k").gt(lit(5)).isNotFalse());
    filters.put("is_true", r -> r.col("d").lt(dec("0")).isTrue());
    filters.put("boolean_column", r -> r.col("b"));
    filters.put("not_boolean_column", r -> r.col("b").not());
    filters.put("in_list_with_null", r -> r.col("k").in(lit(1), lit(2), X.nullOf(SqlType.INTEGER)));
    filters.put("not_in_list_with_null", r -> r.col("k").in(lit(1), lit(2), X.nullOf(SqlType.INTEGER)).not());
    filters.put("between_nullable", r -> r.col("d").between(dec("-100.00"), dec("100.00")));
    filters.put("distinct_from", r -> r.col("k").cast(SqlType.BIGINT).distinctFrom(r.col("k2")));
    filters.put("not_distinct_from_null", r -> r.col("g").notDistinctFrom(X.nullOf(SqlType.VARCHAR)));
    filters.put("or_of_nulls", r -> or(r.col("b"), r.col("d").gt(dec("500.00")), r.col("s").like("%a%")));
    filters.put("all_null_column", r -> r.col("nul_s").eq(str("x")).not());
    filters.put("coalesce_in_filter", r -> coalesce(SqlType.INTEGER, r.col("k"), lit(-1)).lt(lit(0)));
    for (var e : filters.entrySet()) {
      q.add(answer(C, "filter_" + e.getKey(), t.filter(e.getValue()).project(r -> m("id", r.col("id"), "k", r.col("k"), "g", r.col("g")))));
    }

    q.add(answer(C, "three_valued_logic", t.project(r -> m("id", r.col("id"),
        "a", and(r.col("b"), r.col("k").gt(lit(5))),
        "o", or(r.col("b"), r.col("k").gt(lit(5))),
        "n", and(r.col("b"), r.col("d").lt(dec("0"))).not(),
        "t", r.col("b").isTrue(),
        "nf", r.col("b").isNotFalse(),
        "i", r.col("k").in(lit(1), X.nullOf(SqlType.INTEGER))))));
    q.add(answer(C, "null_aware_functions", t.project(r -> m("id", r.col("id"),
        "c1", coalesce(SqlType.INTEGER, r.col("k"), lit(-1)),
        "c2", coalesce(SqlType.VARCHAR, r.col("nul_s"), r.col("g"), r.col("s"), str("none")),
        "n1", r.col("g").nullIf(str("")),
        "n2", r.col("k").nullIf(lit(0)),
        "cw", caseWhen(SqlType.VARCHAR, r.col("s"), r.col("k").isNull(), str("none"), r.col("k").gt(lit(5)), r.col("g")),
        "cn", caseWhen(SqlType.decimal(12, 2), null, r.col("b"), r.col("d"))))));
    q.add(answer(C, "arithmetic_on_nulls", t.project(r -> m("id", r.col("id"),
        "kd", r.col("k").plus(r.col("d")),
        "dx", r.col("d").cast(SqlType.DOUBLE).times(r.col("x")),
        "kk", r.col("k").times(r.col("k2")),
        "nd", r.col("nul_d").plus(r.col("d")),
        "neg", r.col("d").neg().abs(),
        "dt", r.col("dt").plusInterval(X.daysInterval(10)),
        "yr", r.col("dt").year()))));
    q.add(answer(C, "strings_on_nulls", t.project(r -> m("id", r.col("id"),
        "u", r.col("g").upper(),
        "c", r.col("g").concat(r.col("s")),
        "sub", r.col("s").substring(1, 3),
        "len", r.col("s").charLength(),
        "tr", r.col("s").trim("BOTH", "a"),
        "lk", r.col("s").like("%a%"),
        "cast", r.col("k").cast(SqlType.VARCHAR).concat(str("!"))))));

    q.add(answer(C, "constants_and_null_literals", t.project(r -> m("id", r.col("id"),
        "dn", r.col("d").plus(X.nullOf(SqlType.decimal(12, 2))),
        "cn", coalesce(SqlType.INTEGER, X.nullOf(SqlType.INTEGER), r.col("k"), lit(7)),
        "sn", str("x").concat(X.nullOf(SqlType.VARCHAR)),
        "tt", and(lit(1).eq(lit(1)), r.col("b")),
        "ff", or(lit(1).eq(lit(2)), r.col("b")),
        "cw", caseWhen(SqlType.INTEGER, lit(0), X.bool(true), r.col("k"))))));
    // Conditional evaluation: a branch or operand that would fail runs only on the rows that reach it.
    q.add(answer(C, "guarded_by_case", t.project(r -> m("id", r.col("id"),
        "q", caseWhen(SqlType.INTEGER, null, r.col("k").ne(lit(0)), lit(1000).div(r.col("k"))),
        "c", caseWhen(SqlType.INTEGER, lit(-1), r.col("g").eq(str("")), r.col("g").concat(str("5")).cast(SqlType.INTEGER))))));
    q.add(answer(C, "guarded_by_and_or", t.filter(r -> or(r.col("k").eq(lit(0)), and(r.col("k").isNotNull(), lit(1000).div(r.col("k")).gt(lit(150)))))
        .project(r -> m("id", r.col("id"), "k", r.col("k")))));

    // Aggregates: NULLs skipped, all-NULL groups give NULL sums and zero counts.
    List<Rel.Agg> aggs = List.of(countStar("n"), count("k", "ck"), sum("d", "sd"), avg("d", "ad"), min("g", "mg"), max("dt", "mdt"),
        min("s", "ms"), sum("x", "sx"), count("nul_s", "cn"), sum("nul_d", "sn"), max("nul_s", "mn"), avg("nul_d", "an"));
    List<List<String>> groupings = List.of(List.of(), List.of("k"), List.of("g"), List.of("k", "g"), List.of("b"), List.of("nul_s"));
    for (List<String> keys : groupings) {
      for (AggMode mode : AggMode.values()) {
        q.add(answer(C, "aggregate_by_" + String.join("_", keys.isEmpty() ? List.of("none") : keys) + "_" + mode, t.aggregate(keys, aggs, mode)));
      }
    }
    for (AggMode mode : AggMode.values()) {
      q.add(answer(C, "count_distinct_g_" + mode, t.aggregate(List.of(), List.of(countDistinct("g", "cd")), mode)));
      q.add(answer(C, "count_distinct_k_by_g_" + mode, t.aggregate(List.of("g"), List.of(countDistinct("k", "cd")), mode)));
      q.add(answer(C, "count_distinct_all_null_" + mode, t.aggregate(List.of("k"), List.of(countDistinct("nul_s", "cd")), mode)));
    }

    // Joins on nullable keys against a small slice of the same table; results summarised per key.
    Rel small = prefixed(nulls(f, 1).filter(r -> r.col("id").lt(lit(60))), "b_");
    for (JoinType type : ALL_JOINS) {
      for (boolean buildLeft : new boolean[] {false, true}) {
        Rel j = t.join(small, type, List.of("k"), List.of("b_k"), null, buildLeft);
        Rel summary = type == JoinType.SEMI || type == JoinType.ANTI
            ? j.aggregate(List.of("k"), List.of(countStar("n"), count("g", "cg"), sum("d", "sd")), AggMode.SINGLE)
            : j.aggregate(List.of("k", "b_k"), List.of(countStar("n"), count("id", "ci"), count("b_id", "cb"), sum("b_d", "sbd")), AggMode.SINGLE);
        q.add(answer(C, "join_nullable_key_" + type + (buildLeft ? "_buildLeft" : ""), summary));
      }
    }
    for (JoinType type : new JoinType[] {JoinType.LEFT, JoinType.FULL, JoinType.ANTI}) {
      Rel j = t.join(small, type, List.of("k", "g"), List.of("b_k", "b_g"), r -> r.col("d").gt(r.col("b_d")), false);
      q.add(answer(C, "join_two_nullable_keys_residual_" + type, j.aggregate(List.of("g"), List.of(countStar("n"), count("id", "ci")), AggMode.SPLIT)));
    }
    Rel tiny = prefixed(nulls(f, 1).filter(r -> r.col("id").lt(lit(25))), "b_");
    for (JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT, JoinType.FULL, JoinType.ANTI}) {
      Rel left = nulls(f, 0).filter(r -> r.col("id").between(lit(1990), lit(2100)));
      q.add(answer(C, "nested_loop_nullable_" + type, left.nestedLoopJoin(tiny, type, r -> r.col("k").lt(r.col("b_k")))));
    }

    // NULL ordering; the id makes every order total.
    q.add(answer(C, "sort_nulls_last", t.sort(List.of(Key.asc("k"), Key.asc("id")))));
    q.add(answer(C, "sort_desc_nulls_first", t.sort(List.of(Key.desc("g"), Key.asc("id")))));
    q.add(answer(C, "sort_mixed_null_order", t.project(r -> m("id", r.col("id"), "d", r.col("d"), "dt", r.col("dt"), "s", r.col("s")))
        .sort(List.of(new Key("dt", false, true), new Key("d", true, false), Key.asc("id")))));
    q.add(answer(C, "top_n_nulls", t.topN(List.of(new Key("d", true, false), Key.asc("id")), 20, 5)));
    q.add(answer(C, "top_n_nulls_first", t.topN(List.of(new Key("x", false, true), Key.desc("id")), 1200, 0)));
    q.add(answer(C, "union_all_aggregate", t.unionAll(nulls(f, 1).filter(r -> r.col("k").isNull()))
        .aggregate(List.of("g"), List.of(countStar("n"), count("k", "ck"), max("d", "md")), AggMode.SPLIT)));
    q.add(answer(C, "date_filter_nulls", t.filter(r -> r.col("dt").ge(date("1995-01-01")))
        .aggregate(List.of("b"), List.of(countStar("n"), min("dt", "mn")), AggMode.SINGLE)));
    return q;
  }
}
