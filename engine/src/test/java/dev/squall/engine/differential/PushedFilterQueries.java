package dev.squall.engine.differential;

import static dev.squall.engine.differential.EdgeCase.answer;
import static dev.squall.engine.testing.Rel.Agg.count;
import static dev.squall.engine.testing.Rel.Agg.countStar;
import static dev.squall.engine.testing.Rel.Agg.max;
import static dev.squall.engine.testing.Rel.Agg.min;
import static dev.squall.engine.testing.Rel.Agg.sum;
import static dev.squall.engine.testing.X.and;
import static dev.squall.engine.testing.X.date;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.or;
import static dev.squall.engine.testing.X.str;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.X;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;

/**
 * Filters pushed into the scan, as a planner pushes them: the scan gets the Iceberg expression (it
 * may skip row groups and data files by their statistics, dictionaries or bloom filters, never
 * rows it cannot rule out) and the exact condition runs in a Filter above. Skipping must never
 * lose a matching row: over NULLs, all-NULL columns, multi-byte string bounds, decimals of every
 * width, and TPC-H files whose row groups are ordered by key.
 */
final class PushedFilterQueries {
  private PushedFilterQueries() {}

  private static final String C = "pushed";

  private record Pushed(String name, String table, Expression iceberg, Function<Rel, X> exact) {}

  private static Pushed p(String name, String table, Expression iceberg, Function<Rel, X> exact) {
    return new Pushed(name, table, iceberg, exact);
  }

  private static final String[] NULLS = {"id", "k", "g", "d", "x", "dt", "b", "s", "k2", "nul_s"};
  private static final String[] STRS = {"id", "mode", "txt", "code", "num"};
  private static final String[] DECS = {"id", "d38_2", "d38_10", "big", "d18_4", "d9_3", "d5_0", "dk", "d10_5"};

  static List<EdgeCase> all(TpchFixture f) {
    List<Pushed> ps = new ArrayList<>();
    ps.add(p("is_null", "nulls", Expressions.isNull("k"), r -> r.col("k").isNull()));
    ps.add(p("not_null", "nulls", Expressions.notNull("g"), r -> r.col("g").isNotNull()));
    ps.add(p("equal_nullable", "nulls", Expressions.equal("k", 3), r -> r.col("k").eq(lit(3))));
    ps.add(p("not_equal_nullable", "nulls", Expressions.notEqual("k", 3), r -> r.col("k").ne(lit(3))));
    ps.add(p("in_nullable", "nulls", Expressions.in("k", 1, 2), r -> r.col("k").in(lit(1), lit(2))));
    ps.add(p("not_in_nullable", "nulls", Expressions.notIn("k", 1, 2), r -> r.col("k").in(lit(1), lit(2)).not()));
    ps.add(p("decimal_less", "nulls", Expressions.lessThan("d", new BigDecimal("0.00")), r -> r.col("d").lt(dec("0.00"))));
    ps.add(p("date_at_least", "nulls", Expressions.greaterThanOrEqual("dt", "1999-01-01"), r -> r.col("dt").ge(date("1999-01-01"))));
    ps.add(p("all_null_is_null", "nulls", Expressions.isNull("nul_s"), r -> r.col("nul_s").isNull()));
    ps.add(p("all_null_not_null", "nulls", Expressions.notNull("nul_s"), r -> r.col("nul_s").isNotNull()));
    ps.add(p("boolean_true", "nulls", Expressions.equal("b", true), r -> r.col("b").eq(X.bool(true))));
    ps.add(p("starts_with_nullable", "nulls", Expressions.startsWith("s", "alpha"), r -> r.col("s").like("alpha%")));
    ps.add(p("not_starts_with_nullable", "nulls", Expressions.notStartsWith("s", "alpha"), r -> r.col("s").like("alpha%").not()));
    ps.add(p("or_is_null", "nulls", Expressions.or(Expressions.isNull("k"), Expressions.equal("g", "red")),
        r -> or(r.col("k").isNull(), r.col("g").eq(str("red")))));
    ps.add(p("and_long_double", "nulls", Expressions.and(Expressions.greaterThan("k2", 400L), Expressions.lessThan("x", 10.0)),
        r -> and(r.col("k2").gt(lit(400L)), r.col("x").lt(X.dbl(10.0)))));
    ps.add(p("one_row_in_last_file", "nulls", Expressions.equal("id", 10500L), r -> r.col("id").eq(lit(10500L))));
    ps.add(p("dictionary_starts_with", "strs", Expressions.startsWith("mode", "A"), r -> r.col("mode").like("A%")));
    ps.add(p("dictionary_equal_multibyte", "strs", Expressions.equal("mode", "épsilon"), r -> r.col("mode").eq(str("épsilon"))));
    ps.add(p("dictionary_equal_absent", "strs", Expressions.equal("mode", "NOPE"), r -> r.col("mode").eq(str("NOPE"))));
    ps.add(p("dictionary_in", "strs", Expressions.in("mode", "日本", "a%b", "AIR "), r -> r.col("mode").in(str("日本"), str("a%b"), str("AIR "))));
    ps.add(p("dictionary_not_equal", "strs", Expressions.notEqual("mode", "AIR"), r -> r.col("mode").ne(str("AIR"))));
    ps.add(p("starts_with_emoji", "strs", Expressions.startsWith("txt", "😀"), r -> r.col("txt").like("😀%")));
    ps.add(p("greater_than_multibyte", "strs", Expressions.greaterThan("txt", "日"), r -> r.col("txt").gt(str("日"))));
    ps.add(p("less_than_prefix", "strs", Expressions.lessThan("code", "AB"), r -> r.col("code").lt(str("AB"))));
    ps.add(p("starts_with_long_prefix", "strs", Expressions.startsWith("code", "CD-99"), r -> r.col("code").like("CD-99%")));
    ps.add(p("precision_38_greater", "decs", Expressions.greaterThan("big", new BigDecimal("95000000000000000000000000000000000000")),
        r -> r.col("big").gt(dec("95000000000000000000000000000000000000"))));
    ps.add(p("precision_38_scale_10_less", "decs", Expressions.lessThan("d38_10", new BigDecimal("-1000000.0000000000")),
        r -> r.col("d38_10").lt(dec("-1000000.0000000000"))));
    ps.add(p("precision_38_key_equal", "decs", Expressions.equal("dk", new BigDecimal("0.00")), r -> r.col("dk").eq(dec("0.00"))));
    ps.add(p("int32_decimal_in", "decs", Expressions.in("d5_0", new BigDecimal("0"), new BigDecimal("7"), new BigDecimal("99999")),
        r -> r.col("d5_0").in(dec("0"), dec("7"), dec("99999"))));
    ps.add(p("int32_decimal_range", "decs", Expressions.and(Expressions.greaterThanOrEqual("d9_3", new BigDecimal("-1.000")),
        Expressions.lessThanOrEqual("d9_3", new BigDecimal("2.500"))), r -> r.col("d9_3").between(dec("-1.000"), dec("2.500"))));
    ps.add(p("int64_decimal_is_null", "decs", Expressions.isNull("d18_4"), r -> r.col("d18_4").isNull()));
    ps.add(p("ordered_key_range", "lineitem", Expressions.and(Expressions.greaterThanOrEqual("l_orderkey", 30000L),
        Expressions.lessThan("l_orderkey", 30100L)), r -> and(r.col("l_orderkey").ge(lit(30000L)), r.col("l_orderkey").lt(lit(30100L)))));
    ps.add(p("ordered_key_below", "lineitem", Expressions.lessThan("l_orderkey", 2000L), r -> r.col("l_orderkey").lt(lit(2000L))));
    ps.add(p("tpch_dictionary_equal", "lineitem", Expressions.equal("l_shipmode", "AIR"), r -> r.col("l_shipmode").eq(str("AIR"))));
    ps.add(p("tpch_dictionary_absent", "lineitem", Expressions.equal("l_shipmode", "NOPE"), r -> r.col("l_shipmode").eq(str("NOPE"))));
    ps.add(p("tpch_dictionary_in", "lineitem", Expressions.in("l_returnflag", "A", "R"), r -> r.col("l_returnflag").in(str("A"), str("R"))));
    ps.add(p("tpch_text_starts_with", "lineitem", Expressions.startsWith("l_comment", "zzz"), r -> r.col("l_comment").like("zzz%")));
    ps.add(p("tpch_date_edge", "lineitem", Expressions.greaterThan("l_shipdate", "1998-11-30"), r -> r.col("l_shipdate").gt(date("1998-11-30"))));
    ps.add(p("tpch_decimal", "lineitem", Expressions.greaterThanOrEqual("l_quantity", new BigDecimal("50.00")), r -> r.col("l_quantity").ge(dec("50.00"))));
    ps.add(p("tpch_orders_point", "orders", Expressions.equal("o_orderkey", 35000L), r -> r.col("o_orderkey").eq(lit(35000L))));
    ps.add(p("tpch_orders_status", "orders", Expressions.equal("o_orderstatus", "P"), r -> r.col("o_orderstatus").eq(str("P"))));

    List<EdgeCase> q = new ArrayList<>();
    for (Pushed p : ps) {
      String[] cols = switch (p.table()) {
        case "nulls" -> NULLS;
        case "strs" -> STRS;
        case "decs" -> DECS;
        case "lineitem" -> new String[] {"l_orderkey", "l_linenumber", "l_quantity", "l_returnflag", "l_shipmode", "l_shipdate", "l_comment"};
        default -> new String[] {"o_orderkey", "o_orderstatus", "o_orderdate", "o_totalprice"};
      };
      Rel scan = Rel.scan(f, p.table(), 0, cols).withScanIcebergFilter(ExpressionParser.toJson(p.iceberg()));
      Rel filtered = scan.filter(p.exact());
      String first = cols[0];
      String second = cols[1];
      q.add(answer(C, p.name(), filtered.aggregate(List.of(), List.of(countStar("n"), count(second, "c"), sum(first, "s"), min(second, "mn"),
          max(cols[cols.length - 1], "mx")), AggMode.SINGLE)));
    }
    return q;
  }
}
