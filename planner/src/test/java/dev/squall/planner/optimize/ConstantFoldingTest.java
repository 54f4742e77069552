package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.sql.SquallTypeSystem;
import dev.squall.planner.testing.Planning;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexExecutor;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
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
  void theLengthOfALiteralBeyondTheBasicPlaneIsLeftToTheEngine() {
    // Calcite folded char_length('😀ab') to 4, its UTF-16 units; it has 3 code points.
    String text = Planning.sf1("EXPLAIN select char_length('😀ab'), length('😀ab'), lpad('😀', 3, 'x') from nation")
        .explain();
    assertThat(text).contains("CHAR_LENGTH(").contains("LPAD(").doesNotContain(" 4 AS");
  }

  @Test
  void aDoubleThatFoldsToInfinityOrNanBecomesADoubleLiteral() {
    // 1e0/0 folded to Infinity, which failed planning with a NumberFormatException (500).
    String text = Planning.sf1("EXPLAIN select 1e0 / 0, 0e0 / 0e0, 1e308 * 10 from nation").explain();
    assertThat(text).contains("Infinity").contains("NaN");
  }

  @Test
  void anExpressionFoldedBeforeIsNotCompiledAgain() {
    AtomicInteger compiled = new AtomicInteger();
    RexExecutor calcite = (builder, exps, reduced) -> {
      compiled.incrementAndGet();
      RexUtil.EXECUTOR.reduce(builder, exps, reduced);
    };
    ExactFoldingExecutor executor = new ExactFoldingExecutor(calcite);
    // A fresh type factory per planning run, as the planner makes one per query.
    List<RexNode> first = fold(executor, new RexBuilder(new JavaTypeFactoryImpl(SquallTypeSystem.INSTANCE)), 7.25);
    List<RexNode> second = fold(executor, new RexBuilder(new JavaTypeFactoryImpl(SquallTypeSystem.INSTANCE)), 7.25);
    List<RexNode> other = fold(executor, new RexBuilder(new JavaTypeFactoryImpl(SquallTypeSystem.INSTANCE)), 8.25);

    assertThat(compiled.get()).isEqualTo(2);
    assertThat(second.toString()).isEqualTo(first.toString()).isEqualTo("[14.5E0:DOUBLE]");
    assertThat(other.toString()).isEqualTo("[16.5E0:DOUBLE]");
  }

  /** Folds {@code x * 2e0} (DOUBLE: folded by Calcite, not left to the engine). */
  private static List<RexNode> fold(ExactFoldingExecutor executor, RexBuilder rex, double x) {
    var doubleType = rex.getTypeFactory().createSqlType(SqlTypeName.DOUBLE);
    RexNode times = rex.makeCall(SqlStdOperatorTable.MULTIPLY, rex.makeApproxLiteral(java.math.BigDecimal.valueOf(x), doubleType),
        rex.makeApproxLiteral(java.math.BigDecimal.valueOf(2), doubleType));
    List<RexNode> out = new ArrayList<>();
    executor.reduce(rex, List.of(times), out);
    return out;
  }
}
