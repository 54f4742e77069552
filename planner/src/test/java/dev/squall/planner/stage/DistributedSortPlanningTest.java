package dev.squall.planner.stage;

import static dev.squall.planner.testing.StageGraphs.edgeKinds;
import static dev.squall.planner.testing.StageGraphs.root;
import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.StageGraph;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ORDER BY without LIMIT over many rows: a range edge on the sort keys into several sorting tasks. */
class DistributedSortPlanningTest {
  private static Partitioning.Range rangeInto(StageGraph graph) {
    Edge edge = StageGraphs.edgesInto(graph, root(graph).getStageId()).get(0);
    assertThat(edge.getPartitioning().getKindCase()).isEqualTo(Partitioning.KindCase.RANGE);
    return edge.getPartitioning().getRange();
  }

  @Test
  void orderByOfAWholeTableSortsRangesOfItsFirstKeyInSeveralTasks() {
    // About 1 GB of lineitem rows at SF 1: four tasks of the default 256 MiB.
    StageGraph graph = Planning.sf1Graph("select * from lineitem order by l_shipdate, l_orderkey, l_linenumber");
    assertThat(edgeKinds(graph)).isEqualTo(Map.of(Partitioning.KindCase.RANGE, 1));
    Partitioning.Range range = rangeInto(graph);
    assertThat(root(graph).getTaskCount()).isGreaterThanOrEqualTo(4).isEqualTo(range.getPartitions());
    assertThat(StageGraphs.operators(root(graph).getFragment(), Operator.OpCase.SORT)).hasSize(1);
    // Ascending date bounds inside the manifests' range of l_shipdate, NULL for the later keys.
    List<Integer> days = range.getBoundsList().stream().map(b -> b.getValues(0).getDateDays()).toList();
    int first = (int) LocalDate.of(1992, 1, 1).toEpochDay();
    int last = (int) LocalDate.of(1998, 12, 31).toEpochDay();
    assertThat(days).isSorted().doesNotHaveDuplicates().allMatch(d -> d >= first && d < last);
    assertThat(range.getBoundsList()).allMatch(b -> b.getValues(1).getIsNull() && b.getValues(2).getIsNull());
    assertThat(range.getKeys(0).getDescending()).isFalse();
  }

  @Test
  void descendingKeysGetDescendingBounds() {
    Partitioning.Range range = rangeInto(Planning.sf1Graph("select * from lineitem order by l_shipdate desc"));
    List<Integer> days = range.getBoundsList().stream().map(b -> b.getValues(0).getDateDays()).toList();
    assertThat(days).hasSizeGreaterThanOrEqualTo(3);
    assertThat(days).isSortedAccordingTo(Comparator.reverseOrder()).doesNotHaveDuplicates();
    assertThat(range.getKeys(0).getDescending()).isTrue();
  }

  @Test
  void withoutAKnownRangeOrWithALimitTheRowsAreGatheredIntoOneTask() {
    for (String sql : List.of("select * from lineitem order by l_comment",
        "select l_shipdate + interval '1' day k, l_comment, l_extendedprice, l_partkey from lineitem order by k",
        "select * from lineitem order by l_orderkey",
        "select * from lineitem order by l_orderkey limit 10",
        "select * from lineitem order by l_orderkey offset 5")) {
      StageGraph graph = Planning.sf1Graph(sql);
      assertThat(edgeKinds(graph)).as(sql).isEqualTo(Map.of(Partitioning.KindCase.SINGLE, 1));
      assertThat(root(graph).getTaskCount()).as(sql).isEqualTo(1);
    }
  }

  @Test
  void limitZeroReadsNoTable() {
    for (String sql : List.of("select * from lineitem order by l_orderkey limit 0",
        "select l_orderkey, l_comment from lineitem limit 0",
        "select l_orderkey from (select * from lineitem order by l_comment limit 0) order by 1")) {
      StageGraph graph = Planning.sf1Graph(sql);
      assertThat(graph.getStagesCount()).as(sql).isEqualTo(1);
      assertThat(StageGraphs.operators(graph, Operator.OpCase.SCAN)).as(sql).isEmpty();
    }
  }

  @Test
  void aSmallInputIsSortedInOneTask() {
    StageGraph graph = Planning.sf1Graph("select * from nation order by n_nationkey");
    assertThat(root(graph).getTaskCount()).isEqualTo(1);
    assertThat(graph.getEdgesList()).noneMatch(e -> e.getPartitioning().hasRange());
  }
}
