package dev.squall.planner.translate;

import static dev.squall.planner.testing.StageGraphs.operators;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

/**
 * RexNode to Expr translation, observed on planned queries: the Filter over the lineitem scan and
 * the projection above it.
 */
class ExpressionTranslationTest {
  private static Expr filterOf(String where) {
    StageGraph graph = Planning.sf1("select l_orderkey from lineitem where " + where).stageGraph();
    return operators(graph, Operator.OpCase.FILTER).get(0).getFilter().getCondition();
  }

  private static Expr projectionOf(String expression) {
    StageGraph graph = Planning.sf1("select " + expression + " from lineitem").stageGraph();
    return operators(graph, Operator.OpCase.PROJECT).get(0).getProject().getExpressions(0);
  }

  @Test
  void inListBecomesInWithTypedLiterals() {
    Call in = filterOf("l_shipmode in ('MAIL', 'SHIP', 'AIR')").getCall();
    assertThat(in.getFunction()).isEqualTo(Function.IN);
    assertThat(in.getArgs(0).getColumn()).isGreaterThanOrEqualTo(0);
    assertThat(in.getArgsList().subList(1, 4)).extracting(e -> e.getLiteral().getStringValue())
        .containsExactlyInAnyOrder("MAIL", "SHIP", "AIR");
  }

  @Test
  void notInBecomesNotOfIn() {
    Call not = filterOf("l_linenumber not in (1, 2, 3)").getCall();
    assertThat(not.getFunction()).isEqualTo(Function.NOT);
    Call in = not.getArgs(0).getCall();
    assertThat(in.getFunction()).isEqualTo(Function.IN);
    assertThat(in.getArgsList().subList(1, 4)).extracting(e -> e.getLiteral().getLongValue()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void closedRangeBecomesBetweenWithDecimalLiterals() {
    Call between = filterOf("l_discount between 0.05 and 0.07").getCall();
    assertThat(between.getFunction()).isEqualTo(Function.BETWEEN);
    assertThat(between.getArgs(1).getLiteral().getDecimalUnscaled()).isEqualTo("5");
    assertThat(between.getArgs(1).getType().getScale()).isEqualTo(2);
    assertThat(between.getArgs(2).getLiteral().getDecimalUnscaled()).isEqualTo("7");
  }

  @Test
  void halfOpenDateRangeBecomesComparisonsOnFoldedDates() {
    Call and = filterOf("l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year").getCall();
    assertThat(and.getFunction()).isEqualTo(Function.AND);
    assertThat(and.getArgs(0).getCall().getFunction()).isEqualTo(Function.GREATER_THAN_OR_EQUAL);
    assertThat(and.getArgs(0).getCall().getArgs(1).getLiteral().getDateDays())
        .isEqualTo((int) LocalDate.of(1994, 1, 1).toEpochDay());
    assertThat(and.getArgs(1).getCall().getFunction()).isEqualTo(Function.LESS_THAN);
    assertThat(and.getArgs(1).getCall().getArgs(1).getLiteral().getDateDays())
        .isEqualTo((int) LocalDate.of(1995, 1, 1).toEpochDay());
  }

  @Test
  void dateArithmeticOnAColumnKeepsTheIntervalInItsUnits() {
    Call plus = projectionOf("l_shipdate + interval '3' month").getCall();
    assertThat(plus.getFunction()).isEqualTo(Function.DATE_PLUS_INTERVAL);
    assertThat(plus.getArgs(1).getType().getKind()).isEqualTo(DataType.Kind.INTERVAL_YEAR_MONTH);
    assertThat(plus.getArgs(1).getLiteral().getLongValue()).isEqualTo(3);
    Call minus = projectionOf("l_shipdate - interval '2' day").getCall();
    assertThat(minus.getFunction()).isEqualTo(Function.DATE_MINUS_INTERVAL);
    assertThat(minus.getArgs(1).getLiteral().getLongValue()).isEqualTo(2L * 24 * 3600 * 1000);
  }

  @Test
  void notLikeBecomesNotOfLike() {
    Call not = filterOf("l_comment not like '%special%'").getCall();
    assertThat(not.getFunction()).isEqualTo(Function.NOT);
    assertThat(not.getArgs(0).getCall().getFunction()).isEqualTo(Function.LIKE);
    assertThat(not.getArgs(0).getCall().getArgs(1).getLiteral().getStringValue()).isEqualTo("%special%");
  }

  @Test
  void decimalArithmeticCarriesCalcitesDerivedTypes() {
    Expr e = projectionOf("l_extendedprice * (1 - l_discount)");
    assertThat(e.getCall().getFunction()).isEqualTo(Function.MULTIPLY);
    assertThat(e.getType().getKind()).isEqualTo(DataType.Kind.DECIMAL);
    // DECIMAL(15,2) * DECIMAL(16,2): precision 31, scale 4.
    assertThat(e.getType().getScale()).isEqualTo(4);
    assertThat(e.getType().getPrecision()).isEqualTo(31);
    assertThat(e.getCall().getArgs(1).getCall().getFunction()).isEqualTo(Function.SUBTRACT);
  }

  @Test
  void extractCaseCastSubstringAndTrimTranslate() {
    assertThat(projectionOf("extract(year from l_shipdate)").getCall().getFunction()).isEqualTo(Function.EXTRACT_YEAR);
    assertThat(projectionOf("extract(dow from l_shipdate)").getCall().getFunction()).isEqualTo(Function.EXTRACT_DOW);
    Expr caseExpr = projectionOf("case when l_quantity > 10 then 'big' else 'small' end");
    assertThat(caseExpr.getCall().getFunction()).isEqualTo(Function.CASE);
    assertThat(caseExpr.getCall().getArgsCount()).isEqualTo(3);
    assertThat(caseExpr.getType().getKind()).isEqualTo(DataType.Kind.VARCHAR);
    Expr cast = projectionOf("cast(l_quantity as double)");
    assertThat(cast.getCall().getFunction()).isEqualTo(Function.CAST);
    assertThat(cast.getType().getKind()).isEqualTo(DataType.Kind.DOUBLE);
    assertThat(projectionOf("substring(l_comment from 2 for 3)").getCall().getFunction()).isEqualTo(Function.SUBSTRING);
    Call trim = projectionOf("trim(leading 'x' from l_comment)").getCall();
    assertThat(trim.getFunction()).isEqualTo(Function.TRIM);
    assertThat(trim.getArgs(0).getLiteral().getStringValue()).isEqualTo("LEADING");
    assertThat(projectionOf("upper(l_comment) || 'x'").getCall().getFunction()).isEqualTo(Function.CONCAT);
  }

  @Test
  void countOfANullableColumnIsCount() {
    StageGraph graph = Planning.sf1(
        "select c_custkey, count(o_orderkey) from customer left join orders on c_custkey = o_custkey group by c_custkey").stageGraph();
    assertThat(operators(graph, Operator.OpCase.AGGREGATE)).allSatisfy(a ->
        assertThat(a.getAggregate().getAggregates(0).getKind()).isEqualTo(dev.squall.proto.v1.AggregateCall.Kind.COUNT));
  }

  @Test
  void isNullBecomesIsNull() {
    StageGraph graph = Planning.sf1("select count(*) from orders left join customer on o_custkey = c_custkey where c_name is null").stageGraph();
    assertThat(operators(graph, Operator.OpCase.FILTER)).anySatisfy(f ->
        assertThat(f.getFilter().getCondition().getCall().getFunction()).isEqualTo(Function.IS_NULL));
  }
}
