package dev.squall.engine.expr;

import static dev.squall.engine.testing.X.and;
import static dev.squall.engine.testing.X.caseWhen;
import static dev.squall.engine.testing.X.coalesce;
import static dev.squall.engine.testing.X.date;
import static dev.squall.engine.testing.X.dbl;
import static dev.squall.engine.testing.X.dec;
import static dev.squall.engine.testing.X.lit;
import static dev.squall.engine.testing.X.or;
import static dev.squall.engine.testing.X.str;

import dev.squall.engine.testing.MemCheck;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every expression family evaluated by the engine a batch at a time over a table with NULLs in every
 * column, compared with DuckDB evaluating the same SQL: for an empty input, one row, and 3,000 rows
 * in batches of 256.
 */
class ExpressionFamiliesTest {
  private static final Map<String, Function<Rel, List<X>>> FAMILIES = new LinkedHashMap<>();

  static {
    FAMILIES.put("arithmetic", r -> List.of(
        r.col("i").plus(lit(3)), r.col("i").times(r.col("i")), r.col("i").minus(r.col("d")), r.col("d").times(r.col("d")),
        r.col("d").times(dec("2.5")), r.col("d").plus(dec("0.001")), r.col("x").times(dbl(2.0)).plus(r.col("x")),
        r.col("i").abs().div(lit(3)), r.col("i").mod(lit(4)), r.col("d").neg(), r.col("i").neg().abs(),
        r.col("x").div(r.col("x").abs().plus(dbl(1.0))), r.col("d").mod(dec("7.5")),
        // A literal operand is one value for every row (TPC-H's 1 - l_discount), NULL included.
        dec("1").minus(r.col("d")), r.col("d").minus(dec("0.5")), dec("2").times(r.col("d")), r.col("d").times(dec("3")),
        dec("1").plus(r.col("d")), X.nullOf(SqlType.decimal(3, 1)).minus(r.col("d")),
        r.col("d").times(dec("1").minus(r.col("d")))));
    FAMILIES.put("comparison", r -> List.of(
        r.col("i").lt(lit(3)), r.col("d").ge(dec("0")), r.col("s").eq(str("alpha")), r.col("dt").gt(date("1995-06-01")),
        r.col("b").eq(X.bool(true)), r.col("x").ne(dbl(500.0)), r.col("i").distinctFrom(lit(2)),
        r.col("i").notDistinctFrom(r.col("i")), r.col("i").lt(r.col("d")), r.col("s").le(str("delta")), r.col("d").gt(r.col("x")),
        // A literal on either side is compared as a scalar.
        lit(3).lt(r.col("i")), str("beta").le(r.col("s")), r.col("i").eq(X.nullOf(SqlType.INTEGER)), r.col("d").gt(lit(5)),
        dec("1.50").ge(r.col("d")), r.col("s").ne(str("gamma")), r.col("x").le(dbl(250.5)), date("1995-06-01").gt(r.col("dt"))));
    FAMILIES.put("logic", r -> List.of(
        and(r.col("i").gt(lit(0)), r.col("b")), or(r.col("i").gt(lit(0)), r.col("b")), r.col("b").not(),
        r.col("b").isNull(), r.col("b").isNotNull(), r.col("b").isTrue(), r.col("b").isNotFalse(),
        or(and(r.col("i").gt(lit(0)), r.col("s").like("a%")), r.col("b")),
        and(r.col("b"), r.col("i").ne(lit(0)), r.col("d").gt(dec("0")))));
    FAMILIES.put("conditional", r -> List.of(
        caseWhen(SqlType.decimal(13, 2), null, r.col("i").gt(lit(0)), r.col("d"), r.col("b"), r.col("d").neg()),
        caseWhen(SqlType.VARCHAR, str("other"), r.col("s").eq(str("alpha")), str("A"), r.col("s").isNull(), str("none")),
        coalesce(SqlType.INTEGER, r.col("i"), lit(0)), coalesce(SqlType.decimal(12, 2), r.col("d"), dec("0.00")),
        r.col("s").nullIf(str("alpha")), r.col("i").between(lit(-2), lit(5)), r.col("s").in(str("alpha"), str("beta")),
        r.col("i").in(lit(1), lit(2), X.nullOf(SqlType.INTEGER)),
        // The division runs only on the rows where the guard holds: no division by zero.
        caseWhen(SqlType.INTEGER, lit(-1), r.col("i").ne(lit(0)), lit(100).div(r.col("i").abs()))));
    // Equalities of one expression with literals, OR-ed or as IN, are tested against the expression
    // computed once; a guard before them still keeps their rows from being computed.
    FAMILIES.put("in lists", r -> List.of(
        or(r.col("s").substring(1, 2).eq(str("al")), r.col("i").gt(lit(3)), r.col("s").substring(1, 2).eq(str("be")),
            str("ga").eq(r.col("s").substring(1, 2))),
        or(r.col("s").substring(1, 2).eq(str("al")), r.col("s").substring(1, 2).eq(X.nullOf(SqlType.VARCHAR))),
        r.col("s").substring(1, 3).in(str("alp"), str("bet"), str("zzz")),
        r.col("d").in(dec("1.50"), dec("2"), X.nullOf(SqlType.decimal(3, 1))),
        or(r.col("i").eq(lit(0)), lit(100).div(r.col("i")).eq(lit(20)), lit(100).div(r.col("i")).eq(lit(50))),
        r.col("dt").in(date("1995-06-01"), date("1996-01-01")), r.col("x").in(dbl(500.0), dbl(250.5))));
    // One call in several expressions of a projection, also under guards.
    FAMILIES.put("repeated calls", r -> List.of(
        r.col("d").times(dec("1").minus(r.col("d"))),
        r.col("d").times(dec("1").minus(r.col("d"))).times(dec("1").plus(r.col("d"))),
        caseWhen(SqlType.INTEGER, lit(-1), r.col("i").ne(lit(0)), lit(100).div(r.col("i"))),
        caseWhen(SqlType.INTEGER, lit(-2), r.col("i").gt(lit(0)), lit(100).div(r.col("i")).plus(lit(1))),
        r.col("s").upper(), r.col("s").upper().concat(r.col("s").upper())));
    // Long chains travel as one n-ary call (ADD, MULTIPLY, AND, OR), evaluated left to right.
    FAMILIES.put("chains", r -> List.of(
        X.sum(SqlType.INTEGER, terms(50, k -> k % 2 == 0 ? r.col("i") : lit(k))),
        X.sum(SqlType.DOUBLE, terms(50, k -> k % 3 == 0 ? r.col("x") : dbl(k / 4.0))),
        X.product(SqlType.DOUBLE, terms(20, k -> k % 2 == 0 ? r.col("x") : dbl(1.5))),
        or(terms(1000, k -> r.col("i").eq(lit(k - 500)))),
        and(terms(1000, k -> r.col("i").ne(lit(k * 3)))),
        or(terms(1000, k -> k % 2 == 0 ? r.col("i").eq(lit(k)) : r.col("s").eq(str("s" + k))))));
    FAMILIES.put("cast", r -> List.of(
        r.col("i").cast(SqlType.DOUBLE), r.col("d").cast(SqlType.INTEGER), r.col("d").cast(SqlType.BIGINT), r.col("i").cast(SqlType.VARCHAR),
        r.col("dt").cast(SqlType.VARCHAR), r.col("d").cast(SqlType.decimal(20, 4)), r.col("d").cast(SqlType.decimal(12, 1)),
        r.col("x").cast(SqlType.decimal(12, 3)), r.col("dt").cast(SqlType.TIMESTAMP), r.col("i").cast(SqlType.decimal(5, 2)),
        r.col("d").cast(SqlType.VARCHAR), str("42").cast(SqlType.INTEGER).plus(r.col("i")), str("1996-02-29").cast(SqlType.DATE),
        r.col("x").cast(SqlType.BIGINT)));
    FAMILIES.put("string", r -> List.of(
        r.col("s").upper(), r.col("s").lower(), r.col("s").substring(2, 3), r.col("s").substring(-3, 2), r.col("s").trim("BOTH", "a"),
        r.col("s").trim("TRAILING", "a%_"), r.col("s").charLength(), r.col("s").concat(str("-x")), r.col("s").like("%ta%"),
        r.col("s").like("eta!%", "!"), r.col("s").like("_eta"), r.col("s").like("zeta\\_", "\\"), r.col("s").like("%"),
        r.col("s").like("%a")));
    FAMILIES.put("date", r -> List.of(
        r.col("dt").year(), r.col("dt").month(), r.col("dt").day(), r.col("dt").quarter(), r.col("dt").dow(),
        r.col("dt").plusInterval(X.daysInterval(10)), r.col("dt").minusInterval(X.monthsInterval(3)),
        r.col("dt").plusInterval(X.monthsInterval(13)), r.col("dt").lt(date("1996-01-01")),
        r.col("dt").cast(SqlType.TIMESTAMP).gt(date("1994-03-01"))));
  }

  /**
   * Filter conditions, each a conjunction narrowed one conjunct at a time: columns with NULLs against
   * literals of the same and of other types and scales, BETWEEN, nested AND, a NULL literal, and
   * conjuncts over expressions and strings, which take the general path.
   */
  private static final List<Function<Rel, X>> CONDITIONS = List.of(
      r -> and(r.col("i").gt(lit(0)), r.col("d").le(dec("1.50")), r.col("dt").ge(date("1995-01-01"))),
      r -> and(r.col("d").gt(dec("0")), r.col("i").between(lit(-2), lit(5))),
      r -> and(r.col("x").gt(dbl(10.0)), r.col("i").lt(lit(3)), r.col("s").eq(str("alpha"))),
      r -> and(and(r.col("i").ne(lit(1)), r.col("d").lt(dec("5"))), r.col("dt").lt(date("1997-06-01"))),
      r -> and(r.col("i").ge(lit(-3)), r.col("d").ge(dec("1.505")), lit(3).lt(r.col("i"))),
      r -> and(r.col("d").ge(dec("-2.5")), r.col("dt").cast(SqlType.TIMESTAMP).gt(date("1994-03-01"))),
      r -> and(r.col("i").ge(lit(0)), r.col("i").eq(X.nullOf(SqlType.INTEGER))),
      r -> and(r.col("d").ge(dec("0")), r.col("i").ge(lit(5_000_000_000L)).not()),
      r -> and(r.col("b"), r.col("d").times(dec("2")).gt(dec("3")), r.col("i").le(lit(4))));

  @TestFactory
  Stream<DynamicTest> conjunctionsFilterAsDuckDb() {
    List<DynamicTest> tests = new ArrayList<>();
    for (int c = 0; c < CONDITIONS.size(); c++) {
      Function<Rel, X> condition = CONDITIONS.get(c);
      for (int rows : new int[] {0, 1, 3000}) {
        tests.add(DynamicTest.dynamicTest("condition" + c + "_rows" + rows, () -> {
          MemTable t = MemTable.random("t", rows, 15, 11 + rows);
          MemCheck.check(t.rel(0).filter(condition), Map.of(0, t), "conditions", 256);
        }));
      }
    }
    return tests.stream();
  }

  private static X[] terms(int n, java.util.function.IntFunction<X> term) {
    X[] terms = new X[n];
    for (int k = 0; k < n; k++) {
      terms[k] = term.apply(k);
    }
    return terms;
  }

  @TestFactory
  Stream<DynamicTest> expressionFamiliesMatchDuckDb() {
    List<DynamicTest> tests = new ArrayList<>();
    int[][] variants = {{0, 256}, {1, 256}, {3000, 256}};
    for (var family : FAMILIES.entrySet()) {
      for (int[] v : variants) {
        tests.add(DynamicTest.dynamicTest(family.getKey() + "_rows" + v[0], () -> {
          MemTable t = MemTable.random("t", v[0], 15, 7 + v[0]);
          Rel rel = t.rel(0).project(r -> {
            Map<String, X> m = new LinkedHashMap<>();
            m.put("id", r.col("id"));
            List<X> xs = family.getValue().apply(r);
            for (int i = 0; i < xs.size(); i++) {
              m.put("e" + i, xs.get(i));
            }
            return m;
          });
          MemCheck.check(rel, Map.of(0, t), family.getKey(), v[1]);
        }));
      }
    }
    return tests.stream();
  }
}
