package dev.squall.engine.differential;

import static dev.squall.engine.differential.EdgeCase.answer;
import static dev.squall.engine.differential.EdgeCase.prefixed;
import static dev.squall.engine.testing.Rel.Agg.avg;
import static dev.squall.engine.testing.Rel.Agg.count;
import static dev.squall.engine.testing.Rel.Agg.countDistinct;
import static dev.squall.engine.testing.Rel.Agg.countStar;
import static dev.squall.engine.testing.Rel.Agg.max;
import static dev.squall.engine.testing.Rel.Agg.min;
import static dev.squall.engine.testing.Rel.Agg.sum;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;

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
 * Empty inputs: a table whose only data file has no rows, filters that match nothing, aggregates
 * over nothing (one row globally, none grouped), joins and nested-loop joins with an empty side,
 * and sorts, limits and unions of nothing.
 */
final class EmptyInputQueries {
  private EmptyInputQueries() {}

  private static final String C = "empty";

  static Rel empty(TpchFixture f, int input) {
    return Rel.scan(f, "empty_nulls", input, "id", "k", "g", "d", "x", "dt", "b", "s", "k2", "nul_s", "nul_d");
  }

  static List<EdgeCase> all(TpchFixture f) {
    List<EdgeCase> q = new ArrayList<>();
    Rel e = empty(f, 0);
    q.add(answer(C, "scan", e));
    q.add(answer(C, "filter_project", e.filter(r -> r.col("k").gt(lit(0))).project(r -> HandWrittenQueries.m("y", r.col("d").times(dec("2"))))));
    List<Rel.Agg> aggs = List.of(countStar("n"), count("k", "ck"), sum("d", "sd"), sum("k", "sk"), min("g", "mg"), max("dt", "mdt"), avg("x", "ax"), avg("d", "ad"));
    for (AggMode mode : AggMode.values()) {
      q.add(answer(C, "global_aggregate_" + mode, e.aggregate(List.of(), aggs, mode)));
      q.add(answer(C, "grouped_aggregate_" + mode, e.aggregate(List.of("g", "k"), aggs, mode)));
      q.add(answer(C, "global_count_distinct_" + mode, e.aggregate(List.of(), List.of(countDistinct("s", "cd")), mode)));
      q.add(answer(C, "grouped_count_distinct_" + mode, e.aggregate(List.of("k"), List.of(countDistinct("s", "cd")), mode)));
    }
    q.add(answer(C, "sort", e.sort(List.of(Key.asc("id")))));
    q.add(answer(C, "top_n", e.topN(List.of(Key.desc("d"), Key.asc("id")), 10, 0)));
    q.add(answer(C, "limit", e.sort(List.of(Key.asc("id"))).limit(0, 10)));
    q.add(answer(C, "union_all_of_empties", e.unionAll(empty(f, 1))));
    q.add(answer(C, "union_all_with_rows", e.unionAll(NullQueries.nulls(f, 1).filter(r -> r.col("id").lt(lit(50))))
        .aggregate(List.of("k"), List.of(countStar("n")), AggMode.SPLIT)));

    // Hash joins with an empty probe or build side, every join type, both build sides.
    Rel rows = prefixed(NullQueries.nulls(f, 1).filter(r -> r.col("id").lt(lit(300))), "b_");
    Rel emptyRight = prefixed(empty(f, 1), "b_");
    Rel rowsLeft = NullQueries.nulls(f, 0).filter(r -> r.col("id").lt(lit(300)));
    for (JoinType type : NullQueries.ALL_JOINS) {
      for (boolean buildLeft : new boolean[] {false, true}) {
        String side = buildLeft ? "_buildLeft" : "";
        q.add(answer(C, "join_empty_left_" + type + side, e.join(rows, type, List.of("k"), List.of("b_k"), null, buildLeft)));
        q.add(answer(C, "join_empty_right_" + type + side, rowsLeft.join(emptyRight, type, List.of("k"), List.of("b_k"), null, buildLeft)));
      }
      Rel tiny = prefixed(NullQueries.nulls(f, 1).filter(r -> r.col("id").lt(lit(20))), "b_");
      q.add(answer(C, "nested_loop_empty_left_" + type, e.nestedLoopJoin(tiny, type, r -> r.col("k").le(r.col("b_k")))));
      q.add(answer(C, "nested_loop_empty_right_" + type, NullQueries.nulls(f, 0).filter(r -> r.col("id").lt(lit(20)))
          .nestedLoopJoin(emptyRight, type, r -> r.col("k").le(r.col("b_k")))));
    }

    // TPC-H filters that match nothing, feeding joins and aggregates.
    Rel noLines = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_quantity", "l_extendedprice").filter(r -> r.col("l_quantity").lt(dec("0")));
    Rel orders = Rel.scan(f, "orders", 1, "o_orderkey", "o_orderstatus", "o_totalprice");
    for (JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL}) {
      q.add(answer(C, "tpch_no_lines_" + type, noLines.join(orders, type, List.of("l_orderkey"), List.of("o_orderkey"), null, false)
          .aggregate(List.of("o_orderstatus"), List.of(countStar("n"), count("l_orderkey", "cl"), sum("l_extendedprice", "s"), sum("o_totalprice", "st")), AggMode.SPLIT)));
    }
    Rel ordersLeft = Rel.scan(f, "orders", 0, "o_orderkey", "o_orderstatus");
    Rel noLinesRight = Rel.scan(f, "lineitem", 1, "l_orderkey", "l_quantity").filter(r -> r.col("l_quantity").gt(dec("1000")));
    for (JoinType type : new JoinType[] {JoinType.SEMI, JoinType.ANTI}) {
      q.add(answer(C, "tpch_orders_" + type + "_no_lines", ordersLeft.join(noLinesRight, type, List.of("o_orderkey"), List.of("l_orderkey"), null, true)
          .aggregate(List.of("o_orderstatus"), List.of(countStar("n")), AggMode.SINGLE)));
    }
    Rel nation = Rel.scan(f, "nation", 0, "n_nationkey", "n_name", "n_regionkey");
    q.add(answer(C, "filter_false", nation.filter(r -> X.bool(false))));
    q.add(answer(C, "filter_null_condition", nation.filter(r -> X.nullOf(SqlType.BOOLEAN))));
    q.add(answer(C, "filter_not_in_with_null", nation.filter(r -> r.col("n_regionkey").in(lit(1L), X.nullOf(SqlType.BIGINT)).not())
        .aggregate(List.of(), List.of(countStar("n"), min("n_name", "mn")), AggMode.SPLIT)));
    q.add(answer(C, "top_n_offset_past_end", nation.topN(List.of(Key.asc("n_nationkey")), 10, 100)));
    q.add(answer(C, "limit_zero", nation.sort(List.of(Key.asc("n_nationkey"))).limit(0, 0)));
    q.add(answer(C, "offset_past_end", nation.sort(List.of(Key.asc("n_nationkey"))).limit(30, 5)));
    q.add(answer(C, "grouped_after_empty_join", noLines.join(orders, JoinType.INNER, List.of("l_orderkey"), List.of("o_orderkey"), null, true)
        .aggregate(List.of("o_orderstatus"), List.of(countStar("n")), AggMode.SINGLE)));
    return q;
  }
}
