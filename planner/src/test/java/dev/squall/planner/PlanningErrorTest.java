package dev.squall.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.testing.Planning;
import dev.squall.proto.v1.ErrorCode;
import org.junit.jupiter.api.Test;

/** Bad SQL is refused before anything runs, with a code, the construct and its line and column. */
class PlanningErrorTest {
  private static PlanningException refused(String sql) {
    return catchThrowableOfType(PlanningException.class, () -> Planning.sf1(sql));
  }

  @Test
  void syntaxErrorReportsLineAndColumnOfTheUnexpectedToken() {
    PlanningException e = refused("select l_orderkey\nfrom lineitem\nwhere l_quantity 3");
    assertThat(e.code()).isEqualTo(PlanningException.Code.SYNTAX_ERROR);
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.column()).isEqualTo(18);
    assertThat(e.reason()).contains("\"3\"");
    assertThat(e.toQueryError().getCode()).isEqualTo(ErrorCode.USER_ERROR);
  }

  @Test
  void unknownTableIsNamedWithItsPosition() {
    PlanningException e = refused("select *\n  from tpch.lineitems");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNKNOWN_TABLE);
    assertThat(e.reason()).contains("lineitems");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(8);
  }

  @Test
  void unknownColumnIsNamedWithItsPosition() {
    PlanningException e = refused("select l_orderkey, l_nonsense from lineitem");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNKNOWN_COLUMN);
    assertThat(e.reason()).contains("l_nonsense");
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.column()).isEqualTo(20);
  }

  @Test
  void windowFunctionOutsideTheWindowOperatorsIsRefusedByNameAndPosition() {
    PlanningException e = refused("select l_orderkey,\n       stddev(l_quantity) over (order by l_quantity) from lineitem");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(e.reason()).contains("window function STDDEV");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(8);
  }

  @Test
  void windowCountsOutOfRangeAreRefusedWithTheirPosition() {
    PlanningException ntile = refused("select l_orderkey,\n  ntile(0) over (order by l_orderkey) from lineitem");
    assertThat(ntile.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(ntile.reason()).isEqualTo("Buckets must be greater than 0");
    assertThat(ntile.line()).isEqualTo(2);
    assertThat(ntile.column()).isEqualTo(9);
    PlanningException lag = refused("select lag(l_quantity, -1) over (order by l_orderkey) from lineitem");
    assertThat(lag.reason()).isEqualTo("Offset must be at least 0");
    assertThat(lag.line()).isEqualTo(1);
    assertThat(lag.column()).isEqualTo(24);
    PlanningException decimal = refused("select lead(l_quantity, 1.5) over (order by l_orderkey) from lineitem");
    assertThat(decimal.reason()).isEqualTo("The count of LEAD must be an integer, not 1.5");
    assertThat(decimal.column()).isEqualTo(25);
    PlanningException wrongDefault = refused("select lag(l_orderkey, 1, 'x') over (order by l_orderkey) from lineitem");
    assertThat(wrongDefault.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(wrongDefault.reason()).isEqualTo("The default of LAG must be of its value's type BIGINT, not CHAR");
    PlanningException roundedDefault = refused("select lag(l_linenumber, 1, 1.5) over (order by l_orderkey) from lineitem");
    assertThat(roundedDefault.reason()).isEqualTo("The default of LAG must be of its value's type INTEGER, not DECIMAL");
    assertThat(refused("select lag(l_extendedprice, 1, 0.125) over (order by l_orderkey) from lineitem").reason())
        .isEqualTo("The default of LAG must be of its value's type DECIMAL, not 0.125");
    assertThat(refused("select lag(l_linenumber, 1, 1e0) over (order by l_orderkey) from lineitem").reason())
        .isEqualTo("The default of LAG must be of its value's type INTEGER, not DOUBLE");
    PlanningException nth = refused("select nth_value(l_quantity, 0) over (order by l_orderkey) from lineitem");
    assertThat(nth.reason()).isEqualTo("Offset must be at least 1");
    assertThat(nth.column()).isEqualTo(30);
  }

  @Test
  void ignoreNullsAndFrameExclusionAreRefusedWithTheirPosition() {
    PlanningException ignore = refused(
        "select l_orderkey, lag(l_quantity) ignore nulls over (order by l_orderkey) from lineitem");
    assertThat(ignore.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(ignore.reason()).contains("IGNORE NULLS");
    assertThat(ignore.line()).isEqualTo(1);
    assertThat(ignore.column()).isGreaterThan(0);
    PlanningException exclude = refused("select sum(l_quantity) over (order by l_orderkey rows between 1 preceding"
        + " and 1 following exclude current row) from lineitem");
    assertThat(exclude.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(exclude.reason()).contains("EXCLUDE");
    assertThat(exclude.column()).isGreaterThan(0);
  }

  @Test
  void tooManyGroupingSetsAreRefusedBeforeExpansion() {
    StringBuilder columns = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      columns.append(i == 0 ? "" : ", ").append("l_quantity + ").append(i);
    }
    PlanningException e = refused("select count(*) from lineitem\ngroup by cube(" + columns + ")");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(e.reason()).contains("1073741824 grouping sets").contains("2048");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(10);
    // Items multiply and GROUPING SETS add: 1 * (1 + 1) * 2^11.
    String eleven = columns.substring(0, columns.indexOf(", l_quantity + 11"));
    assertThat(refused("select count(*) from lineitem group by l_returnflag, grouping sets ((l_linestatus), ()),"
        + " cube(" + eleven + ")").reason()).contains("4096 grouping sets");
  }

  @Test
  void unknownFunctionIsRefusedByName() {
    PlanningException e = refused("select soundex(l_comment) from lineitem");
    assertThat(e.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(e.reason()).isEqualTo("Function 'soundex' not registered");
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.column()).isEqualTo(8);
  }

  @Test
  void groupIdIsRefusedByNameAndPosition() {
    PlanningException e = refused("select l_returnflag, group_id() from lineitem group by rollup(l_returnflag)");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(e.reason()).contains("GROUP_ID");
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.column()).isEqualTo(22);
  }

  @Test
  void unsupportedExtractUnitIsRefused() {
    PlanningException e = refused("select extract(epoch from l_shipdate) from lineitem");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(e.reason()).contains("EXTRACT");
  }

  @Test
  void dateDifferenceIsRefused() {
    PlanningException e = refused("select (l_receiptdate - l_shipdate) day from lineitem");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(e.reason()).contains("interval arithmetic");
  }

  @Test
  void typeErrorIsAValidationError() {
    PlanningException e = refused("select l_orderkey from lineitem where l_shipdate = true");
    assertThat(e.code()).isEqualTo(PlanningException.Code.VALIDATION_ERROR);
    assertThat(e.line()).isEqualTo(1);
  }

  @Test
  void errorPositionsInsideExplainPointIntoTheOriginalText() {
    PlanningException e = refused("EXPLAIN (FORMAT JSON) select nope from lineitem");
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNKNOWN_COLUMN);
    assertThat(e.column()).isEqualTo(30);
  }

  @Test
  void unknownExplainFormatIsASyntaxError() {
    PlanningException e = refused("EXPLAIN (FORMAT XML) select 1");
    assertThat(e.code()).isEqualTo(PlanningException.Code.SYNTAX_ERROR);
    assertThat(e.reason()).contains("XML");
    assertThat(e.column()).isEqualTo(10);
  }

  @Test
  void explainTypesOtherThanDistributedAreRefusedByName() {
    PlanningException e = refused("EXPLAIN (FORMAT JSON,\n TYPE LOGICAL) select 1");
    assertThat(e.code()).isEqualTo(PlanningException.Code.SYNTAX_ERROR);
    assertThat(e.reason()).contains("EXPLAIN (TYPE LOGICAL) is not supported");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(2);
    assertThat(refused("explain (costs off) select 1").reason()).contains("Unknown EXPLAIN option 'costs'");
  }

  @Test
  void unqualifiedNamesNeedADefaultSchema() {
    PlanningException e = catchThrowableOfType(PlanningException.class,
        () -> new DistributedPlanner(Planning.SF1).plan("select * from lineitem", PlannerSettings.defaults()));
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNKNOWN_TABLE);
  }
}
