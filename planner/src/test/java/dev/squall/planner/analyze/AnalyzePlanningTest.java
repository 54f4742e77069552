package dev.squall.planner.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.AnalyzeRecord;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;

/**
 * ANALYZE's plan: partial theta sketches and a row count in the scan tasks, one single edge, their
 * union in one final task; the record names the scanned snapshot and each column's field id; and
 * the refusals, each at the offending name.
 */
class AnalyzePlanningTest {
  private static final InMemoryCatalog CATALOG = TpchCatalog.create(0.01);

  private static PlannedQuery plan(String sql) {
    return new DistributedPlanner(CATALOG).plan(sql, Planning.SETTINGS);
  }

  private static PlanningException refused(String sql) {
    return catchThrowableOfType(PlanningException.class, () -> plan(sql));
  }

  @Test
  void analyzeScansWithPartialSketchesAndUnionsThemInOneFinalTask() {
    PlannedQuery planned = plan("ANALYZE tpch.nation");
    StageGraph graph = planned.stageGraph();
    StageGraphs.assertWellFormed(graph);
    assertThat(graph.getStagesCount()).isEqualTo(2);
    assertThat(StageGraphs.edgeKinds(graph)).isEqualTo(Map.of(Partitioning.KindCase.SINGLE, 1));
    Table nation = CATALOG.loadTable(TableIdentifier.of(TpchCatalog.TPCH, "nation"));
    AnalyzeRecord record = planned.analyze().orElseThrow();
    assertThat(record.getSnapshotId()).isEqualTo(nation.currentSnapshot().snapshotId());
    assertThat(record.getFieldIdsList()).isEqualTo(nation.schema().columns().stream().map(f -> f.fieldId()).toList());
    assertThat(record.getNamespaceList()).containsExactly("tpch");
    assertThat(record.getTable()).isEqualTo("nation");

    Aggregate partial = aggregate(StageGraphs.stagesScanning(graph, "tpch.nation").get(0).getFragment());
    Aggregate last = aggregate(StageGraphs.root(graph).getFragment());
    assertThat(partial.getMode()).isEqualTo(Aggregate.Mode.PARTIAL);
    assertThat(last.getMode()).isEqualTo(Aggregate.Mode.FINAL);
    List<AggregateCall.Kind> kinds = List.of(AggregateCall.Kind.COUNT_STAR, AggregateCall.Kind.THETA_SKETCH,
        AggregateCall.Kind.THETA_SKETCH, AggregateCall.Kind.THETA_SKETCH, AggregateCall.Kind.THETA_SKETCH);
    assertThat(partial.getAggregatesList()).extracting(AggregateCall::getKind).isEqualTo(kinds);
    assertThat(last.getAggregatesList()).extracting(AggregateCall::getKind).isEqualTo(kinds);
    assertThat(planned.outputSchema()).isEqualTo(PlannedQuery.ROW_COUNT_SCHEMA);

    String explain = plan("EXPLAIN ANALYZE tpch.nation").explain();
    assertThat(explain).contains("ANALYZE tpch.nation of snapshot " + record.getSnapshotId()).contains("THETA_SKETCH");
  }

  @Test
  void listedColumnsAreTheOnlyOnesSketched() {
    PlannedQuery planned = plan("ANALYZE \"tpch\".orders WITH (columns = ARRAY['o_custkey', 'O_ORDERDATE'])");
    Table orders = CATALOG.loadTable(TableIdentifier.of(TpchCatalog.TPCH, "orders"));
    AnalyzeRecord record = planned.analyze().orElseThrow();
    assertThat(record.getFieldIdsList()).containsExactly(orders.schema().findField("o_custkey").fieldId(),
        orders.schema().findField("o_orderdate").fieldId());
    assertThat(record.getDescription()).isEqualTo("ANALYZE tpch.orders (o_custkey, o_orderdate)");
    Operator scan = StageGraphs.operators(planned.stageGraph(), Operator.OpCase.SCAN).get(0);
    assertThat(scan.getScan().getProjectedFieldIdsCount()).isEqualTo(2);
  }

  @Test
  void refusalsNameTheOffendingPosition() {
    PlanningException table = refused("ANALYZE tpch.no_such_table");
    assertThat(List.of(table.code(), table.line(), table.column())).containsExactly(Code.UNKNOWN_TABLE, 1, 9);
    PlanningException column = refused("ANALYZE tpch.orders\nWITH (columns = ARRAY['o_custkey', 'nope'])");
    assertThat(List.of(column.code(), column.line(), column.column())).containsExactly(Code.UNKNOWN_COLUMN, 2, 36);
    assertThat(column.getMessage()).contains("'nope'");
    String listedTwice = "ANALYZE tpch.orders WITH (columns = ARRAY['o_custkey', 'o_custkey'])";
    PlanningException twice = refused(listedTwice);
    assertThat(List.of(twice.code(), twice.column()))
        .containsExactly(Code.VALIDATION_ERROR, listedTwice.lastIndexOf("'o_custkey'") + 1);
    PlanningException empty = refused("ANALYZE tpch.orders WITH (columns = ARRAY[])");
    assertThat(empty.code()).isEqualTo(Code.VALIDATION_ERROR);
    PlanningException metadata = refused("ANALYZE tpch.\"orders$snapshots\"");
    assertThat(List.of(metadata.code(), metadata.column())).containsExactly(Code.UNSUPPORTED, 14);
    PlanningException property = refused("ANALYZE tpch.orders WITH (partitions = ARRAY['x'])");
    assertThat(List.of(property.code(), property.column())).containsExactly(Code.UNSUPPORTED, 27);
  }

  private static Aggregate aggregate(Operator fragment) {
    return StageGraphs.operators(fragment, Operator.OpCase.AGGREGATE).get(0).getAggregate();
  }
}
