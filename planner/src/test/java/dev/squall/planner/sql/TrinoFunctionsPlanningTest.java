package dev.squall.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlanningException;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.Operator;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Trino function names plan into well-formed stage graphs; bad units are refused before any task runs. */
class TrinoFunctionsPlanningTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "select round(c_acctbal), round(c_acctbal, -1), truncate(c_acctbal, 1), ceil(c_acctbal), floor(c_acctbal),"
          + " mod(c_custkey, 3), c_custkey % 3, power(c_custkey, 2), sqrt(c_custkey), cbrt(c_custkey), exp(1),"
          + " ln(c_custkey), log10(c_custkey), log2(c_custkey), sign(c_acctbal), pi() from customer",
      "select concat(c_name, '-', c_phone), replace(c_name, 'C'), replace(c_name, 'C', 'c'), position('#' in c_name),"
          + " strpos(c_name, '#'), reverse(c_name), lpad(c_name, 3, 'x'), rpad(c_name, 30, 'x'), ltrim(c_name),"
          + " rtrim(c_name), split_part(c_phone, '-', 2), starts_with(c_name, 'C'), length(c_name),"
          + " regexp_like(c_name, 'C+'), regexp_extract(c_name, '[0-9]+'), regexp_extract(c_phone, '(\\d+)-', 1),"
          + " regexp_replace(c_name, '0'), regexp_replace(c_name, '0', 'o') from customer",
      "select greatest(c_acctbal, 0), least(c_custkey, 5, c_nationkey), if(c_acctbal > 0, 'yes', 'no'), if(c_acctbal > 0, 1),"
          + " try(c_custkey / 0), try_cast(c_phone as integer) from customer",
      "select year(o_orderdate), quarter(o_orderdate), month(o_orderdate), week(o_orderdate), day_of_month(o_orderdate),"
          + " day_of_week(o_orderdate), dow(o_orderdate), day_of_year(o_orderdate), doy(o_orderdate),"
          + " hour(cast(o_orderdate as timestamp)), minute(cast(o_orderdate as timestamp)), second(cast(o_orderdate as timestamp)),"
          + " date_trunc('month', o_orderdate), date_add('day', 3, o_orderdate), date_diff('year', o_orderdate, date '1999-01-01'),"
          + " from_unixtime(o_orderkey), to_unixtime(cast(o_orderdate as timestamp)), date_format(o_orderdate, '%Y'),"
          + " date_parse('2020-01-02', '%Y-%m-%d'), current_date, current_timestamp, now() from orders"})
  void trinoFunctionsPlan(String sql) {
    StageGraphs.assertWellFormed(Planning.sf1(sql).stageGraph());
  }

  @Test
  void dateUnitThatIsNotOneIsRefusedByName() {
    PlanningException e = catchThrowableOfType(PlanningException.class,
        () -> Planning.sf1("select date_trunc('fortnight', o_orderdate) from orders"));
    assertThat(e.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("'fortnight'").contains("DATE_TRUNC");
  }

  @Test
  void timeUnitOnADateIsRefused() {
    PlanningException e = catchThrowableOfType(PlanningException.class,
        () -> Planning.sf1("select date_add('hour', 1, o_orderdate) from orders"));
    assertThat(e.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("'hour'").contains("DATE");
  }

  @Test
  void currentTimeIsOneLiteralOfTheQueryStart() {
    Instant start = Instant.parse("2024-02-29T23:59:58.123Z");
    String plan = new DistributedPlanner(Planning.SF1).plan(
        "select current_timestamp, now(), current_date from nation where n_nationkey in (select max(n_nationkey) from nation"
            + " where current_date > date '2024-01-01')",
        Planning.SETTINGS, start).logicalPlan();
    assertThat(plan).contains("2024-02-29 23:59:58.123").contains("2024-02-29").doesNotContain("CURRENT_").doesNotContain("NOW");
  }

  @Test
  void trinoAggregatesSplitIntoPartialAndFinalStates() {
    var graph = Planning.sf100("select l_returnflag, stddev(l_quantity), var_pop(l_discount), bool_and(l_tax > 0),"
        + " bool_or(l_tax > 0), count_if(l_tax > 0), arbitrary(l_linestatus), approx_count_distinct(l_orderkey),"
        + " approx_percentile(l_quantity, 0.25), max_by(l_comment, l_shipdate) from lineitem group by l_returnflag").stageGraph();
    StageGraphs.assertWellFormed(graph);
    var aggregates = StageGraphs.operators(graph, Operator.OpCase.AGGREGATE);
    assertThat(aggregates).extracting(o -> o.getAggregate().getMode())
        .contains(Aggregate.Mode.PARTIAL, Aggregate.Mode.FINAL).doesNotContain(Aggregate.Mode.SINGLE);
    Aggregate partial = aggregates.stream().map(Operator::getAggregate)
        .filter(a -> a.getMode() == Aggregate.Mode.PARTIAL).findFirst().orElseThrow();
    // Variances become sums and counts; the others keep one state each.
    assertThat(partial.getAggregatesList()).extracting(AggregateCall::getKind).contains(AggregateCall.Kind.SUM,
        AggregateCall.Kind.MIN, AggregateCall.Kind.MAX, AggregateCall.Kind.COUNT_IF,
        AggregateCall.Kind.APPROX_COUNT_DISTINCT, AggregateCall.Kind.APPROX_PERCENTILE, AggregateCall.Kind.MAX_BY);
    assertThat(partial.getAggregatesList()).filteredOn(c -> c.getKind() == AggregateCall.Kind.APPROX_PERCENTILE)
        .singleElement().satisfies(c -> {
          assertThat(c.getPercentile()).isEqualTo(0.25);
          assertThat(c.getArgsCount()).isEqualTo(1);
        });
  }

  @Test
  void approxDistinctIsTrinosNameForApproxCountDistinct() {
    var graph = Planning.sf100("select l_returnflag, approx_distinct(l_orderkey) from lineitem group by l_returnflag")
        .stageGraph();
    assertThat(StageGraphs.operators(graph, Operator.OpCase.AGGREGATE)).flatExtracting(o -> o.getAggregate()
        .getAggregatesList()).extracting(AggregateCall::getKind).containsOnly(AggregateCall.Kind.APPROX_COUNT_DISTINCT);
  }

  @Test
  void percentileOutsideZeroToOneIsRefused() {
    PlanningException e = catchThrowableOfType(PlanningException.class,
        () -> Planning.sf1("select approx_percentile(l_quantity, 1.5) from lineitem"));
    assertThat(e.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("between 0 and 1");
  }
}
