package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Trino/Athena function library through the whole local stack over TPC-H SF 0.01, each query's
 * answer compared with DuckDB's over the same data files. Where DuckDB names a function differently
 * or its semantics differ from Trino's (docs/sql.md), the DuckDB query is written with DuckDB's
 * equivalent expression (DuckDB's COUNT_IF over no rows is NULL, Trino's 0: the oracle counts with
 * a FILTER). Inputs include NULLs (every tenth row of the derived columns), empty input and
 * groups whose values are all NULL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlFunctionsEndToEndTest {
  /** Customers with NULLs: k key, a DECIMAL balance, d DOUBLE balance, s phone, m segment. */
  private static final String CUSTOMERS = "(select c_custkey k,"
      + " case when c_custkey % 10 = 0 then null else c_acctbal end a,"
      + " case when c_custkey % 10 = 1 then null else cast(c_acctbal as double) end d,"
      + " case when c_custkey % 10 = 2 then null else c_phone end s,"
      + " c_name n, c_address addr, c_mktsegment m from customer) c";
  private static final String DUCK_CUSTOMERS = CUSTOMERS;
  /** Orders with NULLs: k key, d DATE, t TIMESTAMP (the order date plus up to a day of seconds). */
  private static final String ORDERS = "(select o_orderkey k,"
      + " case when o_orderkey % 10 = 0 then null else o_orderdate end d,"
      + " date_add('second', o_orderkey % 86400, cast(o_orderdate as timestamp)) t from orders) o";
  private static final String DUCK_ORDERS = "(select o_orderkey k,"
      + " case when o_orderkey % 10 = 0 then null else o_orderdate end d,"
      + " o_orderdate::timestamp + to_seconds(o_orderkey % 86400) t from orders) o";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.start(0.01, 4000, UnaryOperator.identity());
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  static Stream<Arguments> math() {
    return Stream.of(
        Arguments.of("round",
            "select k, round(a), round(a, 1), round(a, -2), round(k, -1), round(d / 7, 3), round(d), round(-d, -1)"
                + " from " + CUSTOMERS,
            "select k, round(a), round(a, 1), round(a, -2), round(k, -1), round(d / 7, 3), round(d), round(-d, -1)"
                + " from " + DUCK_CUSTOMERS),
        Arguments.of("truncate, ceil, floor, abs, sign",
            "select k, truncate(a), truncate(a, 1), truncate(d, 1), ceil(a), ceiling(d / 3), floor(a), floor(d / 3),"
                + " abs(a), abs(k - 700), sign(a), sign(d), sign(k - 700) from " + CUSTOMERS,
            "select k, trunc(a), trunc(a * 10) / 10, trunc(d * 10) / 10, ceil(a), ceiling(d / 3), floor(a), floor(d / 3),"
                + " abs(a), abs(k - 700), sign(a), sign(d), sign(k - 700) from " + DUCK_CUSTOMERS),
        Arguments.of("substr with negative starts, nan, infinity",
            "select k, substr(s, 2), substr(s, 5, 3), substr(s, -4), substr(s, -4, 2), substring(s, -30), nan(),"
                + " infinity(), -infinity(), d / 0e0 from " + CUSTOMERS,
            "select k, substr(s, 2), substr(s, 5, 3), substr(s, -4), substr(s, -4, 2),"
                + " case when length(s) >= 30 then substring(s, -30) when s is not null then '' end, 'nan'::double,"
                + " 'infinity'::double, -'infinity'::double, case when d > 0 then 'infinity'::double when d < 0"
                + " then -'infinity'::double when d = 0 then 'nan'::double end from " + DUCK_CUSTOMERS),
        // NaN as Trino's DOUBLE operators take it: IEEE 754 comparisons (NaN unordered, only <> holds;
        // DuckDB instead has NaN = NaN and NaN the largest, so its side guards each comparison with
        // isnan), and ORDER BY sorts NaN above every number, as DuckDB does.
        Arguments.of("NaN compares as IEEE 754 and sorts above every number",
            "select k, if(k > 0, nan()) = nan(), if(k > 0, nan()) <> nan(), nan() > d, nan() < d, d = nan(), nan() > infinity(),"
                + " row_number() over (order by case when k % 7 = 0 then nan() else d end nulls first, k) from " + CUSTOMERS,
            "select k, " + ieee("'nan'::double", "=", "'nan'::double") + ", " + ieee("'nan'::double", "<>", "'nan'::double")
                + ", " + ieee("'nan'::double", ">", "d") + ", " + ieee("'nan'::double", "<", "d") + ", "
                + ieee("d", "=", "'nan'::double") + ", " + ieee("'nan'::double", ">", "'infinity'::double")
                + ", row_number() over (order by case when k % 7 = 0 then 'nan'::double else d end nulls first, k) from "
                + DUCK_CUSTOMERS),
        // A REAL or DOUBLE expression compared with itself, over NaN, NULL and numbers, and over
        // constants: IEEE 754 as in Trino (the planner must not simplify x = x to x IS NOT NULL).
        Arguments.of("a floating expression compared with itself follows IEEE 754",
            "select k, x = x, x <> x, x < x, x >= x, nan() = nan(), nan() <> nan(), nan() <= nan(), 1e0 = 1e0,"
                + " cast(null as double) = cast(null as double), k = k from (select k,"
                + " case when k % 7 = 0 then nan() else d end x from " + CUSTOMERS + ") v",
            "select k, " + ieee("x", "=", "x") + ", " + ieee("x", "<>", "x") + ", " + ieee("x", "<", "x") + ", "
                + ieee("x", ">=", "x") + ", false, true, false, true, null::boolean, k = k from (select k,"
                + " case when k % 7 = 0 then 'nan'::double else d end x from " + DUCK_CUSTOMERS + ") v"),
        // The same over VALUES in a WHERE clause, where Calcite's predicate inference once took the
        // guarded x = x for a binding of x and recursed without end.
        Arguments.of("a floating self-comparison filters VALUES as IEEE 754",
            "select (select count(*) from (values (nan()), (nan()), (1e0)) t(x) where x = x),"
                + " (select count(*) from (values (nan()), (1e0), (2e0)) t(x) where x <> x)",
            "select (select count(*) from (values ('nan'::double), ('nan'::double), (1e0)) t(x) where "
                + ieee("x", "=", "x") + "), (select count(*) from (values ('nan'::double), (1e0), (2e0)) t(x) where "
                + ieee("x", "<>", "x") + ")"),
        // Trino's IS [NOT] DISTINCT FROM: NULL is not distinct from NULL and distinct from any value,
        // NaN is not distinct from NaN and distinct from every number. The oracle spells that rule
        // out in DuckDB's terms (isnan) instead of relying on DuckDB's own operator.
        Arguments.of("IS [NOT] DISTINCT FROM takes NaN as not distinct from NaN",
            "select k, x is distinct from y, x is not distinct from y, x is distinct from nan(), y is not distinct from null"
                + " from (select k, case when k % 7 = 0 then nan() else d end x,"
                + " case when k % 3 = 0 then nan() when k % 4 = 0 then null else d end y from " + CUSTOMERS + ") v",
            "select k, " + distinct("x", "y") + ", not " + distinct("x", "y") + ", " + distinct("x", "'nan'::double")
                + ", y is null from (select k, case when k % 7 = 0 then 'nan'::double else d end x,"
                + " case when k % 3 = 0 then 'nan'::double when k % 4 = 0 then null else d end y from " + DUCK_CUSTOMERS
                + ") v"),
        Arguments.of("mod, %, power, roots, logarithms, pi",
            "select k, mod(k, 7), k % 7, a % 3, power(k, 2), power(d, 0.5), sqrt(k), cbrt(a), exp(k / 500e0),"
                + " ln(k), log10(k), log2(k), pi() from " + CUSTOMERS,
            "select k, mod(k, 7), k % 7, a % 3, power(k, 2), power(d, 0.5), sqrt(k), cbrt(a), exp(k / 500e0),"
                + " ln(k), log10(k), log2(k), pi() from " + DUCK_CUSTOMERS));
  }

  static Stream<Arguments> strings() {
    return Stream.of(
        Arguments.of("concat, replace, positions, reverse",
            "select k, concat(n, '-', s), concat(s, m), replace(s, '-', '/'), replace(s, '-'), position('-' in s),"
                + " strpos(s, '9'), strpos(s, 'x'), reverse(s), length(s), length(n) from " + CUSTOMERS,
            "select k, n || '-' || s, s || m, replace(s, '-', '/'), replace(s, '-', ''), position('-' in s),"
                + " strpos(s, '9'), strpos(s, 'x'), reverse(s), length(s), length(n) from " + DUCK_CUSTOMERS),
        Arguments.of("chr, codepoint",
            "select k, chr(65 + k % 26), codepoint(substr(m, 1, 1)), chr(k + 900), codepoint(chr(k + 900)),"
                + " codepoint(substr(s, 1, 1)) from " + CUSTOMERS,
            "select k, chr(cast(65 + k % 26 as integer)), unicode(substr(m, 1, 1)), chr(cast(k + 900 as integer)),"
                + " unicode(chr(cast(k + 900 as integer))), unicode(substr(s, 1, 1)) from " + DUCK_CUSTOMERS),
        Arguments.of("pads, trims, split_part, starts_with",
            "select k, lpad(m, 12, '*'), rpad(m, 5, 'ab'), lpad(s, 20, 'xy'), rpad(s, 3, 'z'), ltrim('  ' || s),"
                + " rtrim(s || '  '), split_part(s, '-', 2), split_part(s, '-', 5), starts_with(s, '2'),"
                + " starts_with(m, 'BUILD') from " + CUSTOMERS,
            "select k, lpad(m, 12, '*'), rpad(m, 5, 'ab'), lpad(s, 20, 'xy'), rpad(s, 3, 'z'), ltrim('  ' || s),"
                + " rtrim(s || '  '), split_part(s, '-', 2), nullif(split_part(s, '-', 5), ''), starts_with(s, '2'),"
                + " starts_with(m, 'BUILD') from " + DUCK_CUSTOMERS),
        Arguments.of("regular expressions",
            "select k, regexp_like(addr, '^[A-Z]'), regexp_like(s, '9{2}'), regexp_extract(s, '(\\d+)-(\\d+)', 2),"
                + " regexp_extract(addr, '[0-9]+'), regexp_replace(s, '(\\d+)-(\\d+)', '$2+$1'),"
                + " regexp_replace(s, '[0-9]') from " + CUSTOMERS,
            "select k, regexp_matches(addr, '^[A-Z]'), regexp_matches(s, '9{2}'), regexp_extract(s, '(\\d+)-(\\d+)', 2),"
                + " nullif(regexp_extract(addr, '[0-9]+'), ''), regexp_replace(s, '(\\d+)-(\\d+)', '\\2+\\1', 'g'),"
                + " regexp_replace(s, '[0-9]', '', 'g') from " + DUCK_CUSTOMERS));
  }

  static Stream<Arguments> conditionals() {
    return Stream.of(
        Arguments.of("greatest, least, if",
            "select k, greatest(a, 0), least(a, k, 5000), greatest(d, 1.5e0), least(s, m), if(k % 2 = 0, 'even', 'odd'),"
                + " if(a > 0, a), if(a > 0, k, -k) from " + CUSTOMERS,
            "select k, case when a is not null then greatest(a, 0) end, case when a is not null then least(a, k, 5000) end,"
                + " case when d is not null then greatest(d, 1.5e0) end, case when s is not null then least(s, m) end,"
                + " if(k % 2 = 0, 'even', 'odd'), case when a > 0 then a end, if(a > 0, k, -k) from " + DUCK_CUSTOMERS),
        Arguments.of("try, try_cast",
            "select k, try(k / (k % 5)), try(cast(substring(s, 1, 2) || case when k % 3 = 0 then 'x' else '' end as integer)),"
                + " try_cast(s as integer), try_cast(substring(s, 4, 3) as integer), try_cast(a as integer) from " + CUSTOMERS,
            "select k, case when k % 5 <> 0 then k // (k % 5) end, try_cast(substring(s, 1, 2) || case when k % 3 = 0 then 'x' else '' end as integer),"
                + " try_cast(s as integer), try_cast(substring(s, 4, 3) as integer), try_cast(a as integer) from " + DUCK_CUSTOMERS));
  }

  static Stream<Arguments> dates() {
    return Stream.of(
        Arguments.of("fields",
            "select k, year(d), quarter(d), month(d), week(d), day_of_month(d), day_of_week(d), dow(d), day_of_year(d),"
                + " doy(d), hour(t), minute(t), second(t), year(t), week_of_year(t), day_of_week(t) from " + ORDERS,
            "select k, year(d), quarter(d), month(d), week(d), day(d), isodow(d), isodow(d), dayofyear(d),"
                + " dayofyear(d), hour(t), minute(t), second(t), year(t), week(t), isodow(t) from " + DUCK_ORDERS),
        Arguments.of("date_trunc",
            "select k, date_trunc('day', d), date_trunc('week', d), date_trunc('month', d), date_trunc('quarter', d),"
                + " date_trunc('year', d), date_trunc('second', t), date_trunc('minute', t), date_trunc('hour', t),"
                + " date_trunc('day', t), date_trunc('week', t), date_trunc('month', t), date_trunc('year', t) from " + ORDERS,
            "select k, cast(date_trunc('day', d) as date), cast(date_trunc('week', d) as date), cast(date_trunc('month', d) as date),"
                + " cast(date_trunc('quarter', d) as date), cast(date_trunc('year', d) as date), date_trunc('second', t),"
                + " date_trunc('minute', t), date_trunc('hour', t), cast(date_trunc('day', t) as timestamp),"
                + " cast(date_trunc('week', t) as timestamp), cast(date_trunc('month', t) as timestamp),"
                + " cast(date_trunc('year', t) as timestamp) from " + DUCK_ORDERS),
        Arguments.of("date_add",
            "select k, date_add('day', 10, d), date_add('week', -2, d), date_add('month', 1, d), date_add('quarter', 1, d),"
                + " date_add('year', -1, d), date_add('hour', 5, t), date_add('minute', -90, t), date_add('month', 13, t),"
                + " date_add('day', k % 7, d) from " + ORDERS,
            "select k, cast(d + interval 10 day as date), cast(d - interval 14 day as date), cast(d + interval 1 month as date),"
                + " cast(d + interval 3 month as date), cast(d - interval 1 year as date), t + interval 5 hour,"
                + " t - interval 90 minute, t + interval 13 month, cast(d + to_days(cast(k % 7 as integer)) as date) from " + DUCK_ORDERS),
        Arguments.of("date_diff",
            "select k, date_diff('day', d, date '1998-08-02'), date_diff('week', d, date '1998-08-02'),"
                + " date_diff('month', d, date '1998-08-02'), date_diff('quarter', d, date '1998-08-02'),"
                + " date_diff('year', date '1998-08-02', d), date_diff('hour', t, timestamp '1995-06-17 12:00:00'),"
                + " date_diff('second', timestamp '1995-06-17 12:00:00', t), date_diff('day', t, timestamp '1995-06-17 12:00:00'),"
                + " date_diff('month', t, timestamp '1995-06-17 12:00:00'), date_diff('month', date '1992-01-31', d),"
                + " date_diff('year', date '1992-02-29', d) from " + ORDERS,
            "select k, date_sub('day', d, date '1998-08-02'), date_sub('week', d, date '1998-08-02'),"
                + " date_sub('month', d, date '1998-08-02'), date_sub('quarter', d, date '1998-08-02'),"
                + " date_sub('year', date '1998-08-02', d), date_sub('hour', t, timestamp '1995-06-17 12:00:00'),"
                + " date_sub('second', timestamp '1995-06-17 12:00:00', t), date_sub('day', t, timestamp '1995-06-17 12:00:00'),"
                + " date_sub('month', t, timestamp '1995-06-17 12:00:00'), date_sub('month', date '1992-01-31', d),"
                + " date_sub('year', date '1992-02-29', d) from " + DUCK_ORDERS),
        Arguments.of("unix time, format, parse",
            "select k, from_unixtime(k * 1000), from_unixtime(k / 8e0), to_unixtime(t), to_unixtime(d),"
                + " date_format(t, '%Y-%m-%d %H:%i:%s'), date_format(d, '%W %b %e %j %y'), date_format(t, '%T %p %h %f'),"
                + " date_parse(date_format(t, '%Y/%m/%d %H:%i:%s'), '%Y/%m/%d %H:%i:%s'), date_parse(date_format(d, '%d.%m.%Y'), '%d.%m.%Y')"
                + " from " + ORDERS,
            "select k, epoch_ms(k * 1000 * 1000), epoch_ms(cast(round(k / 8e0 * 1000) as bigint)), epoch(t), epoch(d),"
                + " strftime(t, '%Y-%m-%d %H:%M:%S'), strftime(d, '%A %b %-d %j %y'), strftime(t, '%H:%M:%S %p %I %f'),"
                + " strptime(strftime(t, '%Y/%m/%d %H:%M:%S'), '%Y/%m/%d %H:%M:%S'), strptime(strftime(d, '%d.%m.%Y'), '%d.%m.%Y')"
                + " from " + DUCK_ORDERS));
  }

  static Stream<Arguments> aggregates() {
    return Stream.of(
        Arguments.of("variances and standard deviations",
            "select m, stddev(a), stddev_samp(d), stddev_pop(a), variance(k), var_samp(d), var_pop(a), stddev(case when k < 3 then a end)"
                + " from " + CUSTOMERS + " group by m",
            "select m, stddev(a), stddev_samp(d), stddev_pop(a), variance(k), var_samp(d), var_pop(a), stddev(case when k < 3 then a end)"
                + " from " + DUCK_CUSTOMERS + " group by m"),
        Arguments.of("boolean aggregates, count_if, arbitrary",
            "select m, bool_and(a > -900), bool_or(a > 9000), every(k > 0), count_if(a > 0), count_if(s like '1%'),"
                + " arbitrary(m), any_value(length(m)) from " + CUSTOMERS + " group by m",
            "select m, bool_and(a > -900), bool_or(a > 9000), bool_and(k > 0), count_if(a > 0), count_if(s like '1%'),"
                + " any_value(m), any_value(length(m)) from " + DUCK_CUSTOMERS + " group by m"),
        Arguments.of("max_by, min_by",
            "select m, max_by(n, k), min_by(a, k), max_by(a, k), max_by(k, s), min_by(d, n), max_by(k, case when k < 0 then k end)"
                + " from " + CUSTOMERS + " group by m",
            "select m, arg_max_null(n, k), arg_min_null(a, k), arg_max_null(a, k), arg_max_null(k, s), arg_min_null(d, n),"
                + " cast(null as bigint) from " + DUCK_CUSTOMERS + " group by m"),
        Arguments.of("empty input",
            "select stddev(a), var_pop(d), bool_and(a > 0), bool_or(a > 0), count_if(a > 0), arbitrary(m),"
                + " approx_count_distinct(k), approx_percentile(a, 0.5) from " + CUSTOMERS + " where k < 0",
            "select stddev(a), var_pop(d), bool_and(a > 0), bool_or(a > 0), count(*) filter (where a > 0), any_value(m),"
                + " 0, cast(null as double) from " + DUCK_CUSTOMERS + " where k < 0"),
        Arguments.of("empty groups",
            "select m, stddev(a), count_if(a > 0), bool_or(a > 0), approx_count_distinct(a), approx_percentile(a, 0.9)"
                + " from " + CUSTOMERS + " where k < 20 and a is null group by m",
            "select m, stddev(a), count(*) filter (where a > 0), bool_or(a > 0), 0, cast(null as double)"
                + " from " + DUCK_CUSTOMERS + " where k < 20 and a is null group by m"));
  }

  @ParameterizedTest(name = "aggregates: {0}")
  @MethodSource("aggregates")
  void aggregateFunctionsEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    assertSameAnswer(label, squall, duckDb);
  }

  /**
   * APPROX_COUNT_DISTINCT over several tasks' merged HLL sketches is within three standard errors
   * (3 x 2.3%) of DuckDB's exact COUNT(DISTINCT); small groups are exact (the sketch holds a list).
   */
  @org.junit.jupiter.api.Test
  void approxCountDistinctIsWithinItsErrorOfTheExactCount() throws Exception {
    // approx_distinct is Trino's name for it.
    List<List<Object>> actual = squall("select l_returnflag, approx_count_distinct(l_orderkey), approx_distinct(l_comment),"
        + " approx_count_distinct(l_extendedprice), approx_count_distinct(l_shipdate), approx_count_distinct(l_linenumber)"
        + " from lineitem group by l_returnflag order by l_returnflag");
    List<List<Object>> exact = duckDb("select l_returnflag, count(distinct l_orderkey), count(distinct l_comment),"
        + " count(distinct l_extendedprice), count(distinct l_shipdate), count(distinct l_linenumber)"
        + " from lineitem group by l_returnflag order by l_returnflag");
    assertThat(actual).hasSameSizeAs(exact);
    for (int r = 0; r < exact.size(); r++) {
      for (int c = 1; c < exact.get(r).size(); c++) {
        double want = ((Number) exact.get(r).get(c)).doubleValue();
        double got = ((Number) actual.get(r).get(c)).doubleValue();
        assertThat(Math.abs(got - want)).as("row %d column %d: %s vs exact %s", r, c, got, want)
            .isLessThanOrEqualTo(3 * 0.023 * want);
      }
      assertThat(((Number) actual.get(r).get(5)).doubleValue()).as("7 line numbers, counted exactly").isEqualTo(7);
    }
  }

  /**
   * APPROX_PERCENTILE over merged KLL sketches answers a value whose rank in DuckDB's exact
   * distribution is within 2.5% of the percentile asked for (the sketch's rank error is about 1.3%).
   */
  @org.junit.jupiter.api.Test
  void approxPercentileIsWithinItsRankErrorOfTheExactQuantile() throws Exception {
    for (double p : new double[] {0.1, 0.5, 0.9}) {
      List<List<Object>> actual = squall("select l_returnflag, approx_percentile(l_extendedprice, " + p + "),"
          + " approx_percentile(l_quantity, " + p + "), approx_percentile(cast(l_partkey as double), " + p + ")"
          + " from lineitem group by l_returnflag order by l_returnflag");
      List<List<Object>> bounds = duckDb("select l_returnflag, quantile_disc(l_extendedprice, " + (p - 0.025) + "),"
          + " quantile_disc(l_extendedprice, " + (p + 0.025) + "), quantile_disc(l_quantity, " + (p - 0.025) + "),"
          + " quantile_disc(l_quantity, " + (p + 0.025) + "), quantile_disc(l_partkey, " + (p - 0.025) + "),"
          + " quantile_disc(l_partkey, " + (p + 0.025) + ") from lineitem group by l_returnflag order by l_returnflag");
      assertThat(actual).hasSameSizeAs(bounds);
      for (int r = 0; r < bounds.size(); r++) {
        for (int c = 1; c <= 3; c++) {
          double got = ((Number) actual.get(r).get(c)).doubleValue();
          double low = ((Number) bounds.get(r).get(2 * c - 1)).doubleValue();
          double high = ((Number) bounds.get(r).get(2 * c)).doubleValue();
          assertThat(got).as("p=%s row %d column %d", p, r, c).isBetween(low, high);
        }
      }
    }
  }

  static Stream<Arguments> grouping() {
    return Stream.of(
        Arguments.of("group by ordinal",
            "select c_nationkey % 5, c_mktsegment, count(*), sum(c_acctbal) from customer group by 1, 2 order by 1, 2",
            "select c_nationkey % 5, c_mktsegment, count(*), sum(c_acctbal) from customer group by 1, 2 order by 1, 2"),
        Arguments.of("group by alias, having by alias",
            "select c_nationkey % 5 as bucket, count(*) as n from customer group by bucket having n > 250 order by bucket",
            "select c_nationkey % 5 as bucket, count(*) as n from customer group by bucket having n > 250 order by bucket"),
        Arguments.of("Trino's non-reserved words as names",
            "select running, prev, count(*) as value from (select o_orderstatus as running, o_orderpriority as prev"
                + " from orders) t group by running, prev",
            "select running, prev, count(*) as value from (select o_orderstatus as running, o_orderpriority as prev"
                + " from orders) t group by running, prev"));
  }

  @ParameterizedTest(name = "grouping: {0}")
  @MethodSource("grouping")
  void groupingFormsEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    assertSameAnswer(label, squall, duckDb);
  }

  /** A statement that is no statement answers a plain syntax error with its position, not exception text. */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {";", "selec *"})
  void malformedStatementAnswersAPlainSyntaxError(String sql) throws Exception {
    HttpResponse<byte[]> response = stack.post(sql, Map.of(), "application/json");
    String body = new String(response.body(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(response.statusCode()).as(body).isEqualTo(400);
    assertThat(body).contains("Syntax error").contains("\"line\":1").doesNotContain("Exception").doesNotContain("org.apache")
        .doesNotContain("out of bounds").doesNotContain("Non-query expression");
  }

  /** Unnamed result columns carry Trino's names in the answer's schema. */
  @org.junit.jupiter.api.Test
  void unnamedColumnsAreNamedAsInTrino() throws Exception {
    HttpResponse<byte[]> response = stack.post("select count(*), max(n_name) as top, min(n_name) from nation",
        Map.of("default_schema", "tpch"), "application/vnd.apache.arrow.stream");
    assertThat(response.statusCode()).isEqualTo(200);
    try (var allocator = new org.apache.arrow.memory.RootAllocator();
        var reader = new org.apache.arrow.vector.ipc.ArrowStreamReader(new java.io.ByteArrayInputStream(response.body()), allocator)) {
      assertThat(reader.getVectorSchemaRoot().getSchema().getFields())
          .extracting(org.apache.arrow.vector.types.pojo.Field::getName).containsExactly("_col0", "top", "_col2");
    }
  }

  @ParameterizedTest(name = "math: {0}")
  @MethodSource("math")
  void mathFunctionsEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    assertSameAnswer(label, squall, duckDb);
  }

  @ParameterizedTest(name = "strings: {0}")
  @MethodSource("strings")
  void stringFunctionsEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    assertSameAnswer(label, squall, duckDb);
  }

  @ParameterizedTest(name = "conditionals: {0}")
  @MethodSource("conditionals")
  void conditionalFunctionsEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    assertSameAnswer(label, squall, duckDb);
  }

  @ParameterizedTest(name = "dates: {0}")
  @MethodSource("dates")
  void dateFunctionsEqualDuckDb(String label, String squall, String duckDb) throws Exception {
    assertSameAnswer(label, squall, duckDb);
  }

  private List<List<Object>> squall(String sql) throws Exception {
    HttpResponse<byte[]> response = stack.post(sql, Map.of("default_schema", "tpch",
        "target_split_size_bytes", "65536", "target_bytes_per_task", "65536"), "application/vnd.apache.arrow.stream");
    assertThat(response.statusCode()).as("%s: %s", sql, new String(response.body())).isEqualTo(200);
    return ResultRows.fromArrow(response.body());
  }

  private List<List<Object>> duckDb(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return ResultRows.fromJdbc(rs);
    }
  }

  /** DuckDB's {@code x op y} under IEEE 754: with a NaN operand only {@code <>} holds (NULL stays NULL). */
  private static String ieee(String x, String op, String y) {
    return "case when " + x + " is null or " + y + " is null then null when isnan(" + x + ") or isnan(" + y + ") then "
        + op.equals("<>") + " else " + x + " " + op + " " + y + " end";
  }

  /** Trino's {@code x IS DISTINCT FROM y} for DOUBLE operands, in DuckDB (whose {@code =} takes NaN = NaN). */
  private static String distinct(String x, String y) {
    return "case when " + x + " is null or " + y + " is null then (" + x + " is null) <> (" + y + " is null)"
        + " when isnan(" + x + ") or isnan(" + y + ") then not (isnan(" + x + ") and isnan(" + y + ")) else " + x + " <> "
        + y + " end";
  }

  private void assertSameAnswer(String label, String squallSql, String duckSql) throws Exception {
    List<List<Object>> actual = squall(squallSql);
    List<List<Object>> expected = duckDb(duckSql);
    assertThat(actual).as("%s: rows", label).isNotEmpty();
    assertThat(ResultRows.difference(actual, expected, false)).as("%s differs from DuckDB", label).isNull();
  }
}
