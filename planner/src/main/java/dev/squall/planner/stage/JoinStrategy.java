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
 *       INNER, RIGHT) and copying it to every task of the other side moves no more bytes than
 *       hash-partitioning both sides would ({@code bytes * otherTasks <= bytes + otherBytes}, the
 *       comparison of Trino's cost-based join distribution), since each copy is read and indexed
 *       by a task of its own; if both qualify, the smaller;</li>
 *   <li>a side already hash-placed on its join keys (or on some of them) stays, and only the
 *       other side is shuffled into its partitions by the matching keys (co-located join);</li>
 *   <li>otherwise both sides are hash-partitioned on their keys.</li>
 * </ol>
 * Hash edges are used only when each pair of join keys has the same type on both sides, so that
 * equal values hash alike; otherwise a side is broadcast (or both run in one task).
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

  /**
   * What the chooser knows about one side.
   *
   * @param bytes estimated bytes of the side's rows
   * @param tasks tasks of the side's stage (the copies a broadcast of the other side makes)
   */
  public record Side(double bytes, Distribution distribution, List<Integer> keys, int tasks) {
    /** A side in one task. */
    public Side(double bytes, Distribution distribution, List<Integer> keys) {
      this(bytes, distribution, keys, 1);
    }

    /** Whether broadcasting this side to {@code other}'s tasks is allowed and worth it. */
    boolean broadcastTo(Side other, long thresholdBytes) {
      return bytes <= thresholdBytes && bytes * Math.max(1, other.tasks) <= bytes + other.bytes;
    }
  }

  public static JoinStrategy choose(JoinRelType type, Side left, Side right, long broadcastThresholdBytes) {
    return choose(type, left, right, broadcastThresholdBytes, true);
  }

  /**
   * @param keyTypesMatch false when some join key pair differs in type, which rules out hash edges
   */
  public static JoinStrategy choose(JoinRelType type, Side left, Side right, long broadcastThresholdBytes,
      boolean keyTypesMatch) {
    boolean rightBroadcastable = switch (type) {
      case INNER, LEFT, SEMI, ANTI -> true;
      default -> false;
    };
    boolean leftBroadcastable = type == JoinRelType.INNER || type == JoinRelType.RIGHT;
    if (left.keys().isEmpty()) {
      return rightBroadcastable ? BROADCAST_RIGHT : SINGLE_BOTH;
    }
    boolean rightSmall = rightBroadcastable && right.broadcastTo(left, broadcastThresholdBytes);
    boolean leftSmall = leftBroadcastable && left.broadcastTo(right, broadcastThresholdBytes);
    if (rightSmall && (!leftSmall || right.bytes() <= left.bytes())) {
      return BROADCAST_RIGHT;
    }
    if (leftSmall) {
      return BROADCAST_LEFT;
    }
    if (!keyTypesMatch) {
      return rightBroadcastable ? BROADCAST_RIGHT : leftBroadcastable ? BROADCAST_LEFT : SINGLE_BOTH;
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
