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
      "select substr(1, 2) from nation#Unexpected parameters (INTEGER, INTEGER) for function substring. Expected:"
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
  void ntileOfAColumnIsRefusedAtItsArgument() {
    assertRefused("select n_name,\n  ntile(n_regionkey) over (order by n_name) from nation", Code.UNSUPPORTED,
        "Unsupported SQL: the bucket count of NTILE must be a number literal, as in ntile(4); a count read from each"
            + " row is not supported by Squall", 2, 9);
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
