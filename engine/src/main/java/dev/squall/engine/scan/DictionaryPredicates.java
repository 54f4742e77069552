package dev.squall.engine.scan;

import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.UnboundPredicate;

/**
 * The part of a row-group filter that a column chunk's dictionary can decide better than its
 * statistics: equality, IN, their negations and prefix tests. A range test ({@code <}, {@code >=},
 * ...) or a NULL or NaN test is decided as well by the chunk's min, max and null count, which the
 * statistics test has already applied, so it is replaced by {@code true}; a filter of such tests
 * only becomes {@code true}, and the scan then reads no dictionary page at all (each one read
 * costs a request before the row group's own). Dropping a conjunct or a disjunct only weakens the
 * filter, so a row group it skips still holds no matching row.
 *
 * <p>Input: an unbound Iceberg expression without NOT (after {@link Expressions#rewriteNot}).
 */
final class DictionaryPredicates {
  private DictionaryPredicates() {}

  /** The dictionary-decidable part of {@code filter}; {@code alwaysTrue()} when it has none. */
  static Expression of(Expression filter) {
    return ExpressionVisitors.visit(filter, new Narrowing());
  }

  private static final class Narrowing extends ExpressionVisitors.ExpressionVisitor<Expression> {
    @Override
    public Expression alwaysTrue() {
      return Expressions.alwaysTrue();
    }

    @Override
    public Expression alwaysFalse() {
      return Expressions.alwaysFalse();
    }

    @Override
    public Expression not(Expression result) {
      // rewriteNot leaves none; a NOT of a weakened operand would be stronger, so give up on it.
      return Expressions.alwaysTrue();
    }

    @Override
    public Expression and(Expression left, Expression right) {
      return Expressions.and(left, right);
    }

    @Override
    public Expression or(Expression left, Expression right) {
      return Expressions.or(left, right);
    }

    @Override
    public <T> Expression predicate(UnboundPredicate<T> pred) {
      return decidedByDictionary(pred.op()) ? pred : Expressions.alwaysTrue();
    }

    @Override
    public <T> Expression predicate(BoundPredicate<T> pred) {
      return decidedByDictionary(pred.op()) ? pred : Expressions.alwaysTrue();
    }
  }

  private static boolean decidedByDictionary(Expression.Operation op) {
    return switch (op) {
      case EQ, NOT_EQ, IN, NOT_IN, STARTS_WITH, NOT_STARTS_WITH -> true;
      default -> false;
    };
  }
}
