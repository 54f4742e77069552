package dev.squall.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Values;
import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RangePartitionerTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private static Values.Row bound(Literal... values) {
    return Values.Row.newBuilder().addAllValues(List.of(values)).build();
  }

  private static Partitioner range(SortKey key, Values.Row... bounds) {
    return Partitioner.of(Partitioning.newBuilder().setRange(Partitioning.Range.newBuilder()
        .addKeys(key).addAllBounds(List.of(bounds)).setPartitions(bounds.length + 1)).build());
  }

  @Test
  void doublesFollowSqlOrderWithNegativeZeroEqualToZeroAndNanLast() {
    Partitioner p = range(SortKey.newBuilder().setColumn(0).setNullsFirst(true).build(),
        bound(Literal.newBuilder().setDoubleValue(0.0).build()),
        bound(Literal.newBuilder().setDoubleValue(100.0).build()));
    try (Float8Vector v = new Float8Vector("x", allocator)) {
      double[] values = {-5, -0.0, 0.0, 1e-9, 100, 100.5, Double.POSITIVE_INFINITY, Double.NaN};
      for (int i = 0; i < values.length; i++) {
        v.setSafe(i, values[i]);
      }
      v.setNull(values.length);
      v.setValueCount(values.length + 1);
      try (VectorSchemaRoot root = VectorSchemaRoot.of(v)) {
        int[] out = new int[root.getRowCount()];
        p.assign(ColumnBatch.fromArrow(root), out);
        assertThat(out).containsExactly(0, 0, 0, 1, 1, 2, 2, 2, 0);
      }
    }
  }

  @Test
  void decimalsCompareByFullPrecisionUnscaledValue() {
    Partitioner p = range(SortKey.newBuilder().setColumn(0).build(),
        bound(Literal.newBuilder().setDecimalUnscaled("-100000000000000000000000000").build()), // -1e24 at scale 2
        bound(Literal.newBuilder().setDecimalUnscaled("5").build())); // 0.05
    try (DecimalVector v = new DecimalVector("d", allocator, 38, 2)) {
      BigDecimal[] values = {new BigDecimal("-1000000000000000000000000.01"), new BigDecimal("-1000000000000000000000000.00"),
          new BigDecimal("-999999999999999999999999.99"), new BigDecimal("0.05"), new BigDecimal("0.06"),
          new BigDecimal("999999999999999999999999999999999999.99")};
      for (int i = 0; i < values.length; i++) {
        v.setSafe(i, values[i]);
      }
      v.setValueCount(values.length);
      try (VectorSchemaRoot root = VectorSchemaRoot.of(v)) {
        int[] out = new int[values.length];
        p.assign(ColumnBatch.fromArrow(root), out);
        assertThat(out).containsExactly(0, 0, 1, 1, 2, 2);
      }
    }
  }

  @Test
  void descendingKeysWithNullsLastReverseTheValueOrderOnly() {
    Partitioner p = range(SortKey.newBuilder().setColumn(0).setDescending(true).setNullsFirst(false).build(),
        bound(Literal.newBuilder().setLongValue(10).build()),
        bound(Literal.newBuilder().setIsNull(true).build()));
    try (IntVector v = new IntVector("i", allocator)) {
      v.setSafe(0, 50);
      v.setSafe(1, 10);
      v.setSafe(2, 9);
      v.setNull(3);
      v.setValueCount(4);
      try (VectorSchemaRoot root = VectorSchemaRoot.of(v)) {
        int[] out = new int[4];
        p.assign(ColumnBatch.fromArrow(root), out);
        // DESC: 50, 10 sort at or before bound 10; 9 after it but before the NULL bound; NULL equals it.
        assertThat(out).containsExactly(0, 0, 1, 1);
      }
    }
  }

  @Test
  void malformedRangesAreRefusedWithTheProblemNamed() {
    SortKey key = SortKey.newBuilder().setColumn(0).build();
    assertThatThrownBy(() -> Partitioner.of(Partitioning.newBuilder().setRange(Partitioning.Range.newBuilder()
        .addKeys(key).setPartitions(3).addBounds(bound(Literal.newBuilder().setLongValue(1).build()))).build()))
        .hasMessageContaining("needs 2 bounds, got 1");
    Partitioner wrongLiteral = range(key, bound(Literal.newBuilder().setStringValue("x").build()));
    try (IntVector v = new IntVector("i", allocator)) {
      v.setSafe(0, 1);
      v.setValueCount(1);
      try (VectorSchemaRoot root = VectorSchemaRoot.of(v)) {
        assertThatThrownBy(() -> wrongLiteral.assign(ColumnBatch.fromArrow(root), new int[1]))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Range bound 0 of sort key 0 is not a value of");
      }
    }
    assertThatThrownBy(() -> Partitioner.of(Partitioning.getDefaultInstance()))
        .hasMessageContaining("partitioning is not set");
  }
}
