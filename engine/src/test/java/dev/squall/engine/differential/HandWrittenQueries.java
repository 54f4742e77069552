package dev.squall.engine.differential;

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

/** Hand-written TPC-H-style queries (operator trees with their DuckDB SQL). */
final class HandWrittenQueries {
  private HandWrittenQueries() {}

  record Query(String name, Rel rel) {}

  static Map<String, X> m(Object... kv) {
    Map<String, X> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put((String) kv[i], (X) kv[i + 1]);
    }
    return out;
  }

  static List<Query> all(TpchFixture f) {
    List<Query> q = new ArrayList<>();
    Rel li = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity",
        "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
        "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment");

    // TPC-H Q1, single and split aggregation.
    for (AggMode mode : AggMode.values()) {
      Rel q1 = li.filter(r -> r.col("l_shipdate").le(date("1998-12-01").minusInterval(X.daysInterval(90))))
          .project(r -> m(
              "l_returnflag", r.col("l_returnflag"),
              "l_linestatus", r.col("l_linestatus"),
              "l_quantity", r.col("l_quantity"),
              "l_extendedprice", r.col("l_extendedprice"),
              "disc_price", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))),
              "charge", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))).times(dec("1").plus(r.col("l_tax"))),
              "l_discount", r.col("l_discount")))
          .aggregate(List.of("l_returnflag", "l_linestatus"), List.of(
              sum("l_quantity", "sum_qty"), sum("l_extendedprice", "sum_base_price"), sum("disc_price", "sum_disc_price"),
              sum("charge", "sum_charge"), avg("l_quantity", "avg_qty"), avg("l_extendedprice", "avg_price"),
              avg("l_discount", "avg_disc"), countStar("count_order")), mode)
          .sort(List.of(Key.asc("l_returnflag"), Key.asc("l_linestatus")));
      q.add(new Query("tpch_q1_" + mode, q1));
    }

    // TPC-H Q6.
    q.add(new Query("tpch_q6", li.filter(r -> and(
            r.col("l_shipdate").ge(date("1994-01-01")),
            r.col("l_shipdate").lt(date("1994-01-01").plusInterval(X.monthsInterval(12))),
            r.col("l_discount").between(dec("0.05"), dec("0.07")),
            r.col("l_quantity").lt(lit(24))))
        .project(r -> m("rev", r.col("l_extendedprice").times(r.col("l_discount"))))
        .aggregate(List.of(), List.of(sum("rev", "revenue")), AggMode.SINGLE)));

    // TPC-H Q3.
    Rel cust = Rel.scan(f, "customer", 1, "c_custkey", "c_mktsegment").filter(r -> r.col("c_mktsegment").eq(str("BUILDING")));
    Rel ord = Rel.scan(f, "orders", 2, "o_orderkey", "o_custkey", "o_orderdate", "o_shippriority")
        .filter(r -> r.col("o_orderdate").lt(date("1995-03-15")));
    Rel co = cust.join(ord, JoinType.INNER, List.of("c_custkey"), List.of("o_custkey"), null, false);
    Rel q3 = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_extendedprice", "l_discount", "l_shipdate")
        .filter(r -> r.col("l_shipdate").gt(date("1995-03-15")))
        .join(co, JoinType.INNER, List.of("l_orderkey"), List.of("o_orderkey"), null, false)
        .project(r -> m("l_orderkey", r.col("l_orderkey"), "o_orderdate", r.col("o_orderdate"),
            "o_shippriority", r.col("o_shippriority"),
            "rev", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount")))))
        .aggregate(List.of("l_orderkey", "o_orderdate", "o_shippriority"), List.of(sum("rev", "revenue")), AggMode.SPLIT)
        .topN(List.of(Key.desc("revenue"), Key.asc("o_orderdate"), Key.asc("l_orderkey")), 10, 0);
    q.add(new Query("tpch_q3", q3));

    // Q4-like: orders with a late lineitem (SEMI), counted by priority.
    Rel late = Rel.scan(f, "lineitem", 1, "l_orderkey", "l_commitdate", "l_receiptdate")
        .filter(r -> r.col("l_commitdate").lt(r.col("l_receiptdate")));
    for (boolean buildLeft : new boolean[] {false, true}) {
      q.add(new Query("tpch_q4_semi_buildLeft_" + buildLeft, Rel.scan(f, "orders", 0, "o_orderkey", "o_orderdate", "o_orderpriority")
          .filter(r -> and(r.col("o_orderdate").ge(date("1993-07-01")), r.col("o_orderdate").lt(date("1993-10-01"))))
          .join(late, JoinType.SEMI, List.of("o_orderkey"), List.of("l_orderkey"), null, buildLeft)
          .aggregate(List.of("o_orderpriority"), List.of(countStar("order_count")), AggMode.SINGLE)
          .sort(List.of(Key.asc("o_orderpriority")))));
    }

    // Customers without orders (ANTI), both build sides.
    for (boolean buildLeft : new boolean[] {false, true}) {
      q.add(new Query("customers_without_orders_buildLeft_" + buildLeft, Rel.scan(f, "customer", 0, "c_custkey", "c_name")
          .join(Rel.scan(f, "orders", 1, "o_custkey"), JoinType.ANTI, List.of("c_custkey"), List.of("o_custkey"), null, buildLeft)));
    }

    // Q13-like: LEFT join with a residual, count per customer, distribution.
    for (boolean buildLeft : new boolean[] {false, true}) {
      Rel co13 = Rel.scan(f, "customer", 0, "c_custkey")
          .join(Rel.scan(f, "orders", 1, "o_orderkey", "o_custkey", "o_comment"), JoinType.LEFT, List.of("c_custkey"), List.of("o_custkey"),
              r -> r.col("o_comment").like("%special%requests%").not(), buildLeft)
          .aggregate(List.of("c_custkey"), List.of(count("o_orderkey", "c_count")), AggMode.SPLIT)
          .aggregate(List.of("c_count"), List.of(countStar("custdist")), AggMode.SINGLE)
          .sort(List.of(Key.desc("custdist"), Key.desc("c_count")));
      q.add(new Query("tpch_q13_buildLeft_" + buildLeft, co13));
    }

    // Q14-like promo revenue, computed in doubles.
    Rel part = Rel.scan(f, "part", 1, "p_partkey", "p_type");
    q.add(new Query("tpch_q14", Rel.scan(f, "lineitem", 0, "l_partkey", "l_extendedprice", "l_discount", "l_shipdate")
        .filter(r -> and(r.col("l_shipdate").ge(date("1995-09-01")), r.col("l_shipdate").lt(date("1995-10-01"))))
        .join(part, JoinType.INNER, List.of("l_partkey"), List.of("p_partkey"), null, false)
        .project(r -> {
          X rev = r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount")));
          return m("promo", caseWhen(rev.type(), dec("0"), r.col("p_type").like("PROMO%"), rev), "rev", rev);
        })
        .aggregate(List.of(), List.of(sum("promo", "promo"), sum("rev", "rev")), AggMode.SPLIT)
        .project(r -> m("promo_revenue", X.dbl(100.0).times(r.col("promo").cast(SqlType.DOUBLE)).div(r.col("rev").cast(SqlType.DOUBLE))))));

    // Q19-like disjunctive filter on a join.
    q.add(new Query("tpch_q19", Rel.scan(f, "lineitem", 0, "l_partkey", "l_quantity", "l_extendedprice", "l_discount", "l_shipmode", "l_shipinstruct")
        .join(Rel.scan(f, "part", 1, "p_partkey", "p_brand", "p_container", "p_size"), JoinType.INNER,
            List.of("l_partkey"), List.of("p_partkey"), r -> or(
                and(r.col("p_brand").eq(str("Brand#12")), r.col("p_container").in(str("SM CASE"), str("SM BOX"), str("SM PACK"), str("SM PKG")),
                    r.col("l_quantity").between(dec("1"), dec("11")), r.col("p_size").between(lit(1), lit(5))),
                and(r.col("p_brand").eq(str("Brand#23")), r.col("p_container").in(str("MED BAG"), str("MED BOX"), str("MED PKG"), str("MED PACK")),
                    r.col("l_quantity").between(dec("10"), dec("20")), r.col("p_size").between(lit(1), lit(10))),
                and(r.col("p_brand").eq(str("Brand#34")), r.col("l_quantity").between(dec("20"), dec("30")))), false)
        .filter(r -> r.col("l_shipmode").in(str("AIR"), str("AIR REG")))
        .project(r -> m("rev", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount")))))
        .aggregate(List.of(), List.of(sum("rev", "revenue"), countStar("n")), AggMode.SINGLE)));

    // Q5-like five-way join with region filter.
    Rel nation = Rel.scan(f, "nation", 3, "n_nationkey", "n_name", "n_regionkey");
    Rel region = Rel.scan(f, "region", 4, "r_regionkey", "r_name").filter(r -> r.col("r_name").eq(str("ASIA")));
    Rel nr = nation.join(region, JoinType.INNER, List.of("n_regionkey"), List.of("r_regionkey"), null, false);
    Rel supp = Rel.scan(f, "supplier", 2, "s_suppkey", "s_nationkey").join(nr, JoinType.INNER, List.of("s_nationkey"), List.of("n_nationkey"), null, false);
    Rel ord5 = Rel.scan(f, "orders", 1, "o_orderkey", "o_custkey", "o_orderdate")
        .filter(r -> and(r.col("o_orderdate").ge(date("1994-01-01")), r.col("o_orderdate").lt(date("1995-01-01"))));
    Rel cust5 = Rel.scan(f, "customer", 5, "c_custkey", "c_nationkey");
    Rel q5 = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_suppkey", "l_extendedprice", "l_discount")
        .join(ord5, JoinType.INNER, List.of("l_orderkey"), List.of("o_orderkey"), null, false)
        .join(supp, JoinType.INNER, List.of("l_suppkey"), List.of("s_suppkey"), null, false)
        .join(cust5, JoinType.INNER, List.of("o_custkey", "s_nationkey"), List.of("c_custkey", "c_nationkey"), null, true)
        .project(r -> m("n_name", r.col("n_name"), "rev", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount")))))
        .aggregate(List.of("n_name"), List.of(sum("rev", "revenue")), AggMode.SPLIT)
        .sort(List.of(Key.desc("revenue")));
    q.add(new Query("tpch_q5", q5));

    // FULL and RIGHT outer joins on a non-unique key with a residual.
    for (JoinType t : new JoinType[] {JoinType.FULL, JoinType.RIGHT, JoinType.LEFT, JoinType.INNER}) {
      for (boolean buildLeft : new boolean[] {false, true}) {
        Rel s = Rel.scan(f, "supplier", 0, "s_suppkey", "s_nationkey", "s_acctbal").filter(r -> r.col("s_suppkey").lt(lit(60)));
        Rel c = Rel.scan(f, "customer", 1, "c_custkey", "c_nationkey", "c_acctbal").filter(r -> r.col("c_custkey").lt(lit(200)));
        q.add(new Query("outer_" + t + "_buildLeft_" + buildLeft, s.join(c, t, List.of("s_nationkey"), List.of("c_nationkey"),
            r -> r.col("s_acctbal").gt(r.col("c_acctbal")), buildLeft)));
      }
    }

    // Nested-loop joins: inequality join and cross join with aggregates.
    for (JoinType t : new JoinType[] {JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL, JoinType.SEMI, JoinType.ANTI}) {
      Rel a = Rel.scan(f, "nation", 0, "n_nationkey", "n_name", "n_regionkey");
      Rel b = Rel.scan(f, "region", 1, "r_regionkey", "r_name");
      q.add(new Query("nested_loop_" + t, a.nestedLoopJoin(b, t, r -> and(r.col("n_regionkey").lt(r.col("r_regionkey")),
          r.col("r_name").ne(str("ASIA"))))));
    }
    q.add(new Query("cross_join_count", Rel.scan(f, "nation", 0, "n_nationkey").nestedLoopJoin(Rel.scan(f, "region", 1, "r_regionkey"),
        JoinType.INNER, null).aggregate(List.of(), List.of(countStar("n"), sum("n_nationkey", "s")), AggMode.SINGLE)));

    // COUNT(DISTINCT) through a distinct step, single and split.
    for (AggMode mode : AggMode.values()) {
      q.add(new Query("count_distinct_" + mode, Rel.scan(f, "lineitem", 0, "l_suppkey", "l_returnflag")
          .aggregate(List.of("l_returnflag"), List.of(countDistinct("l_suppkey", "suppliers")), mode)));
      q.add(new Query("global_count_distinct_" + mode, Rel.scan(f, "orders", 0, "o_custkey")
          .aggregate(List.of(), List.of(countDistinct("o_custkey", "customers")), mode)));
    }

    // Aggregates over empty input: one row with NULL sums and zero counts.
    for (AggMode mode : AggMode.values()) {
      q.add(new Query("empty_global_aggregate_" + mode, Rel.scan(f, "orders", 0, "o_totalprice", "o_orderdate")
          .filter(r -> r.col("o_orderdate").lt(date("1900-01-01")))
          .aggregate(List.of(), List.of(sum("o_totalprice", "s"), countStar("n"), min("o_orderdate", "mn"), avg("o_totalprice", "a")), mode)));
      q.add(new Query("empty_grouped_aggregate_" + mode, Rel.scan(f, "orders", 0, "o_orderstatus", "o_totalprice", "o_orderdate")
          .filter(r -> r.col("o_orderdate").lt(date("1900-01-01")))
          .aggregate(List.of("o_orderstatus"), List.of(sum("o_totalprice", "s")), mode)));
    }

    // NULL-producing expressions grouped and counted (NULL group keys form one group).
    q.add(new Query("null_group_keys", Rel.scan(f, "orders", 0, "o_orderkey", "o_orderstatus", "o_totalprice")
        .project(r -> m("k", r.col("o_orderstatus").nullIf(str("F")), "p", r.col("o_totalprice"),
            "maybe", caseWhen(SqlType.decimal(15, 2), null, r.col("o_orderkey").mod(lit(3)).eq(lit(0)), r.col("o_totalprice"))))
        .aggregate(List.of("k"), List.of(count("maybe", "c"), sum("maybe", "s"), max("maybe", "mx"), min("maybe", "mn"), countStar("n")), AggMode.SPLIT)));

    // Strings: LIKE, SUBSTRING, UPPER/LOWER, TRIM, ||, CHAR_LENGTH, COALESCE.
    q.add(new Query("string_functions", Rel.scan(f, "customer", 0, "c_custkey", "c_name", "c_phone", "c_mktsegment", "c_comment")
        .filter(r -> and(r.col("c_custkey").lt(lit(400)), or(r.col("c_comment").like("%ly%"), r.col("c_phone").like("1_-%"))))
        .project(r -> m("c_custkey", r.col("c_custkey"),
            "prefix", r.col("c_phone").substring(1, 2),
            "seg", r.col("c_mktsegment").lower().concat(str("/")).concat(r.col("c_mktsegment").upper()),
            "trimmed", r.col("c_name").trim("LEADING", "Customer#0"),
            "len", r.col("c_comment").charLength(),
            "co", coalesce(SqlType.VARCHAR, r.col("c_mktsegment").nullIf(str("BUILDING")), str("none")),
            "esc", r.col("c_comment").like("%!%%", "!").orElse(r.col("c_comment").like("%ly\\_%", "\\"))))));
    return q;
  }
}
