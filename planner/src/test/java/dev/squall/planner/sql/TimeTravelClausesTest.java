package dev.squall.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.PlanningException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Time travel clauses are taken out of the text without moving anything else in it. */
class TimeTravelClausesTest {
  @Test
  void versionClauseBecomesAQuotedNameAndBlanksKeepingPositions() {
    String sql = "select * from tpch.orders FOR VERSION AS OF 123 o\nwhere x = 'FOR VERSION AS OF 9'";
    TimeTravelClauses t = TimeTravelClauses.rewrite(sql);
    assertThat(t.sql()).hasSameSizeAs(sql).startsWith("select * from tpch.\"orders@0\" ");
    assertThat(t.sql().indexOf(" o\n")).isEqualTo(sql.indexOf(" o\n"));
    assertThat(t.sql()).endsWith("where x = 'FOR VERSION AS OF 9'");
    assertThat(t.clauses()).hasSize(1);
    assertThat(t.clauses().get(0).value()).isEqualTo(123);
    assertThat(t.clauses().get(0).column()).isEqualTo(27);
  }

  @Test
  void timestampClauseTakesALiteralWithAnOptionalZone() {
    TimeTravelClauses t = TimeTravelClauses.rewrite("select 1 from \"T\" for timestamp as of timestamp "
        + "'2024-05-01 12:00:00' join u FOR TIMESTAMP AS OF TIMESTAMP '2024-05-01 14:00:00 Europe/Paris' on true");
    assertThat(t.sql()).contains("\"T@0\"").contains("u@1");
    assertThat(t.clauses().get(0).value()).isEqualTo(Instant.parse("2024-05-01T12:00:00Z").toEpochMilli());
    assertThat(t.clauses().get(1).value()).isEqualTo(t.clauses().get(0).value());
  }

  @Test
  void clauseInACommentIsIgnoredAndAnExpressionIsRefused() {
    assertThat(TimeTravelClauses.rewrite("select 1 -- t FOR VERSION AS OF 1\n").clauses()).isEmpty();
    PlanningException e = catchThrowableOfType(PlanningException.class, () -> TimeTravelClauses.rewrite(
        "select * from t FOR TIMESTAMP AS OF current_timestamp"));
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(e.column()).isEqualTo(37);
  }
}
