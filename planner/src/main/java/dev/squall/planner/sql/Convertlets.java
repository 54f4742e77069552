package dev.squall.planner.sql;

import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;

/**
 * The convertlet table SQL-to-rel conversion uses: {@link WideJunctions}' (Calcite's standard one,
 * with wide AND/OR chains), except that {@code x IS [NOT] DISTINCT FROM y} over scalar operands stays
 * one call.
 *
 * <p>Why: Calcite expands it to {@code CASE WHEN x IS NULL THEN y IS [NOT] NULL ... ELSE x <> y}
 * ({@code RelOptUtil.isDistinctFrom}), which over REAL and DOUBLE takes Trino's IEEE {@code <>},
 * so two NaNs were distinct. Trino's IS DISTINCT FROM takes NaN as not distinct from NaN, as the
 * engine's operator does (Java's {@code Double.compare}).
 *
 * <p>A comparison of a REAL or DOUBLE expression with itself is guarded from Calcite's simplifier
 * ({@link FloatSelfComparisons}). A {@link FunctionAlias} ({@code SUBSTR}) becomes a call of the
 * function it stands for.
 */
public final class Convertlets implements SqlRexConvertletTable {
  public static final Convertlets INSTANCE = new Convertlets();

  private Convertlets() {}

  @Override
  public SqlRexConvertlet get(SqlCall call) {
    if (call.getKind() == SqlKind.IS_DISTINCT_FROM || call.getKind() == SqlKind.IS_NOT_DISTINCT_FROM) {
      return (cx, c) -> {
        RexNode left = cx.convertExpression(c.operand(0));
        RexNode right = cx.convertExpression(c.operand(1));
        if (left.getType().isStruct() || right.getType().isStruct()) {
          return WideJunctions.CONVERTLETS.get(c).convertCall(cx, c); // ROW(...) operands: field by field
        }
        return cx.getRexBuilder().makeCall(c.getOperator(), left, right);
      };
    }
    if (FloatSelfComparisons.isComparison(call.getKind())) {
      return (cx, c) -> FloatSelfComparisons.guard(cx.getRexBuilder(),
          WideJunctions.CONVERTLETS.get(c).convertCall(cx, c));
    }
    if (call.getOperator() instanceof FunctionAlias alias) {
      return (cx, c) -> cx.getRexBuilder().makeCall(alias.target(),
          c.getOperandList().stream().map(cx::convertExpression).toList());
    }
    return WideJunctions.CONVERTLETS.get(call);
  }
}
