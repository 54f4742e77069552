package dev.squall.planner.translate;

import static dev.squall.planner.testing.StageGraphs.operators;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlanningException;
import dev.squall.planner.testing.Planning;
import dev.squall.proto.ProtoNesting;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Operator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Long chains of AND, OR, + and * and CASEs nested in ELSE travel as one n-ary call, so that their
 * plans stay shallow and Calcite's simplifier does not spend minutes on them. Planned on a thread
 * with the coordinator's 64 MiB planning stack (the parser nests one level per term).
 */
class AssociativeChainsTest {
  private static String chain(int n, String separator, IntFunction<String> term) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < n; k++) {
      sb.append(k == 0 ? "" : separator).append(term.apply(k));
    }
    return sb.toString();
  }

  private static PlannedQuery plan(String sql) throws InterruptedException {
    AtomicReference<Object> out = new AtomicReference<>();
    Thread t = new Thread(null, () -> {
      try {
        out.set(Planning.sf1(sql));
      } catch (RuntimeException e) {
        out.set(e);
      }
    }, "plan", 64L << 20);
    t.start();
    t.join();
    if (out.get() instanceof RuntimeException e) {
      throw e;
    }
    return (PlannedQuery) out.get();
  }

  private static Call filter(PlannedQuery q) {
    return operators(q.stageGraph(), Operator.OpCase.FILTER).get(0).getFilter().getCondition().getCall();
  }

  private static Call projection(PlannedQuery q) {
    return operators(q.stageGraph(), Operator.OpCase.PROJECT).get(0).getProject().getExpressions(0).getCall();
  }

  @Test
  void aThousandOrsOverTwoColumnsPlanAsOneOrCall() throws Exception {
    PlannedQuery q = plan("select count(*) from lineitem where "
        + chain(1000, " or ", k -> (k % 2 == 0 ? "l_orderkey = " : "l_partkey = ") + k));
    Call or = filter(q);
    assertThat(or.getFunction()).isEqualTo(Function.OR);
    assertThat(or.getArgsCount()).isEqualTo(1000);
    assertThat(or.getArgs(999).getCall().getFunction()).isEqualTo(Function.EQUAL);
  }

  @Test
  void aThousandAndedConditionsPlanAsOneAndCall() throws Exception {
    PlannedQuery q = plan("select count(*) from lineitem where "
        + chain(1000, " and ", k -> "(l_orderkey <> " + k + " or l_partkey < " + k + ")"));
    Call and = filter(q);
    assertThat(and.getFunction()).isEqualTo(Function.AND);
    assertThat(and.getArgsCount()).isEqualTo(1000);
  }

  @Test
  void aLongSumOfOneTypeIsOneAddCall() throws Exception {
    PlannedQuery q = plan("select l_orderkey + " + chain(999, " + ", k -> String.valueOf(k + 1)) + " from lineitem");
    Call add = projection(q);
    assertThat(add.getFunction()).isEqualTo(Function.ADD);
    assertThat(add.getArgsCount()).isEqualTo(1000);
    assertThat(ProtoNesting.depth(q.stageGraph())).isLessThan(20);
  }

  @Test
  void aProductIsOneMultiplyCall() throws Exception {
    Call times = projection(plan("select l_orderkey * " + chain(49, " * ", k -> "l_partkey") + " from lineitem"));
    assertThat(times.getFunction()).isEqualTo(Function.MULTIPLY);
    assertThat(times.getArgsCount()).isEqualTo(50);
  }

  @Test
  void aDecimalSumWhoseTypeGrowsAtEveryStepStaysNested() throws Exception {
    // DECIMAL(15,2) + DECIMAL(15,2) is DECIMAL(16,2), and so on: each step has its own type.
    Call add = projection(plan("select l_extendedprice + l_discount + l_tax from lineitem"));
    assertThat(add.getFunction()).isEqualTo(Function.ADD);
    assertThat(add.getArgsCount()).isEqualTo(2);
    assertThat(add.getArgs(0).getCall().getFunction()).isEqualTo(Function.ADD);
  }

  @Test
  void fiveHundredCasesNestedInElseAreOneCase() throws Exception {
    String nested = chain(500, " else ", k -> "case when l_linenumber = " + k + " then " + k) + " else -1" + " end".repeat(500);
    PlannedQuery q = plan("select " + nested + " from lineitem");
    Call c = projection(q);
    assertThat(c.getFunction()).isEqualTo(Function.CASE);
    assertThat(c.getArgsCount()).isEqualTo(1001);
    assertThat(ProtoNesting.depth(q.stageGraph())).isLessThan(20);
  }

  @Test
  void planningOnAnInterruptedThreadStops() {
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> Planning.sf1("select count(*) from lineitem where l_orderkey = 1"))
          .isInstanceOf(PlanningException.class).hasMessageContaining("planning was stopped");
    } finally {
      Thread.interrupted();
    }
  }
}
