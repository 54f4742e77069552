package dev.squall.planner.stage;

import java.util.List;
import org.apache.calcite.rel.core.JoinRelType;

/**
 * How the two inputs of a join meet in one stage. Chosen by {@link #choose}:
 * <ol>
 *   <li>no equi-keys: a nested-loop join needs the right side whole in every task, so the right
 *       side is broadcast (INNER, LEFT, SEMI, ANTI); RIGHT and FULL run in one task;</li>
 *   <li>a side estimated at most {@code broadcastThresholdBytes} is broadcast when the join type
 *       keeps the other side's rows independent (right side: INNER, LEFT, SEMI, ANTI; left side:
 *       INNER, RIGHT); if both qualify, the smaller;</li>
 *   <li>a side already hash-placed on its join keys (or on some of them) stays, and only the
 *       other side is shuffled into its partitions by the matching keys (co-located join);</li>
 *   <li>otherwise both sides are hash-partitioned on their keys.</li>
 * </ol>
 */
public enum JoinStrategy {
  BROADCAST_RIGHT,
  BROADCAST_LEFT,
  /** Left stays in place (already hashed on the left keys); right is hash-shuffled to match. */
  SHUFFLE_RIGHT,
  /** Right stays in place; left is hash-shuffled to match. */
  SHUFFLE_LEFT,
  HASH_BOTH,
  SINGLE_BOTH;

  /** What the chooser knows about one side. */
  public record Side(double bytes, Distribution distribution, List<Integer> keys) {}

  public static JoinStrategy choose(JoinRelType type, Side left, Side right, long broadcastThresholdBytes) {
    boolean rightBroadcastable = switch (type) {
      case INNER, LEFT, SEMI, ANTI -> true;
      default -> false;
    };
    boolean leftBroadcastable = type == JoinRelType.INNER || type == JoinRelType.RIGHT;
    if (left.keys().isEmpty()) {
      return rightBroadcastable ? BROADCAST_RIGHT : SINGLE_BOTH;
    }
    boolean rightSmall = rightBroadcastable && right.bytes() <= broadcastThresholdBytes;
    boolean leftSmall = leftBroadcastable && left.bytes() <= broadcastThresholdBytes;
    if (rightSmall && (!leftSmall || right.bytes() <= left.bytes())) {
      return BROADCAST_RIGHT;
    }
    if (leftSmall) {
      return BROADCAST_LEFT;
    }
    if (left.distribution().hashPositionsWithin(left.keys()).isPresent()) {
      return SHUFFLE_RIGHT;
    }
    if (right.distribution().hashPositionsWithin(right.keys()).isPresent()) {
      return SHUFFLE_LEFT;
    }
    return HASH_BOTH;
  }
}
