package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import org.junit.jupiter.api.Test;

/** What the planner folds and what it leaves to the engine (ExactFoldingExecutor). */
class ConstantFoldingTest {
  @Test
  void caseMappingOfALiteralIsLeftToTheEngine() {
    // Calcite folds with Java's full case mapping into the argument's length: 'straße' became
    // 'STRASS', while the engine maps the same value in a column to 'STRAßE'.
    String text = Planning.sf1("EXPLAIN select upper('straße'), lower('İx') from nation").explain();
    assertThat(text).contains("UPPER(").contains("LOWER(").doesNotContain("STRASS");
  }

  @Test
  void substringOfALiteralIsLeftToTheEngine() {
    // Calcite folded substr('hello', -3) with the SQL standard's rule ('hello'); Trino's is 'llo'.
    String text = Planning.sf1("EXPLAIN select substr('hello', -3), substring('hello' from -1 for 3) from nation").explain();
    assertThat(text).contains("SUBSTRING('hello'");
  }

  @Test
  void aDoubleThatFoldsToInfinityOrNanBecomesADoubleLiteral() {
    // 1e0/0 folded to Infinity, which failed planning with a NumberFormatException (500).
    String text = Planning.sf1("EXPLAIN select 1e0 / 0, 0e0 / 0e0, 1e308 * 10 from nation").explain();
    assertThat(text).contains("Infinity").contains("NaN");
  }
}
