package dev.squall.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.testing.Planning;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What Trino refuses at analysis is refused at validation, in Trino's words (with Squall's type
 * names, docs/sql.md), with a code and the line and column of the construct: strings and numbers
 * are never converted implicitly, and no Calcite wording reaches the user.
 */
class TrinoRefusalsTest {
  private static PlanningException refused(String sql) {
    PlanningException e = catchThrowableOfType(PlanningException.class, () -> Planning.sf1(sql));
    assertThat(e).as("refused: %s", sql).isNotNull();
    return e;
  }

  /** Asserts that {@code sql} is refused with this code, reason and position. */
  private static void assertRefused(String sql, Code code, String reason, int line, int column) {
    PlanningException e = refused(sql);
    assertThat(e.code()).isEqualTo(code);
    assertThat(e.reason()).isEqualTo(reason);
    assertThat(e.line()).isEqualTo(line);
    assertThat(e.column()).isEqualTo(column);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "select 'a' + 1 from nation|Cannot apply operator: VARCHAR + INTEGER|8",
      "select n_nationkey + '1' from nation|Cannot apply operator: BIGINT + VARCHAR|8",
      "select 1 - 'a' from nation|Cannot apply operator: INTEGER - VARCHAR|8",
      "select n_name, -'a' from nation|Cannot apply operator: -VARCHAR|16",
      "select date '2020-01-01' - 1 from nation|Cannot apply operator: DATE - INTEGER|8",
  })
  void arithmeticOnStringsIsRefusedAsAnOperator(String sql, String message, int column) {
    assertRefused(sql, Code.VALIDATION_ERROR, message, 1, column);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '#', value = {
      "select length(123) from nation#Unexpected parameters (INTEGER) for function length. Expected: length(VARCHAR)",
      "select substr(1, 2) from nation#Unexpected parameters (INTEGER, INTEGER) for function substr. Expected:"
          + " substr(VARCHAR, NUMERIC)",
      "select SUBSTR(n_nationkey, 2, 1) from nation#Unexpected parameters (BIGINT, INTEGER, INTEGER) for function"
          + " substr. Expected: substr(VARCHAR, INTEGER, INTEGER)",
      "select substring(1, 2) from nation#Unexpected parameters (INTEGER, INTEGER) for function substring. Expected:"
          + " substring(VARCHAR, NUMERIC)",
      "select 'a' || 1 from nation#Unexpected parameters (VARCHAR, INTEGER) for function concat. Expected:"
          + " concat(VARCHAR, VARCHAR)",
      "select concat(n_name, n_nationkey) from nation#Unexpected parameters (VARCHAR, BIGINT) for function concat."
          + " Expected: concat(VARCHAR, VARCHAR)",
      "select upper(n_nationkey) from nation#Unexpected parameters (BIGINT) for function upper. Expected: upper(VARCHAR)",
      "select abs('1') from nation#Unexpected parameters (VARCHAR) for function abs. Expected: abs(NUMERIC)",
      "select sum(n_name) from nation#Unexpected parameters (VARCHAR) for function sum. Expected: sum(NUMERIC)",
      "select avg('1') from nation#Unexpected parameters (VARCHAR) for function avg. Expected: avg(NUMERIC)",
  })
  void functionArgumentsOfTheOtherKindAreUnexpectedParameters(String sql, String message) {
    assertRefused(sql, Code.VALIDATION_ERROR, message, 1, 8);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select n_nationkey + 1.5, n_nationkey * 2e0, n_regionkey / 2.0 from nation",
      "select date '2020-01-01' + interval '1' day, o_orderdate - interval '3' month from orders",
      "select o_orderkey from orders where o_orderdate < '1995-01-01'",
      "select concat(n_name, '-', n_comment), n_name || cast(n_nationkey as varchar), n_name || null from nation",
      "select round(n_nationkey * 1.5, 1), lpad(n_name, 10, 'x'), substr(n_name, 2, 3), null + 1 from nation",
  })
  void wideningAndDateArithmeticStillPlan(String sql) {
    assertThat(Planning.sf1(sql)).isNotNull();
  }

  @Test
  void aSyntaxErrorStatesItsPositionOnce() {
    assertRefused("select n_name\nfrom nation wher x", Code.SYNTAX_ERROR, "Syntax error: Encountered \"x\"", 2, 18);
  }

  @Test
  void anImpossibleDateLiteralIsNamed() {
    assertRefused("select date '2020-13-01' from nation", Code.VALIDATION_ERROR,
        "'2020-13-01' is not a valid DATE literal", 1, 8);
  }

  @Test
  void substrWithAWrongArgumentCountIsNamedAsWritten() {
    PlanningException e = refused("select substr(n_name) from nation");
    assertThat(e.reason()).containsIgnoringCase("substr'").doesNotContainIgnoringCase("substring");
    assertThat(e.column()).isEqualTo(8);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "select n_name, n_nationkey from nation order by 5|ORDER BY position 5 is not in select list|1|49",
      "select n_name from nation\\norder by n_name, 0|ORDER BY position 0 is not in select list|2|18",
      "select n_name, n_nationkey from nation order by 3 desc nulls first|ORDER BY position 3 is not in select list|1|49",
      "select n_regionkey, count(*) from nation group by 5|GROUP BY position 5 is not in select list|1|51",
      "select n_regionkey, count(*) from nation group by rollup (n_regionkey, 4)|GROUP BY position 4 is not in select"
          + " list|1|72",
  })
  void aPositionPastTheSelectListIsNamedWithItsClause(String sql, String message, int line, int column) {
    assertRefused(sql.replace("\\n", "\n"), Code.VALIDATION_ERROR, message, line, column);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "select cast('abc' as integer)|Cannot cast 'abc' to INTEGER|8",
      "select n_name,\\n  cast('1.5' as bigint) from nation|Cannot cast '1.5' to BIGINT|3",
      "select n_name from nation where n_nationkey > cast('x1' as decimal(10, 2))|Cannot cast 'x1' to DECIMAL(10, 2)|47",
      "select 1 + cast('one' as double)|Cannot cast 'one' to DOUBLE|12",
      "select cast('maybe' as boolean)|Cannot cast 'maybe' to BOOLEAN|8",
  })
  void aConstantCastThatCannotSucceedIsRefusedAtItsPosition(String sql, String message, int column) {
    String text = sql.replace("\\n", "\n");
    assertRefused(text, Code.VALIDATION_ERROR, message, text.contains("\n") ? 2 : 1, column);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select cast(' 12 ' as integer), cast('-3' as bigint), cast('1e3' as double), cast('NaN' as double),"
          + " cast(' 2.50' as decimal(10, 2)), cast('Yes' as boolean), cast('2020-01-01' as date)",
      "select case when n_nationkey < 0 then cast('abc' as integer) end from nation",
      "select try(cast('abc' as integer)), if(false, cast('x' as bigint)), coalesce(1, cast('y' as integer))",
      "select try_cast('abc' as integer)",
  })
  void constantCastsThatMaySucceedOrNeverRunStillPlan(String sql) {
    assertThat(Planning.sf1(sql)).isNotNull();
  }

  @Test
  void ntileReadsItsBucketCountFromAColumn() {
    assertThat(Planning.sf1("select n_name, ntile(n_regionkey) over (order by n_name),"
        + " ntile(n_nationkey % 4 + 1) over (partition by n_regionkey order by n_name) from nation")).isNotNull();
    assertRefused("select ntile(n_name) over (order by n_name) from nation", Code.VALIDATION_ERROR,
        "Unexpected parameters (VARCHAR) for function ntile. Expected: ntile(INTEGER)", 1, 8);
  }

  @Test
  void useNamesTheDefaultSchemaProperty() {
    PlanningException e = refused("use tpch");
    assertThat(e.code()).isEqualTo(Code.UNSUPPORTED);
    assertThat(e.reason()).startsWith("Unsupported SQL: USE is not supported by Squall").contains("default_schema");
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.column()).isEqualTo(1);
  }
}
