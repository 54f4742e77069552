package dev.squall.planner.stage;

import static dev.squall.planner.testing.StageGraphs.edgeKinds;
import static dev.squall.planner.testing.StageGraphs.operators;
import static dev.squall.planner.testing.StageGraphs.root;
import static dev.squall.proto.v1.Partitioning.KindCase.HASH;
import static dev.squall.proto.v1.Partitioning.KindCase.SINGLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlanningException;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.Window;
import dev.squall.proto.v1.WindowCall;
import dev.squall.proto.v1.WindowFrame;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How window functions are planned: operators, frames, and the exchanges that bring partitions together. */
class WindowPlanningTest {
  private static List<Window> windows(StageGraph graph) {
    return operators(graph, Operator.OpCase.WINDOW).stream().map(Operator::getWindow).toList();
  }

  private static List<String> producerColumns(StageGraph graph, Edge edge) {
    return StageGraphs.stage(graph, edge.getProducerStageId()).getOutputSchema().getFieldsList().stream()
        .map(dev.squall.proto.v1.Field::getName).toList();
  }

  @Test
  void partitionedWindowRunsBehindAHashEdgeOnItsPartitionKeys() {
    StageGraph graph = Planning.sf100Graph("select o_orderkey, rank() over (partition by o_custkey order by o_orderdate desc) from orders");
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 1));
    Edge edge = graph.getEdges(0);
    assertThat(edge.getPartitioning().getHash().getKeysList()).hasSize(1);
    assertThat(producerColumns(graph, edge).get(edge.getPartitioning().getHash().getKeys(0))).isEqualTo("o_custkey");
    assertThat(root(graph).getTaskCount()).isGreaterThan(1);
    Window w = windows(graph).get(0);
    assertThat(w.getOrderKeys(0).getDescending()).isTrue();
    // NULLs last in both directions, as in Trino.
    assertThat(w.getOrderKeys(0).getNullsFirst()).isFalse();
    assertThat(w.getCalls(0).getFunction()).isEqualTo(WindowCall.Function.RANK);
    assertThat(w.getCalls(0).getType().getKind()).isEqualTo(DataType.Kind.BIGINT);
  }

  @Test
  void windowWithoutPartitionByGathersItsRowsThroughASingleEdge() {
    StageGraph graph = Planning.sf100Graph("select o_orderkey, row_number() over (order by o_totalprice) from orders");
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(SINGLE, 1));
    assertThat(root(graph).getTaskCount()).isEqualTo(1);
    assertThat(operators(root(graph).getFragment(), Operator.OpCase.WINDOW)).hasSize(1);
  }

  @Test
  void windowOverRowsAlreadyHashedOnItsPartitionKeysNeedsNoExchange() {
    // The aggregate hashes by o_custkey; the window partitioned by it runs in the same stage.
    StageGraph graph = Planning.sf100Graph("select o_custkey, sum(sum(o_totalprice)) over (partition by o_custkey) from orders group by o_custkey");
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 1));
    assertThat(operators(root(graph).getFragment(), Operator.OpCase.WINDOW)).hasSize(1);
    assertThat(operators(root(graph).getFragment(), Operator.OpCase.AGGREGATE)).hasSize(1);
  }

  @Test
  void windowsWithDifferentSpecificationsStackAndShareExchangesByPartitionKeys() {
    PlannedQuery q = Planning.sf100("select o_orderkey, count(*) over (), rank() over (partition by o_custkey order by o_orderdate),"
        + " lag(o_totalprice) over (partition by o_orderstatus order by o_orderkey),"
        + " sum(o_totalprice) over (partition by o_custkey order by o_orderkey rows between 2 preceding and current row) from orders");
    StageGraph graph = q.stageGraph();
    StageGraphs.assertWellFormed(graph);
    // o_custkey (two windows, one edge), o_orderstatus, then everything into one task last.
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 2, SINGLE, 1));
    assertThat(windows(graph)).hasSize(4);
    // The stack's columns are put back in the query's order.
    assertThat(root(graph).getFragment().getOpCase()).isEqualTo(Operator.OpCase.PROJECT);
    assertThat(q.outputSchema().getFieldsList()).extracting(f -> f.getType().getKind())
        .containsExactly(DataType.Kind.BIGINT, DataType.Kind.BIGINT, DataType.Kind.BIGINT, DataType.Kind.DECIMAL, DataType.Kind.DECIMAL);
  }

  @Test
  void windowPartitionedByMoreKeysRunsOnRowsHashedOnOneOfThem() {
    // Stacked with the fewer keys first: rows hashed on o_custkey need no exchange for (o_custkey, o_orderstatus).
    StageGraph graph = Planning.sf100Graph("select rank() over (partition by o_custkey, o_orderstatus order by o_orderdate),"
        + " row_number() over (partition by o_custkey order by o_orderkey) from orders");
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(HASH, 1));
    assertThat(windows(graph)).hasSize(2);
  }

  @Test
  void framesKeepTheirUnitsAndOffsets() {
    StageGraph graph = Planning.sf100Graph("select sum(o_totalprice) over (partition by o_custkey order by o_orderdate"
        + " range between interval '10' day preceding and current row),"
        + " max(o_totalprice) over (partition by o_custkey order by o_orderkey rows between 3 preceding and 1 following),"
        + " first_value(o_orderkey) over (partition by o_custkey order by o_orderdate)"
        + " from orders");
    List<WindowCall> calls = windows(graph).stream().flatMap(w -> w.getCallsList().stream()).toList();
    WindowCall range = calls.stream().filter(c -> c.getFunction() == WindowCall.Function.SUM).findFirst().orElseThrow();
    assertThat(range.getFrame().getUnit()).isEqualTo(WindowFrame.Unit.RANGE);
    assertThat(range.getFrame().getStart().getKind()).isEqualTo(FrameBound.Kind.PRECEDING);
    assertThat(range.getFrame().getStart().getOffset().getType().getKind()).isEqualTo(DataType.Kind.INTERVAL_DAY_TIME);
    assertThat(range.getFrame().getStart().getOffset().getLiteral().getLongValue()).isEqualTo(10 * 86_400_000L);
    assertThat(range.getFrame().getEnd().getKind()).isEqualTo(FrameBound.Kind.CURRENT_ROW);
    WindowCall rows = calls.stream().filter(c -> c.getFunction() == WindowCall.Function.MAX).findFirst().orElseThrow();
    assertThat(rows.getFrame().getUnit()).isEqualTo(WindowFrame.Unit.ROWS);
    assertThat(rows.getFrame().getStart().getOffset().getLiteral().getLongValue()).isEqualTo(3);
    assertThat(rows.getFrame().getEnd().getKind()).isEqualTo(FrameBound.Kind.FOLLOWING);
    WindowCall first = calls.stream().filter(c -> c.getFunction() == WindowCall.Function.FIRST_VALUE).findFirst().orElseThrow();
    // The default frame: RANGE UNBOUNDED PRECEDING to the current row's last peer.
    assertThat(first.getFrame().getUnit()).isEqualTo(WindowFrame.Unit.RANGE);
    assertThat(first.getFrame().getStart().getKind()).isEqualTo(FrameBound.Kind.UNBOUNDED_PRECEDING);
    assertThat(first.getFrame().getEnd().getKind()).isEqualTo(FrameBound.Kind.CURRENT_ROW);
  }

  @Test
  void lagAndLeadCarryTheirOffsetAndDefault() {
    StageGraph graph = Planning.sf100Graph("select lag(o_totalprice, 3, 0) over (partition by o_custkey order by o_orderkey),"
        + " lead(o_comment) over (partition by o_custkey order by o_orderkey), ntile(5) over (order by o_orderkey) from orders");
    List<WindowCall> calls = windows(graph).stream().flatMap(w -> w.getCallsList().stream()).toList();
    WindowCall lag = calls.stream().filter(c -> c.getFunction() == WindowCall.Function.LAG).findFirst().orElseThrow();
    assertThat(lag.getOffset()).isEqualTo(3);
    assertThat(lag.getDefaultValue().getType().getKind()).isEqualTo(DataType.Kind.DECIMAL);
    assertThat(lag.getDefaultValue().getLiteral().getDecimalUnscaled()).isEqualTo("0");
    WindowCall lead = calls.stream().filter(c -> c.getFunction() == WindowCall.Function.LEAD).findFirst().orElseThrow();
    assertThat(lead.getOffset()).isEqualTo(1);
    assertThat(lead.hasDefaultValue()).isFalse();
    WindowCall ntile = calls.stream().filter(c -> c.getFunction() == WindowCall.Function.NTILE).findFirst().orElseThrow();
    assertThat(ntile.getOffset()).isEqualTo(5);
    assertThat(ntile.getType().getKind()).isEqualTo(DataType.Kind.BIGINT);
  }

  @Test
  void explainRendersTheWindowOperator() {
    String explain = Planning.sf1("explain select o_orderkey, sum(o_totalprice) over (partition by o_custkey order by o_orderkey"
        + " rows between 2 preceding and current row) from orders").explain();
    assertThat(explain).contains("Window partition=[o_custkey] order=[o_orderkey ASC NULLS LAST]")
        .contains("SUM(o_totalprice) ROWS 2 PRECEDING..CURRENT ROW");
  }

  @Test
  void distinctInAWindowFunctionIsRefused() {
    PlanningException e = catchThrowableOfType(PlanningException.class,
        () -> Planning.sf1("select count(distinct o_custkey) over (partition by o_orderstatus) from orders"));
    assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
    assertThat(e.reason()).contains("DISTINCT in window function COUNT");
    assertThat(e.line()).isEqualTo(1);
  }

  @Test
  void rankingFunctionsWithoutOrderByArePlanned() {
    StageGraph graph = Planning.sf100Graph("select o_orderkey, rank() over (partition by o_custkey), dense_rank() over (),"
        + " percent_rank() over (partition by o_orderstatus), cume_dist() over (), ntile(4) over () from orders");
    assertThat(windows(graph)).isNotEmpty();
  }
}
