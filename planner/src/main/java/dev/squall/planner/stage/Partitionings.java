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

  public static Partitioning single() {
    return Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()).build();
  }
}
