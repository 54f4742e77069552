package dev.squall.planner.stage;

import dev.squall.proto.v1.Partitioning;
import java.util.List;

/** Constructors of the edge partitionings of stages.proto. */
public final class Partitionings {
  private Partitionings() {}

  /** Hash of the given producer output columns into {@code partitions} partitions. */
  public static Partitioning hash(List<Integer> keys, int partitions) {
    return Partitioning.newBuilder()
        .setHash(Partitioning.Hash.newBuilder().addAllKeys(keys).setPartitions(partitions))
        .build();
  }

  public static Partitioning broadcast() {
    return Partitioning.newBuilder().setBroadcast(Partitioning.Broadcast.getDefaultInstance()).build();
  }

  /**
   * Ranges of the sort keys: partition {@code i} holds the rows after bound {@code i - 1} up to
   * bound {@code i} in the keys' order ({@code bounds.size() + 1} partitions).
   */
  public static Partitioning range(List<dev.squall.proto.v1.SortKey> keys, List<dev.squall.proto.v1.Values.Row> bounds) {
    return Partitioning.newBuilder()
        .setRange(Partitioning.Range.newBuilder().addAllKeys(keys).addAllBounds(bounds).setPartitions(bounds.size() + 1))
        .build();
  }

  public static Partitioning single() {
    return Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()).build();
  }
}
