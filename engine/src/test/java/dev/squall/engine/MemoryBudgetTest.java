package dev.squall.engine;

import static dev.squall.engine.testing.X.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Operator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * The task memory budget: operators that hold state (sort, hash join build side, hash aggregate)
 * or allocate Arrow buffers past the budget fail with INSUFFICIENT_RESOURCES naming the operator,
 * release everything they held, and the same plans succeed within a larger budget.
 */
class MemoryBudgetTest {
  private final TpchFixture f = TpchFixture.sf001();

  private long run(Operator plan, long budget) {
    try (BufferAllocator allocator = new RootAllocator()) {
      long rows = FragmentExecutor.run(plan, TestInputs.forPlan(plan, f), allocator, budget, b -> { });
      assertThat(allocator.getAllocatedMemory()).isZero();
      return rows;
    }
  }

  private void assertExceeds(Operator plan, long budget, String operatorPrefix) {
    try (BufferAllocator allocator = new RootAllocator()) {
      assertThatThrownBy(() -> FragmentExecutor.run(plan, TestInputs.forPlan(plan, f), allocator, budget, b -> { }))
          .isInstanceOfSatisfying(TaskMemoryExceededException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INSUFFICIENT_RESOURCES);
            assertThat(e.operator()).startsWith(operatorPrefix);
          })
          .hasMessageStartingWith("task memory exceeded: operator " + operatorPrefix);
      // Everything the failed task held has been given back.
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }

  private Rel lineitem() {
    return Rel.scan(f, "lineitem", 0, "l_orderkey", "l_partkey", "l_extendedprice", "l_comment");
  }

  @Test
  void sortOverTheBudgetFailsNamingTheSort() {
    Operator plan = lineitem().sort(List.of(Key.asc("l_comment"))).op();
    assertExceeds(plan, 2L << 20, "Sort#");
    assertThat(run(plan, 512L << 20)).isEqualTo(f.table("lineitem").rows());
  }

  @Test
  void hashJoinBuildSideOverTheBudgetFailsNamingTheJoin() {
    Rel orders = Rel.scan(f, "orders", 1, "o_orderkey", "o_comment");
    Operator plan = orders.join(lineitem(), JoinType.INNER, List.of("o_orderkey"), List.of("l_orderkey"), null, false).op();
    assertExceeds(plan, 4L << 20, "HashJoin#");
    assertThat(run(plan, 512L << 20)).isEqualTo(f.table("lineitem").rows());
  }

  @Test
  void hashAggregateWithManyGroupsOverTheBudgetFailsNamingTheAggregate() {
    Operator plan = lineitem().aggregate(List.of("l_comment"), List.of(Rel.Agg.countStar("n")), Rel.AggMode.SINGLE).op();
    assertExceeds(plan, 2L << 20, "HashAggregate#");
    assertThat(run(plan, 512L << 20)).isPositive();
  }

  @Test
  void arrowBufferAllocationOverTheBudgetIsReportedAsTaskMemory() {
    // The Arrow batch written at the task's output edge is the last allocation on top of the
    // batches in flight: a budget just under the unlimited run's peak fails there.
    Operator plan = lineitem().filter(r -> r.col("l_orderkey").gt(lit(0))).op();
    long peak;
    try (BufferAllocator allocator = new RootAllocator();
        FragmentExecutor.Execution run = FragmentExecutor.execute(plan, TestInputs.forPlan(plan, f), allocator, 0)) {
      while (run.hasNext()) {
        run.next().close();
      }
      peak = run.peakMemoryBytes();
    }
    assertExceeds(plan, peak - 1024, "Output");
  }

  @Test
  void peakMemoryStaysWithinTheBudget() {
    Operator plan = lineitem().sort(List.of(Key.asc("l_partkey"))).op();
    long budget = 256L << 20;
    try (BufferAllocator allocator = new RootAllocator();
        FragmentExecutor.Execution run = FragmentExecutor.execute(plan, TestInputs.forPlan(plan, f), allocator, budget)) {
      while (run.hasNext()) {
        run.next().close();
      }
      assertThat(run.peakMemoryBytes()).isPositive().isLessThanOrEqualTo(budget);
    }
  }

  @Test
  void batchesInFlightCountInThePeak() {
    // A streaming plan holds no operator state: its peak is the batches handed between operators.
    Operator plan = lineitem().filter(r -> r.col("l_orderkey").gt(lit(0))).op();
    long largest = 0;
    try (BufferAllocator allocator = new RootAllocator();
        FragmentExecutor.Execution run = FragmentExecutor.execute(plan, TestInputs.forPlan(plan, f), allocator, 0)) {
      while (run.hasNext()) {
        largest = Math.max(largest, run.nextBatch().bytes());
      }
      assertThat(largest).isPositive();
      assertThat(run.peakMemoryBytes()).isGreaterThanOrEqualTo(largest);
    }
  }

  @Test
  void aScanBatchOverTheBudgetFailsNamingTheScan() {
    Operator plan = lineitem().filter(r -> r.col("l_orderkey").gt(lit(0))).op();
    try (BufferAllocator allocator = new RootAllocator();
        FragmentExecutor.Execution run = FragmentExecutor.execute(plan, TestInputs.forPlan(plan, f), allocator, 16L << 10)) {
      assertThatThrownBy(() -> {
        while (run.hasNext()) {
          run.nextBatch();
        }
      }).isInstanceOfSatisfying(TaskMemoryExceededException.class,
          e -> assertThat(e.operator()).startsWith("Scan"));
    }
  }
}
