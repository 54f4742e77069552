package dev.squall.proto;

import dev.squall.proto.v1.Operator;
import java.util.List;

/** Walks of a fragment's operator tree ({@code Operator} messages of operators.proto). */
public final class OperatorTree {
  private OperatorTree() {}

  /** The operators directly below {@code op}, left to right; empty for a leaf (scan, shuffle read, values). */
  public static List<Operator> children(Operator op) {
    return switch (op.getOpCase()) {
      case FILTER -> List.of(op.getFilter().getInput());
      case PROJECT -> List.of(op.getProject().getInput());
      case AGGREGATE -> List.of(op.getAggregate().getInput());
      case HASH_JOIN -> List.of(op.getHashJoin().getLeft(), op.getHashJoin().getRight());
      case NESTED_LOOP_JOIN -> List.of(op.getNestedLoopJoin().getLeft(), op.getNestedLoopJoin().getRight());
      case SORT -> List.of(op.getSort().getInput());
      case TOP_N -> List.of(op.getTopN().getInput());
      case LIMIT -> List.of(op.getLimit().getInput());
      case WINDOW -> List.of(op.getWindow().getInput());
      case UNION_ALL -> op.getUnionAll().getInputsList();
      case EXPAND -> List.of(op.getExpand().getInput());
      default -> List.of();
    };
  }

  /** The Scan operator of input {@code inputIndex} in the tree under {@code op}, or null when it has none. */
  public static Operator scan(Operator op, int inputIndex) {
    if (op.hasScan()) {
      return op.getScan().getInputIndex() == inputIndex ? op : null;
    }
    for (Operator child : children(op)) {
      Operator found = scan(child, inputIndex);
      if (found != null) {
        return found;
      }
    }
    return null;
  }
}
