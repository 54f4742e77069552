package dev.squall.engine.differential;

import static dev.squall.engine.differential.EdgeCase.answer;
import static dev.squall.engine.differential.EdgeCase.error;
import static dev.squall.engine.differential.EdgeCase.prefixed;
import static dev.squall.engine.differential.HandWrittenQueries.m;
import static dev.squall.engine.testing.Rel.Agg.avg;
import static dev.squall.engine.testing.Rel.Agg.count;
import static dev.squall.engine.testing.Rel.Agg.countStar;
import static dev.squall.engine.testing.Rel.Agg.max;
import static dev.squall.engine.testing.Rel.Agg.min;
import static dev.squall.engine.testing.Rel.Agg.sum;
import static dev.squall.engine.testing.X.caseWhen;
import static dev.squall.engine.testing.X.coalesce;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.JoinType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Decimal edge cases over the {@code decs} table: precision 38 near its limit, arithmetic mixing
 * scales and physical widths (INT32, INT64, 128-bit), division rounded HALF_UP at the result scale,
 * casts to narrower decimals and to integers, comparisons across scales, decimal group and join
 * keys beyond the long range, and overflow, which both engines must refuse.
 *
 * <p>DuckDB divides decimals in DOUBLE, so a decimal quotient is checked against an exact DuckDB
 * expression on the unscaled integers: q = sign(n)·sign(b)·⌊(2|n| + |b|) / 2|b|⌋ with n = a·10^k,
 * i.e. HALF_UP (away from zero) at the quotient's scale.
 */
final class DecimalQueries {
  private DecimalQueries() {}

  private static final String C = "decimals";

  static Rel decs(TpchFixture f, int input) {
    return Rel.scan(f, "decs", input, "id", "d38_2", "d38_10", "big", "d18_4", "d9_3", "d5_0", "d20_0", "d10_5", "dk");
  }

  /** The engine's decimal division of a by b, with the exactly rounded quotient computed in DuckDB on HUGEINTs. */
  static X exactDiv(X a, X b) {
    X engine = a.div(b);
    int s = engine.type().scale();
    int k = b.type().scale() + s - a.type().scale();
    if (k < 0) {
      throw new IllegalArgumentException("quotient scale below the dividend's: " + engine.type());
    }
    String ua = unscaled(a);
    String ub = unscaled(b);
    String n = "(" + ua + " * CAST(" + BigDecimal.TEN.pow(k) + " AS HUGEINT))";
    String q = "(sign(" + n + ") * sign(" + ub + ") * ((abs(" + n + ") * 2 + abs(" + ub + ")) // (2 * abs(" + ub + "))))";
    String sql = "(CAST(" + q + " AS DECIMAL(38,0)) * CAST('" + BigDecimal.ONE.movePointLeft(s).toPlainString() + "' AS DECIMAL(" + (s + 1) + "," + s + ")))";
    return new X(engine.expr(), sql, engine.type());
  }

  /** DuckDB SQL for the unscaled integer of a decimal expression, as a HUGEINT. */
  private static String unscaled(X a) {
    int s = a.type().scale();
    return "CAST(CAST(" + a.sql() + " AS DECIMAL(38," + s + ")) * CAST(" + BigDecimal.TEN.pow(s) + " AS HUGEINT) AS HUGEINT)";
  }

  /**
   * a × b at the standard's result type DECIMAL(p1 + p2, s1 + s2). DuckDB narrows a product of two
   * 64-bit decimals to DECIMAL(18) and fails where that overflows, so its operands are widened first.
   */
  static X times(X a, X b) {
    X engine = a.times(b);
    String sql = "(CAST(" + a.sql() + " AS DECIMAL(38," + a.type().scale() + ")) * CAST(" + b.sql() + " AS DECIMAL(38," + b.type().scale() + ")))";
    return new X(engine.expr(), sql, engine.type());
  }

  private static Rel project(Rel t, Function<Rel, List<X>> exprs) {
    return t.project(r -> {
      var m = new java.util.LinkedHashMap<String, X>();
      m.put("id", r.col("id"));
      List<X> xs = exprs.apply(r);
      for (int i = 0; i < xs.size(); i++) {
        m.put("e" + i, xs.get(i));
      }
      return m;
    });
  }

  static List<EdgeCase> all(TpchFixture f) {
    List<EdgeCase> q = new ArrayList<>();
    Rel all = decs(f, 0);
    // The random rows (ids below 3000) stay far enough from each type's limit for arithmetic; the edge rows do not.
    Rel base = all.filter(r -> r.col("id").lt(lit(3000)));
    Rel edges = all.filter(r -> r.col("id").ge(lit(3000)));

    q.add(answer(C, "add_mixed_scales", project(base, r -> List.of(r.col("d38_2").plus(r.col("d38_10")), r.col("d9_3").minus(r.col("d18_4")),
        r.col("d5_0").plus(r.col("d10_5")), r.col("d9_3").plus(dec("0.5")), r.col("d18_4").minus(r.col("d38_10")), r.col("d20_0").plus(r.col("d9_3"))))));
    q.add(answer(C, "multiply_widths", project(base, r -> List.of(times(r.col("d9_3"), r.col("d10_5")), times(r.col("d18_4"), r.col("d9_3")),
        times(r.col("d38_10"), r.col("d5_0")), times(r.col("d18_4"), r.col("d18_4")), times(times(r.col("d5_0"), r.col("d5_0")), r.col("d5_0")),
        times(r.col("d20_0"), r.col("d9_3"))))));
    q.add(answer(C, "integer_decimal_mix", project(base, r -> List.of(r.col("d9_3").times(lit(3)), r.col("d18_4").plus(lit(7_000_000_000L)),
        r.col("d38_2").minus(r.col("id")), r.col("d5_0").plus(r.col("id")).times(lit(2))))));
    q.add(answer(C, "multiply_on_edges", project(edges, r -> List.of(times(r.col("d9_3"), r.col("d10_5")), times(r.col("d18_4"), r.col("d5_0")),
        times(r.col("d5_0"), r.col("d5_0")), r.col("big").minus(r.col("big")), times(r.col("d20_0"), r.col("d5_0"))))));
    q.add(answer(C, "negate_abs_edges", project(all, r -> List.of(r.col("d38_2").neg(), r.col("big").neg().abs(), r.col("d9_3").abs(), r.col("d20_0").neg()))));

    String[][] divisions = {{"d9_3", "d5_0"}, {"d18_4", "d9_3"}, {"d10_5", "d9_3"}, {"d38_2", "d9_3"}, {"d5_0", "d10_5"}, {"d20_0", "d9_3"}};
    for (String[] d : divisions) {
      q.add(answer(C, "divide_" + d[0] + "_by_" + d[1], project(base.filter(r -> r.col(d[1]).ne(dec("0"))),
          r -> List.of(exactDiv(r.col(d[0]), r.col(d[1]))))));
    }
    q.add(answer(C, "divide_rounding_ties", project(edges.filter(r -> r.col("d5_0").ne(dec("0"))), r -> List.of(exactDiv(r.col("d9_3"), r.col("d5_0")),
        exactDiv(r.col("d10_5"), r.col("d5_0")), exactDiv(dec("1.00"), r.col("d5_0")), exactDiv(r.col("d18_4"), r.col("d5_0"))))));
    q.add(answer(C, "divide_by_literal", project(base, r -> List.of(exactDiv(r.col("d18_4"), dec("3")), exactDiv(r.col("d9_3"), dec("-0.7")),
        exactDiv(r.col("d10_5"), dec("8.000"))))));
    q.add(answer(C, "divide_guarded_by_case", project(all, r -> List.of(caseWhen(SqlType.decimal(15, 9), null, r.col("d5_0").ne(dec("0")),
        exactDiv(r.col("d9_3"), r.col("d5_0")))))));
    q.add(answer(C, "modulo", project(base.filter(r -> r.col("d5_0").ne(dec("0"))), r -> List.of(r.col("d9_3").mod(r.col("d5_0"))))));

    q.add(answer(C, "cast_narrower_rounds_half_up", project(all, r -> List.of(r.col("d18_4").cast(SqlType.decimal(18, 2)),
        r.col("d38_10").cast(SqlType.decimal(38, 2)), r.col("d9_3").cast(SqlType.decimal(9, 0)), r.col("d10_5").cast(SqlType.decimal(10, 1)),
        r.col("d38_10").cast(SqlType.decimal(38, 9))))));
    q.add(answer(C, "cast_to_integers", project(all, r -> List.of(r.col("d9_3").cast(SqlType.INTEGER), r.col("d18_4").cast(SqlType.BIGINT),
        r.col("d10_5").cast(SqlType.INTEGER), r.col("d5_0").cast(SqlType.BIGINT)))));
    q.add(answer(C, "cast_wider_and_double", project(all, r -> List.of(r.col("d9_3").cast(SqlType.decimal(38, 10)), r.col("d5_0").cast(SqlType.decimal(20, 15)),
        r.col("d38_2").cast(SqlType.DOUBLE), r.col("d20_0").cast(SqlType.DOUBLE), r.col("big").cast(SqlType.DOUBLE)))));
    q.add(answer(C, "case_and_coalesce_across_scales", project(all, r -> List.of(
        caseWhen(SqlType.decimal(20, 5), r.col("d10_5").cast(SqlType.decimal(20, 5)), r.col("d9_3").gt(dec("0")), r.col("d9_3").cast(SqlType.decimal(20, 5))),
        coalesce(SqlType.decimal(38, 10), r.col("d38_10"), r.col("d18_4").cast(SqlType.decimal(38, 10)), dec("0.0000000001").cast(SqlType.decimal(38, 10)))))));

    q.add(answer(C, "compare_across_scales", all.filter(r -> r.col("d9_3").eq(r.col("d18_4"))).project(r -> m("id", r.col("id"), "d9_3", r.col("d9_3")))));
    q.add(answer(C, "compare_precision_38", base.filter(r -> r.col("d38_2").lt(r.col("d38_10"))).project(r -> m("id", r.col("id")))));
    q.add(answer(C, "in_mixed_scale_literals", all.filter(r -> r.col("d10_5").in(dec("2.5"), dec("-0.00005"), dec("0.00001"), dec("99999.99999")))
        .project(r -> m("id", r.col("id"), "d10_5", r.col("d10_5")))));
    q.add(answer(C, "between_scales", all.filter(r -> r.col("d9_3").between(dec("-1.5"), dec("2.50000"))).project(r -> m("id", r.col("id")))));
    q.add(answer(C, "compare_beyond_long", all.filter(r -> X.and(r.col("d20_0").gt(lit(Long.MAX_VALUE)).orElse(r.col("d20_0").lt(lit(Long.MIN_VALUE))),
        r.col("big").ge(dec("95000000000000000000000000000000000000")))).project(r -> m("id", r.col("id"), "d20_0", r.col("d20_0")))));

    List<Rel.Agg> aggs = List.of(countStar("n"), sum("d38_2", "s1"), sum("d38_10", "s2"), sum("d18_4", "s3"), sum("d9_3", "s4"), sum("d20_0", "s5"),
        min("big", "mn"), max("big", "mx"), min("d38_10", "mn2"), max("d9_3", "mx4"), avg("d38_2", "a1"), avg("d9_3", "a4"), count("d10_5", "c"));
    for (AggMode mode : AggMode.values()) {
      q.add(answer(C, "aggregate_global_" + mode, all.aggregate(List.of(), aggs, mode)));
      q.add(answer(C, "aggregate_by_precision_38_key_" + mode, all.aggregate(List.of("dk"), aggs, mode)));
      q.add(answer(C, "aggregate_by_int32_key_" + mode, all.aggregate(List.of("d5_0"), List.of(countStar("n"), sum("d10_5", "s")), mode)));
    }
    q.add(answer(C, "group_by_rescaled_key", all.project(r -> m("k", r.col("d9_3").cast(SqlType.decimal(9, 1)), "v", r.col("d18_4")))
        .aggregate(List.of("k"), List.of(countStar("n"), sum("v", "s")), AggMode.SPLIT)));
    q.add(answer(C, "sum_of_products", base.project(r -> m("k", r.col("dk"), "p", times(r.col("d5_0"), r.col("d9_3")), "q", times(r.col("d18_4"), r.col("d10_5"))))
        .aggregate(List.of("k"), List.of(sum("p", "sp"), sum("q", "sq"), avg("q", "aq")), AggMode.SPLIT)));

    Rel right = prefixed(decs(f, 1).filter(r -> r.col("id").lt(lit(100))), "b_");
    for (JoinType type : NullQueries.ALL_JOINS) {
      Rel j = all.join(right, type, List.of("dk"), List.of("b_dk"), null, type == JoinType.LEFT);
      q.add(answer(C, "join_on_precision_38_key_" + type, type == JoinType.SEMI || type == JoinType.ANTI
          ? j.aggregate(List.of("dk"), List.of(countStar("n"), sum("d18_4", "s")), AggMode.SINGLE)
          : j.aggregate(List.of("dk", "b_dk"), List.of(countStar("n"), count("b_id", "cb"), sum("b_d9_3", "s")), AggMode.SINGLE)));
    }
    q.add(answer(C, "sort_precision_38", all.project(r -> m("id", r.col("id"), "d38_10", r.col("d38_10"), "big", r.col("big")))
        .sort(List.of(Key.desc("d38_10"), Key.asc("id")))));
    q.add(answer(C, "top_n_mixed_keys", all.topN(List.of(Key.asc("d9_3"), Key.desc("d5_0"), Key.asc("id")), 40, 3)));

    // Overflow: both refuse (the edge rows are in every one of these inputs).
    q.add(error(C, "overflow_add_precision_38", project(all, r -> List.of(r.col("big").plus(r.col("big"))))));
    q.add(error(C, "overflow_multiply_by_integer", project(all, r -> List.of(r.col("big").times(lit(2))))));
    q.add(error(C, "overflow_multiply_precision_38", project(all, r -> List.of(r.col("d38_2").times(r.col("d38_2"))))));
    q.add(error(C, "overflow_multiply_three_int64", project(all, r -> List.of(r.col("d18_4").times(r.col("d18_4")).times(r.col("d18_4"))))));
    q.add(error(C, "overflow_rescale_in_add", project(all, r -> List.of(r.col("d38_2").plus(r.col("d38_10"))))));
    q.add(error(C, "overflow_cast_narrower_precision", project(all, r -> List.of(r.col("d9_3").cast(SqlType.decimal(5, 2))))));
    q.add(error(C, "overflow_cast_rounds_past_precision", project(edges, r -> List.of(r.col("d9_3").cast(SqlType.decimal(8, 2))))));
    q.add(error(C, "overflow_cast_scale_up", project(edges, r -> List.of(r.col("d38_10").cast(SqlType.decimal(30, 4))))));
    q.add(error(C, "overflow_cast_to_bigint", project(all, r -> List.of(r.col("d20_0").cast(SqlType.BIGINT)))));
    q.add(error(C, "overflow_cast_precision_38_to_bigint", project(all, r -> List.of(r.col("big").cast(SqlType.BIGINT)))));
    q.add(error(C, "overflow_integer_product", project(all, r -> List.of(r.col("d5_0").cast(SqlType.INTEGER).times(r.col("d5_0").cast(SqlType.INTEGER))
        .times(r.col("d5_0").cast(SqlType.INTEGER))))));
    q.add(error(C, "overflow_bigint_add", project(all, r -> List.of(r.col("id").plus(lit(Long.MAX_VALUE - 5))))));
    for (AggMode mode : AggMode.values()) {
      q.add(error(C, "overflow_sum_precision_38_" + mode, all.aggregate(List.of(), List.of(sum("big", "s")), mode)));
      q.add(error(C, "overflow_sum_precision_38_grouped_" + mode, all.aggregate(List.of("dk"), List.of(sum("big", "s"), countStar("n")), mode)));
    }
    return q;
  }
}
