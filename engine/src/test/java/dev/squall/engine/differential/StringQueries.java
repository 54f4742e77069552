package dev.squall.engine.differential;

import static dev.squall.engine.differential.EdgeCase.answer;
import static dev.squall.engine.differential.EdgeCase.prefixed;
import static dev.squall.engine.differential.HandWrittenQueries.m;
import static dev.squall.engine.testing.Rel.Agg.count;
import static dev.squall.engine.testing.Rel.Agg.countDistinct;
import static dev.squall.engine.testing.Rel.Agg.countStar;
import static dev.squall.engine.testing.Rel.Agg.max;
import static dev.squall.engine.testing.Rel.Agg.min;
import static dev.squall.engine.testing.Rel.Agg.sum;
import static dev.squall.engine.testing.X.caseWhen;
import static dev.squall.engine.testing.X.coalesce;
import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.str;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.JoinType;
import java.util.ArrayList;
import java.util.List;

/**
 * String-heavy queries: LIKE with {@code _}, {@code %}, escapes, prefixes, suffixes, infixes,
 * regular-expression metacharacters and multi-byte characters, over the {@code strs} table and
 * TPC-H's dictionary-encoded low-cardinality columns (l_shipmode, l_returnflag, ...); string
 * comparison, ordering (byte order of UTF-8), grouping, joins on string keys and functions.
 */
final class StringQueries {
  private StringQueries() {}

  private static final String C = "strings";

  /** Column, pattern, escape (null: none). */
  private static final String[][] LIKES = {
      {"txt", "a%", null}, {"txt", "%a", null}, {"txt", "%a%", null}, {"txt", "a", null}, {"txt", "", null}, {"txt", "%", null},
      {"txt", "_", null}, {"txt", "__", null}, {"txt", "%_", null}, {"txt", "_%_", null}, {"txt", "a_b%", null}, {"txt", "%a%b%c%", null},
      {"txt", "%\\%", null}, {"txt", "%\\_%", null}, {"txt", "%.%", null}, {"txt", "%.*%", null}, {"txt", "%*%", null}, {"txt", "%[%]%", null},
      {"txt", "%(%", null}, {"txt", "^%", null}, {"txt", "%$", null}, {"txt", "%|%", null}, {"txt", "%{%", null}, {"txt", "%+?%", null},
      {"txt", "%!%%", "!"}, {"txt", "%!_%", "!"}, {"txt", "!%%", "!"}, {"txt", "%!!%", "!"}, {"txt", "%\\_", "\\"}, {"txt", "%\\\\%", "\\"},
      {"txt", "_日%", null}, {"txt", "%😀", null}, {"txt", "%é_", null}, {"txt", "😀%", null}, {"txt", "%_😀_%", null}, {"txt", "%ﬁ%", null},
      {"txt", "A%", null}, {"txt", "%B_", null}, {"txt", "% %", null}, {"txt", "%-%-%", null},
      {"mode", "A%", null}, {"mode", "%AIR%", null}, {"mode", "%AIR", null}, {"mode", "REG_AIR", null}, {"mode", "___", null},
      {"mode", "", null}, {"mode", "%", null}, {"mode", "a!_b", "!"}, {"mode", "a!%b", "!"}, {"mode", "a_b", null}, {"mode", "x\\y", null},
      {"mode", "dot.star*", null}, {"mode", "[br]", null}, {"mode", "_psilon", null}, {"mode", "日_", null}, {"mode", "% ", null},
      {"mode", " %", null}, {"mode", "a!!b", "!"}, {"mode", "AIR", null}, {"mode", "%i%", null},
      {"code", "AB-%", null}, {"code", "%-xy", null}, {"code", "%-0%-%", null}, {"code", "__-____-__", null}, {"code", "_B-1%", null},
      // Segments only: a prefix and a suffix that must not overlap, and infixes in order between them.
      {"txt", "a%a", null}, {"txt", "%a%a", null}, {"txt", "a%b%", null}, {"mode", "A%R%R", null}, {"mode", "R%A%L", null},
      {"code", "AB%B%", null}, {"txt", "%%a%%", null}, {"txt", "é%é%é", null},
  };

  static Rel strs(TpchFixture f, int input) {
    return Rel.scan(f, "strs", input, "id", "mode", "txt", "code", "num");
  }

  static List<EdgeCase> all(TpchFixture f) {
    List<EdgeCase> q = new ArrayList<>();
    Rel t = strs(f, 0);
    for (int i = 0; i < LIKES.length; i++) {
      String[] l = LIKES[i];
      boolean negate = i % 5 == 4;
      q.add(answer(C, String.format("like%02d_%s%s", i, l[0], negate ? "_not" : ""), Rel.scan(f, "strs", 0, "id", l[0]).filter(r -> {
        var like = l[2] == null ? r.col(l[0]).like(l[1]) : r.col(l[0]).like(l[1], l[2]);
        return negate ? like.not() : like;
      }).project(r -> m("id", r.col("id"), l[0], r.col(l[0])))));
    }
    // LIKE as a value (NULL in, NULL out) on every column at once.
    q.add(answer(C, "like_as_value", t.project(r -> m("id", r.col("id"), "a", r.col("mode").like("%A%"), "b", r.col("txt").like("_%😀%"),
        "c", r.col("code").like("%w"), "d", r.col("txt").like("%!%", "!").not()))));

    // TPC-H's dictionary-encoded columns.
    Rel li = Rel.scan(f, "lineitem", 0, "l_orderkey", "l_linenumber", "l_returnflag", "l_linestatus", "l_shipmode", "l_shipinstruct", "l_comment");
    String[][] tpchLikes = {{"l_shipmode", "%AIR%"}, {"l_shipmode", "R%"}, {"l_shipmode", "%L"}, {"l_shipmode", "____"},
        {"l_returnflag", "N"}, {"l_shipinstruct", "%IN%PERSON"}, {"l_comment", "%carefully%final%"}, {"l_comment", "%ly"},
        {"l_comment", "_u%"}};
    for (String[] l : tpchLikes) {
      q.add(answer(C, "tpch_like_" + l[0] + "_" + l[1].replaceAll("[^A-Za-z]", "x"), li.filter(r -> r.col(l[0]).like(l[1]))
          .aggregate(List.of("l_shipmode", "l_returnflag"), List.of(countStar("n"), min("l_comment", "mc"), max("l_orderkey", "mk")), AggMode.SPLIT)));
    }
    q.add(answer(C, "tpch_dictionary_compare", li.filter(r -> r.col("l_shipmode").gt(str("RAIL")))
        .aggregate(List.of("l_shipmode"), List.of(countStar("n")), AggMode.SINGLE)));
    q.add(answer(C, "tpch_dictionary_in", li.filter(r -> r.col("l_shipmode").in(str("MAIL"), str("SHIP"), str("NOPE")).not())
        .aggregate(List.of("l_shipmode", "l_linestatus"), List.of(countStar("n")), AggMode.SPLIT)));
    q.add(answer(C, "tpch_dictionary_functions", li.filter(r -> r.col("l_orderkey").lt(lit(3000))).project(r -> m(
        "l_orderkey", r.col("l_orderkey"), "l_linenumber", r.col("l_linenumber"),
        "m", r.col("l_shipmode").lower().concat(str("/")).concat(r.col("l_returnflag")),
        "s", r.col("l_shipinstruct").substring(3, 4), "len", r.col("l_shipmode").charLength(),
        "c", caseWhen(SqlType.VARCHAR, str("other"), r.col("l_shipmode").eq(str("AIR")), str("air"), r.col("l_shipmode").like("%AIR"), r.col("l_shipinstruct"))))));
    for (AggMode mode : AggMode.values()) {
      q.add(answer(C, "tpch_group_by_dictionary_" + mode, li.aggregate(List.of("l_returnflag", "l_linestatus", "l_shipmode"),
          List.of(countStar("n"), min("l_shipinstruct", "mi"), max("l_comment", "mc")), mode)));
      q.add(answer(C, "tpch_count_distinct_dictionary_" + mode, li.aggregate(List.of("l_returnflag"), List.of(countDistinct("l_shipmode", "cd")), mode)));
    }

    // Grouping, ordering and comparison of strs.
    for (AggMode mode : AggMode.values()) {
      q.add(answer(C, "group_by_mode_" + mode, t.aggregate(List.of("mode"), List.of(countStar("n"), min("txt", "mn"), max("txt", "mx"),
          count("code", "cc"), sum("num", "sn")), mode)));
      q.add(answer(C, "group_by_high_cardinality_" + mode, t.aggregate(List.of("txt"), List.of(countStar("n"), max("id", "mx")), mode)));
      q.add(answer(C, "count_distinct_txt_" + mode, t.aggregate(List.of("mode"), List.of(countDistinct("txt", "cd")), mode)));
    }
    q.add(answer(C, "sort_utf8_byte_order", t.project(r -> m("id", r.col("id"), "txt", r.col("txt"))).sort(List.of(Key.asc("txt"), Key.asc("id")))));
    q.add(answer(C, "sort_mode_desc", t.project(r -> m("id", r.col("id"), "mode", r.col("mode"), "code", r.col("code")))
        .sort(List.of(Key.desc("mode"), Key.asc("code"), Key.asc("id")))));
    q.add(answer(C, "top_n_txt", t.topN(List.of(Key.desc("txt"), Key.asc("id")), 50, 10)));
    q.add(answer(C, "compare_multibyte", t.filter(r -> r.col("txt").ge(str("日"))).project(r -> m("id", r.col("id"), "txt", r.col("txt")))));
    q.add(answer(C, "compare_prefixes", t.filter(r -> r.col("mode").lt(str("AIR "))).project(r -> m("id", r.col("id"), "mode", r.col("mode")))));
    q.add(answer(C, "in_multibyte", t.filter(r -> r.col("mode").in(str("épsilon"), str("日本"), str(""), str("AIR "))).project(r -> m("id", r.col("id"), "mode", r.col("mode")))));

    // Joins on string keys.
    Rel modes = prefixed(strs(f, 1).filter(r -> r.col("id").lt(lit(40))), "b_");
    for (JoinType type : NullQueries.ALL_JOINS) {
      Rel j = t.join(modes, type, List.of("mode"), List.of("b_mode"), null, type == JoinType.RIGHT);
      q.add(answer(C, "join_on_dictionary_string_" + type, type == JoinType.SEMI || type == JoinType.ANTI
          ? j.aggregate(List.of("mode"), List.of(countStar("n")), AggMode.SINGLE)
          : j.aggregate(List.of("mode", "b_mode"), List.of(countStar("n"), count("b_id", "cb"), min("code", "mc")), AggMode.SINGLE)));
    }
    Rel shipmodes = strs(f, 1).filter(r -> r.col("id").lt(lit(30)));
    q.add(answer(C, "join_lineitem_shipmode_many_matches", Rel.scan(f, "lineitem", 0, "l_orderkey", "l_shipmode")
        .join(shipmodes, JoinType.INNER, List.of("l_shipmode"), List.of("mode"), null, false)
        .aggregate(List.of("l_shipmode"), List.of(countStar("n"), sum("num", "sn")), AggMode.SPLIT)));
    q.add(answer(C, "join_on_code_prefix", t.project(r -> m("id", r.col("id"), "p", r.col("code").substring(1, 2)))
        .join(prefixed(strs(f, 1).filter(r -> r.col("id").lt(lit(8))).project(r -> m("id", r.col("id"), "p", r.col("code").substring(1, 2))), "b_"),
            JoinType.LEFT, List.of("p"), List.of("b_p"), null, false)
        .aggregate(List.of("p"), List.of(countStar("n"), count("b_id", "cb")), AggMode.SINGLE)));

    // Functions over multi-byte text.
    q.add(answer(C, "functions_multibyte", t.project(r -> m("id", r.col("id"),
        "sub", r.col("txt").substring(2, 3), "len", r.col("txt").charLength(), "tr", r.col("txt").trim("BOTH", " -"),
        "lt", r.col("txt").trim("LEADING", "ab"), "cat", r.col("mode").concat(str("|")).concat(r.col("code")),
        "up", r.col("mode").upper(), "lo", r.col("code").lower()))));
    q.add(answer(C, "functions_conditional", t.project(r -> m("id", r.col("id"),
        "co", coalesce(SqlType.VARCHAR, r.col("mode"), str("?")), "ni", r.col("mode").nullIf(str("AIR")),
        "num", r.col("code").substring(4, 4).cast(SqlType.INTEGER).plus(r.col("num")),
        "txtnum", r.col("num").cast(SqlType.VARCHAR).concat(r.col("mode"))))));
    q.add(answer(C, "case_mapping_per_character", t.project(r -> m("id", r.col("id"), "up", r.col("txt").upper(), "lo", r.col("txt").lower()))));
    q.add(answer(C, "trim_multibyte", t.project(r -> m("id", r.col("id"), "b", r.col("txt").trim("BOTH", "😀"),
        "l", r.col("txt").trim("LEADING", "é日"), "t", r.col("txt").trim("TRAILING", "ﬁ -")))));
    q.add(answer(C, "substring_past_the_end", t.project(r -> m("id", r.col("id"), "a", r.col("txt").substring(5, 100),
        "b", r.col("code").substring(9, 5), "c", r.col("txt").substring(1, 0), "d", r.col("txt").substring(14, 3)))));
    q.add(answer(C, "casts_from_text", t.filter(r -> r.col("num").isNotNull()).project(r -> m("id", r.col("id"),
        "padded", str(" ").concat(r.col("num").cast(SqlType.VARCHAR)).concat(str(" ")).cast(SqlType.INTEGER),
        "rounded", r.col("num").cast(SqlType.VARCHAR).concat(str(".005")).cast(SqlType.decimal(8, 2)),
        "negative", lit(0).minus(r.col("num")).cast(SqlType.VARCHAR).concat(str(".125")).cast(SqlType.decimal(8, 2))))));
    return q;
  }
}
