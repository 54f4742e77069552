package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.catalog.ThetaStatisticsFile;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.planner.testing.TpchQueries;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Q9 at SF 1 over tables without identifier fields (as other engines create them): without
 * column statistics every join is estimated as {@code max(left, right)} rows, and the order
 * follows the tables' sizes; with the NDVs of an analyzed snapshot's Puffin statistics file,
 * {@code left * right / max(ndv)} makes lineitem's join with partsupp on both keys the most
 * selective, and the order changes.
 */
class AnalyzedJoinOrderTest {
  private static final Pattern JOIN = Pattern.compile("HashJoin INNER on ([^\\n]*?) build=");

  @Test
  void q9JoinOrderFollowsTheNdvsOfTheStatisticsFile() {
    InMemoryCatalog catalog = TpchCatalog.create(1, false);
    List<String> before = joins(catalog);
    // Lineitem's own joins, innermost first: part, orders, supplier, partsupp.
    assertThat(before).containsSubsequence("l_partkey = p_partkey", "l_orderkey = o_orderkey",
        "l_suppkey = s_suppkey", "l_suppkey = ps_suppkey AND l_partkey = ps_partkey");

    analyze(catalog, "lineitem", Map.of("l_orderkey", 1_500_000L, "l_partkey", 200_000L, "l_suppkey", 10_000L));
    analyze(catalog, "orders", Map.of("o_orderkey", 1_500_000L));
    analyze(catalog, "part", Map.of("p_partkey", 200_000L));
    analyze(catalog, "partsupp", Map.of("ps_partkey", 200_000L, "ps_suppkey", 10_000L));
    analyze(catalog, "supplier", Map.of("s_suppkey", 10_000L, "s_nationkey", 25L));
    analyze(catalog, "nation", Map.of("n_nationkey", 25L));
    List<String> after = joins(catalog);
    assertThat(after).containsSubsequence("l_suppkey = ps_suppkey AND l_partkey = ps_partkey",
        "l_partkey = p_partkey", "l_suppkey = s_suppkey");
    assertThat(after).anyMatch(j -> j.contains("o_orderkey = l_orderkey") || j.contains("l_orderkey = o_orderkey"));
    assertThat(after).isNotEqualTo(before);
  }

  /** The equi-join conditions of Q9's plan in EXPLAIN order (outermost first, stages root first). */
  private static List<String> joins(InMemoryCatalog catalog) {
    String text = new DistributedPlanner(catalog).plan("EXPLAIN " + TpchQueries.query(9), Planning.SETTINGS).explain();
    Matcher m = JOIN.matcher(text);
    List<String> joins = new java.util.ArrayList<>();
    while (m.find()) {
      joins.add(m.group(1));
    }
    // Innermost (nearest lineitem's scan) first, as a reader of the plan follows the rows.
    java.util.Collections.reverse(joins);
    return joins;
  }

  /** Commits a statistics file whose sketch of each named column holds that many distinct values. */
  static void analyze(InMemoryCatalog catalog, String name, Map<String, Long> distinct) {
    Table table = catalog.loadTable(TableIdentifier.of(TpchCatalog.TPCH, name));
    TreeMap<Integer, CompactSketch> sketches = new TreeMap<>();
    distinct.forEach((column, ndv) -> {
      UpdateSketch sketch = UpdateSketch.builder().build();
      for (long v = 1; v <= ndv; v++) {
        ThetaStatisticsFile.update(sketch, Types.LongType.get(), v);
      }
      sketches.put(table.schema().findField(column).fieldId(), sketch.compact());
    });
    table.updateStatistics().setStatistics(ThetaStatisticsFile.write(table, table.currentSnapshot(), sketches))
        .commit();
  }
}
