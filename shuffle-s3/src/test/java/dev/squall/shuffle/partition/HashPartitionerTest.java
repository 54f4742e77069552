package dev.squall.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.Partitioning;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HashPartitionerTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private static Partitioner hash(int partitions, int... keys) {
    Partitioning.Hash.Builder hash = Partitioning.Hash.newBuilder().setPartitions(partitions);
    for (int k : keys) {
      hash.addKeys(k);
    }
    return Partitioner.of(Partitioning.newBuilder().setHash(hash).build());
  }

  private static long key(int i) {
    return (long) i * 7919 - 100_000;
  }

  private static byte[] name(int i) {
    return ("name-" + (i % 13)).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void equalKeysOnBothJoinSidesLandInTheSamePartition() {
    int rows = 500;
    // Build side: (orderkey BIGINT, name VARCHAR); probe side: (comment VARCHAR, qty INT, orderkey BIGINT, name VARCHAR).
    try (BigIntVector buildKey = new BigIntVector("o_orderkey", allocator);
        VarCharVector buildName = new VarCharVector("o_name", allocator);
        VarCharVector probeComment = new VarCharVector("l_comment", allocator);
        IntVector probeQty = new IntVector("l_qty", allocator);
        BigIntVector probeKey = new BigIntVector("l_orderkey", allocator);
        VarCharVector probeName = new VarCharVector("l_name", allocator)) {
      for (int i = 0; i < rows; i++) {
        buildKey.setSafe(i, key(i));
        buildName.setSafe(i, name(i));
      }
      // The probe side holds the same keys in reverse order, next to unrelated columns
      // (variable-width vectors are filled in index order).
      for (int j = 0; j < rows; j++) {
        int i = rows - 1 - j;
        probeComment.setSafe(j, ("comment " + i * 31).getBytes(StandardCharsets.UTF_8));
        probeQty.setSafe(j, i);
        probeKey.setSafe(j, key(i));
        probeName.setSafe(j, name(i));
      }
      for (var v : List.of(buildKey, buildName, probeComment, probeQty, probeKey, probeName)) {
        v.setValueCount(rows);
      }
      try (VectorSchemaRoot build = VectorSchemaRoot.of(buildKey, buildName);
          VectorSchemaRoot probe = VectorSchemaRoot.of(probeComment, probeQty, probeKey, probeName)) {
        int[] buildParts = new int[rows];
        int[] probeParts = new int[rows];
        hash(37, 0, 1).assign(ColumnBatch.fromArrow(build), buildParts);
        hash(37, 2, 3).assign(ColumnBatch.fromArrow(probe), probeParts);
        for (int i = 0; i < rows; i++) {
          assertThat(probeParts[rows - 1 - i]).as("row %d", i).isEqualTo(buildParts[i]);
        }
        assertThat(java.util.Arrays.stream(buildParts).distinct().count()).isGreaterThan(30);
      }
    }
  }
}
