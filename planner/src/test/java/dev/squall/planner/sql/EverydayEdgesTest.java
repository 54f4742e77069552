package dev.squall.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.PlanningException;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Field;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a new user coming from Trino or Athena types first: Trino's words, names, grouping and errors. */
class EverydayEdgesTest {
  private static PlanningException refused(String sql) {
    return catchThrowableOfType(PlanningException.class, () -> Planning.sf1(sql));
  }

  @Test
  void wordsCalciteReservesButTrinoDoesNotAreIdentifiers() {
    var q = Planning.sf1("select n_name as running, n_nationkey prev, n_regionkey as dec, n_comment as empty,"
        + " 1 as value from nation");
    assertThat(q.outputSchema().getFieldsList()).extracting(Field::getName)
        .containsExactly("running", "prev", "dec", "empty", "value");
    StageGraphs.assertWellFormed(Planning.sf1("select running from (select n_name running from nation) t where running like 'A%'").stageGraph());
  }

  @Test
  void yearAndReturnsNameColumnsAsInTrinoWhileYearStaysAUnitAndAFunction() {
    var q = Planning.sf1("select year, t.returns from (select extract(year from o_orderdate) as year, o_totalprice returns"
        + " from orders where o_orderdate < date '1995-01-01' + interval '1' year and year(o_orderdate) > 1992"
        + " and o_orderdate > date '1992-01-01' + interval '1-2' year to month) t order by t.year");
    assertThat(q.outputSchema().getFieldsList()).extracting(Field::getName).containsExactly("year", "returns");
    StageGraphs.assertWellFormed(q.stageGraph());
  }

  @Test
  void decStaysATypeInACastDayAnIntervalUnitAndFetchNextAClause() {
    StageGraphs.assertWellFormed(Planning.sf1("select cast(n_nationkey as dec(10, 2)), day(o_orderdate), hour(cast(o_orderdate as timestamp)),"
        + " o_orderdate + interval '3' day, o_orderdate - interval '1' day (3) from orders, nation where n_nationkey = o_custkey").stageGraph());
    StageGraphs.assertWellFormed(Planning.sf1("select n_name as next from nation order by 1 offset 2 rows fetch next 3 rows only").stageGraph());
  }

  @Test
  void errorsAfterAQuotedWordPointIntoTheTextAsSent() {
    PlanningException e = refused("select n_name as running, n_nonsense\nfrom nation");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNKNOWN_COLUMN);
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.column()).isEqualTo(27);
  }

  @ParameterizedTest
  @ValueSource(strings = {"select * from nation where n_name = 1", "select * from nation where 1 < n_name",
      "select * from nation where n_name in (1, 2)", "select * from nation where n_regionkey in ('1', '2')",
      "select * from nation where n_name in (select n_regionkey from nation)"})
  void stringsComparedWithNumbersAreRefusedWithTheirPosition(String sql) {
    PlanningException e = refused(sql);
    assertThat(e).as(sql).isNotNull();
    assertThat(e.code()).isNotEqualTo(PlanningException.Code.INTERNAL);
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.column()).isEqualTo(sql.indexOf("where") + 7);
    assertThat(e.reason()).contains("VARCHAR").containsAnyOf("INTEGER", "BIGINT")
        .doesNotContainIgnoringCase("char(").doesNotContain("long");
  }

  @Test
  void comparisonsThatTrinoCoercesStillPlan() {
    for (String sql : List.of("select * from nation where n_regionkey = 1.5", "select * from lineitem where l_shipdate >= '1995-01-01'",
        "select * from nation where n_name = 'x'", "select * from nation where n_regionkey in (1, 2.5)")) {
      StageGraphs.assertWellFormed(Planning.sf1(sql).stageGraph());
    }
  }

  @Test
  void unquotedNamesAreLowerCaseAndQuotedNamesKeepTheirCase() {
    var q = Planning.sf1("SELECT N_NAME, n_regionkey AS Region, 1 AS \"Quoted\", Count(*) AS CNT FROM TPCH.Nation"
        + " GROUP BY N_NAME, n_regionkey");
    assertThat(q.outputSchema().getFieldsList()).extracting(Field::getName)
        .containsExactly("n_name", "region", "Quoted", "cnt");
  }

  @Test
  void unnamedColumnsAreNamedAsInTrino() {
    var q = Planning.sf1("select n_name, count(*), max(n_regionkey) + 1 from nation group by n_name");
    assertThat(q.outputSchema().getFieldsList()).extracting(Field::getName).containsExactly("n_name", "_col1", "_col2");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select n_regionkey % 2, count(*) from nation group by 1 order by 1",
      "select n_regionkey % 2 as parity, count(*) from nation group by parity order by parity",
      "select n_regionkey % 2 as parity, count(*) c from nation group by 1 having c > 1 order by 2 desc",
      "select n_regionkey, n_name, count(*) from nation group by 2, 1"})
  void groupByOrdinalAndAliasPlan(String sql) {
    StageGraphs.assertWellFormed(Planning.sf1(sql).stageGraph());
  }

  @Test
  void sumOfAStringIsRefusedAtValidationWithItsPosition() {
    PlanningException e = refused("select n_regionkey,\n  sum(n_name) from nation group by n_regionkey");
    assertThat(e.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(e.reason()).isEqualTo("Unexpected parameters (VARCHAR) for function sum. Expected: sum(NUMERIC)");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(3);
  }

  @Test
  void emptyStatementAndMisspelledKeywordSayWhatIsWrong() {
    assertThat(refused(" ; -- nothing").reason()).isEqualTo("Syntax error: the statement is empty; expected a query such as SELECT");
    assertThat(refused("").reason()).contains("the statement is empty");
    assertThat(refused("selec *").reason()).contains("'selec' does not start a statement")
        .contains("MERGE").contains("ALTER").contains("SHOW");
    assertThat(refused("vacuum tpch.lineitem").reason()).contains("ALTER TABLE t EXECUTE optimize");
    assertThat(refused("OPTIMIZE tpch.lineitem REWRITE DATA USING BIN_PACK").reason())
        .contains("ALTER TABLE t EXECUTE optimize");
  }

  @ParameterizedTest
  @ValueSource(strings = {";", "selec *", "  ;  ", "", "select from", "select * fro nation"})
  void malformedStatementsAreAPlainSyntaxError(String sql) {
    PlanningException e = refused(sql);
    assertThat(e.code()).isEqualTo(PlanningException.Code.SYNTAX_ERROR);
    assertThat(e.reason()).startsWith("Syntax error").doesNotContain("Exception").doesNotContain("org.apache");
    assertThat(e.line()).isPositive();
  }

  @Test
  void partitionIsAnIdentifierButBeforeBy() {
    var q = Planning.sf1("select partition, count(*) over (partition by partition) from"
        + " (select n_regionkey as partition from nation) t");
    assertThat(q.outputSchema().getFieldsList()).extracting(Field::getName).containsExactly("partition", "_col1");
    StageGraphs.assertWellFormed(q.stageGraph());
  }

  @ParameterizedTest
  @ValueSource(strings = {"select * from nation where 'a' > 1", "select * from nation where n_name = 1",
      "select * from nation where n_regionkey in ('1', '2')"})
  void typeErrorsNameSqlTypes(String sql) {
    String reason = refused(sql).reason();
    assertThat(reason).as(sql).containsAnyOf("VARCHAR", "INTEGER")
        .doesNotContain("CHAR(").doesNotContain("char(").doesNotContain("CHARACTER").doesNotContain("long");
  }

  @Test
  void notFoundReadsAsInTrinoWhicheverStatementRefuses() {
    PlanningException e = refused("select *\nfrom tpch.nation2");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNKNOWN_TABLE);
    assertThat(e.reason()).isEqualTo("Table 'tpch.nation2' does not exist");
    assertThat(e.line()).isEqualTo(2);
    assertThat(refused("select n_nope from nation").reason()).isEqualTo("Column 'n_nope' cannot be resolved");
    assertThat(refused("select n.n_nope from nation n").reason()).isEqualTo("Column 'n.n_nope' cannot be resolved");
    assertThat(refused("drop table tpch.nation2").reason()).isEqualTo("Table 'tpch.nation2' does not exist");
    for (String sql : List.of("delete from tpch.nation2", "update tpch.nation2 set n_name = 'x'",
        "merge into tpch.nation2 t using nation s on t.n_nationkey = s.n_nationkey when matched then delete")) {
      assertThat(refused(sql).reason()).as(sql).isEqualTo("Table 'tpch.nation2' does not exist");
    }
    PlanningException set = refused("update nation\nset n_name = 'x', n_nope = 1");
    assertThat(set.reason()).isEqualTo("Column 'n_nope' cannot be resolved");
    assertThat(set.line()).isEqualTo(2);
    assertThat(set.column()).isEqualTo(19);
    assertThat(refused("update nation n set n.n_nope = 1").reason()).isEqualTo("Column 'n.n_nope' cannot be resolved");
    PlanningException where = refused("update nation set n_name = 'x'\nwhere n_nope = 1");
    assertThat(where.reason()).isEqualTo("Column 'n_nope' cannot be resolved");
    assertThat(where.line()).isEqualTo(2);
    assertThat(where.column()).isEqualTo(7);
    for (String sql : List.of("select * from nation2", "select n_nope from nation", "drop table nation2",
        "update nation set n_nope = 1", "delete from nation2")) {
      assertThat(refused(sql).reason()).as(sql).doesNotContain("not found");
    }
  }

  @Test
  void anUnknownFunctionIsNotRegistered() {
    PlanningException e = refused("select n_name,\n  foo(n_name) from nation");
    assertThat(e.reason()).isEqualTo("Function 'foo' not registered");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(3);
  }
}
