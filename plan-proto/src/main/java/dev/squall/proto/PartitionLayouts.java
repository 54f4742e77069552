package dev.squall.proto;

import dev.squall.proto.v1.Partitioning;

/**
 * Which partitions a producer task writes for an edge's {@link Partitioning}. Single, broadcast
 * and forward edges, and hash or range edges of one partition, all put every row into partition 0
 * (the shuffle writer's one-partition case); other edges write as their kind and keys say. A stage
 * that feeds several consumers writes one output, so their edges must agree on it.
 */
public final class PartitionLayouts {
  private PartitionLayouts() {}

  /** Whether a producer writes the same partitions, row for row, for edges {@code a} and {@code b}. */
  public static boolean sameOutput(Partitioning a, Partitioning b) {
    return a.equals(b) || (onePartition(a) && onePartition(b));
  }

  /** Whether every row goes to partition 0. */
  public static boolean onePartition(Partitioning p) {
    return switch (p.getKindCase()) {
      case SINGLE, BROADCAST, FORWARD -> true;
      case HASH -> p.getHash().getPartitions() == 1;
      case RANGE -> p.getRange().getPartitions() == 1;
      default -> false;
    };
  }
}
