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
import static dev.squall.engine.testing.X.date;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.str;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.JoinType;
import java.util.ArrayList;
import java.util.List;

/**
 * Many-batch inputs: more than one engine batch (8,192 rows) flows through every operator — scan,
 * filter, project, aggregation with tens of thousands of groups, joins whose output or build side
 * spans many batches and whose keys match hundreds of rows, nested-loop joins, sort, top-N, limit
 * and union — over TPC-H lineitem (60,175 rows) and orders (15,000).
 */
final class ManyBatchQueries {
  private ManyBatchQueries() {}

  private static final String C = "many_batches";

  private static Rel lineitem(TpchFixture f, String... columns) {
    return Rel.scan(f, "lineitem", 0, columns);
  }

  static List<EdgeCase> all(TpchFixture f) {
    List<EdgeCase> q = new ArrayList<>();
    Rel li = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_discount", "l_returnflag",
        "l_shipdate", "l_shipmode", "l_comment");

    q.add(answer(C, "project_every_row", li.project(r -> m("l_orderkey", r.col("l_orderkey"), "l_linenumber", r.col("l_linenumber"),
        "disc", r.col("l_extendedprice").times(dec("1").minus(r.col("l_discount"))), "mode", r.col("l_shipmode").lower(),
        "ship", r.col("l_shipdate").plusInterval(X.monthsInterval(1)),
        "c", caseWhen(SqlType.VARCHAR, r.col("l_comment").substring(1, 5), r.col("l_quantity").gt(dec("25")), r.col("l_returnflag"))))));
    // The rest read only the columns they need: the scan is the larger part of their cost.
    q.add(answer(C, "filter_keeps_most", lineitem(f, "l_orderkey", "l_linenumber", "l_quantity").filter(r -> r.col("l_quantity").gt(dec("1")))
        .project(r -> m("l_orderkey", r.col("l_orderkey"), "l_linenumber", r.col("l_linenumber"), "q", r.col("l_quantity")))));
    q.add(answer(C, "filter_every_other_batch", lineitem(f, "l_orderkey", "l_quantity", "l_comment").filter(r -> r.col("l_orderkey").mod(lit(64)).lt(lit(32)))
        .aggregate(List.of(), List.of(countStar("n"), sum("l_quantity", "q"), max("l_comment", "mc")), AggMode.SINGLE)));

    for (AggMode mode : AggMode.values()) {
      q.add(answer(C, "group_by_orderkey_" + mode, lineitem(f, "l_orderkey", "l_extendedprice", "l_discount", "l_shipdate", "l_shipmode")
          .aggregate(List.of("l_orderkey"),
          List.of(countStar("n"), sum("l_extendedprice", "s"), avg("l_discount", "a"), min("l_shipdate", "mn"), max("l_shipmode", "mx")), mode)));
      q.add(answer(C, "count_distinct_many_" + mode, lineitem(f, "l_returnflag", "l_partkey")
          .aggregate(List.of("l_returnflag"), List.of(countDistinct("l_partkey", "cd")), mode)));
    }
    q.add(answer(C, "group_by_every_row", lineitem(f, "l_orderkey", "l_linenumber", "l_quantity")
        .aggregate(List.of("l_orderkey", "l_linenumber"), List.of(sum("l_quantity", "q")), AggMode.SPLIT)));
    q.add(answer(C, "group_by_string", lineitem(f, "l_comment", "l_orderkey")
        .aggregate(List.of("l_comment"), List.of(countStar("n"), min("l_orderkey", "mn")), AggMode.SINGLE)));
    q.add(answer(C, "group_by_two_keys", lineitem(f, "l_partkey", "l_suppkey", "l_quantity").aggregate(List.of("l_partkey", "l_suppkey"), List.of(countStar("n"), sum("l_quantity", "q")), AggMode.SINGLE)));
    q.add(answer(C, "global_count_distinct_strings", lineitem(f, "l_comment").aggregate(List.of(), List.of(countDistinct("l_comment", "cd")), AggMode.SPLIT)));
    q.add(answer(C, "group_by_nullable_many", NullQueries.nulls(f, 0).aggregate(List.of("k2", "g"),
        List.of(countStar("n"), sum("d", "sd"), max("s", "ms")), AggMode.SPLIT)));

    // Joins: large build sides, outputs of many batches, keys with hundreds of matches.
    Rel lines = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_returnflag", "l_extendedprice", "l_shipdate").filter(r -> r.col("l_shipdate").gt(date("1994-01-01")));
    Rel orders = Rel.scan(f, "orders", 1, "o_orderkey", "o_orderstatus", "o_orderdate").filter(r -> r.col("o_orderdate").lt(date("1996-06-01")));
    for (JoinType type : NullQueries.ALL_JOINS) {
      for (boolean buildLeft : new boolean[] {false, true}) {
        Rel j = lines.join(orders, type, List.of("l_orderkey"), List.of("o_orderkey"), null, buildLeft);
        q.add(answer(C, "join_lineitem_orders_" + type + (buildLeft ? "_buildLeft" : ""), type == JoinType.SEMI || type == JoinType.ANTI
            ? j.aggregate(List.of("l_returnflag"), List.of(countStar("n"), sum("l_extendedprice", "s")), AggMode.SINGLE)
            : j.aggregate(List.of("o_orderstatus", "l_returnflag"), List.of(countStar("n"), count("l_orderkey", "cl"), count("o_orderkey", "co"),
                sum("l_extendedprice", "s")), AggMode.SPLIT)));
      }
    }
    q.add(answer(C, "join_rows_out", Rel.scan(f, "lineitem", 0, "l_orderkey", "l_linenumber", "l_quantity")
        .join(Rel.scan(f, "orders", 1, "o_orderkey", "o_orderdate"), JoinType.INNER, List.of("l_orderkey"), List.of("o_orderkey"), null, false)));
    q.add(answer(C, "join_residual_rows_out", Rel.scan(f, "lineitem", 0, "l_orderkey", "l_linenumber", "l_shipdate")
        .join(Rel.scan(f, "orders", 1, "o_orderkey", "o_orderdate"), JoinType.LEFT, List.of("l_orderkey"), List.of("o_orderkey"),
            r -> r.col("l_shipdate").lt(r.col("o_orderdate").plusInterval(X.daysInterval(60))), true)));
    Rel supplier = Rel.scan(f, "supplier", 1, "s_suppkey", "s_nationkey");
    q.add(answer(C, "probe_matches_hundreds", supplier.join(Rel.scan(f, "lineitem", 0, "l_suppkey", "l_quantity"), JoinType.INNER,
        List.of("s_suppkey"), List.of("l_suppkey"), null, false)
        .aggregate(List.of("s_nationkey"), List.of(countStar("n"), sum("l_quantity", "q")), AggMode.SINGLE)));
    for (boolean buildLeft : new boolean[] {false, true}) {
      Rel c1 = Rel.scan(f, "customer", 0, "c_custkey", "c_nationkey", "c_acctbal");
      Rel c2 = prefixed(Rel.scan(f, "customer", 1, "c_custkey", "c_nationkey", "c_acctbal"), "b_");
      q.add(answer(C, "self_join_many_to_many" + (buildLeft ? "_buildLeft" : ""), c1.join(c2, JoinType.INNER, List.of("c_nationkey"), List.of("b_c_nationkey"),
          r -> r.col("c_acctbal").gt(r.col("b_c_acctbal")), buildLeft)
          .aggregate(List.of("c_nationkey"), List.of(countStar("n"), sum("b_c_acctbal", "s"), max("b_c_custkey", "mx")), AggMode.SPLIT)));
    }
    Rel o1 = Rel.scan(f, "orders", 0, "o_orderkey", "o_orderdate", "o_totalprice");
    Rel o2 = prefixed(Rel.scan(f, "orders", 1, "o_orderkey", "o_orderdate"), "b_");
    q.add(answer(C, "self_join_on_date_full", o1.join(o2, JoinType.FULL, List.of("o_orderdate"), List.of("b_o_orderdate"),
        r -> r.col("o_orderkey").ne(r.col("b_o_orderkey")), false)
        .aggregate(List.of(), List.of(countStar("n"), count("o_orderkey", "c1"), count("b_o_orderkey", "c2"), sum("o_totalprice", "s")), AggMode.SINGLE)));

    // Nested-loop joins producing many batches.
    Rel cust = Rel.scan(f, "customer", 0, "c_custkey", "c_nationkey");
    Rel nation = Rel.scan(f, "nation", 1, "n_nationkey", "n_name");
    for (JoinType type : NullQueries.ALL_JOINS) {
      Rel j = cust.nestedLoopJoin(nation, type, r -> r.col("c_nationkey").lt(r.col("n_nationkey")));
      q.add(answer(C, "nested_loop_" + type, type == JoinType.SEMI || type == JoinType.ANTI
          ? j.aggregate(List.of("c_nationkey"), List.of(countStar("n")), AggMode.SINGLE)
          : j.aggregate(List.of("n_name"), List.of(countStar("n"), count("c_custkey", "cc"), max("c_custkey", "mx")), AggMode.SINGLE)));
    }
    q.add(answer(C, "cross_join_orders_region", Rel.scan(f, "orders", 0, "o_orderkey", "o_totalprice")
        .nestedLoopJoin(Rel.scan(f, "region", 1, "r_name"), JoinType.INNER, null)
        .aggregate(List.of("r_name"), List.of(countStar("n"), sum("o_totalprice", "s")), AggMode.SPLIT)));

    // Sort, top-N, limit and union over many batches.
    Rel narrow = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_linenumber", "l_shipdate", "l_extendedprice", "l_shipmode");
    q.add(answer(C, "sort_every_row", narrow.sort(List.of(Key.asc("l_shipdate"), Key.desc("l_extendedprice"), Key.asc("l_orderkey"), Key.asc("l_linenumber")))));
    q.add(answer(C, "sort_by_string", Rel.scan(f, "lineitem", 0, "l_orderkey", "l_linenumber", "l_comment")
        .sort(List.of(Key.desc("l_comment"), Key.asc("l_orderkey"), Key.asc("l_linenumber")))));
    q.add(answer(C, "top_n_larger_than_a_batch", narrow.topN(List.of(Key.asc("l_shipmode"), Key.desc("l_orderkey"), Key.asc("l_linenumber")), 10000, 5000)));
    q.add(answer(C, "limit_across_batches", narrow.sort(List.of(Key.asc("l_orderkey"), Key.asc("l_linenumber"))).limit(8000, 9000)));
    q.add(answer(C, "union_all_many", narrow.unionAll(Rel.scan(f, "lineitem", 1, "l_orderkey", "l_linenumber", "l_shipdate", "l_extendedprice", "l_shipmode")
        .filter(r -> r.col("l_shipmode").eq(str("AIR"))))
        .aggregate(List.of("l_shipmode"), List.of(countStar("n"), sum("l_extendedprice", "s")), AggMode.SPLIT)));
    q.add(answer(C, "strings_over_many_batches", StringQueries.strs(f, 0).filter(r -> and(r.col("txt").like("%a%").not(), r.col("id").ge(lit(100))))
        .sort(List.of(Key.asc("mode"), Key.asc("id")))));
    return q;
  }
}
