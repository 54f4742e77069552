package dev.squall.planner.explain;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.OperatorMetrics;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.StageSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code Runtime filters:} section of EXPLAIN and EXPLAIN ANALYZE: one line per filter naming
 * its build stage and key columns and its probe stage, scan and columns, e.g.
 * {@code filter 0: stage 2 keys [o_orderkey] -> stage 1 scan tpch.lineitem input=0 columns [l_orderkey]};
 * under EXPLAIN ANALYZE followed by what the probe scan's runtime filters saved (data files the
 * coordinator skipped with their split bytes, row groups skipped with their bytes, rows dropped).
 */
final class RuntimeFilterRenderer {
  private RuntimeFilterRenderer() {}

  /** The section as text; nothing when the graph has no runtime filter. */
  static void text(StageGraph graph, Map<Integer, StageSummary> actual, StringBuilder out) {
    if (graph.getRuntimeFiltersCount() == 0) {
      return;
    }
    out.append("Runtime filters:\n");
    for (RuntimeFilter f : graph.getRuntimeFiltersList()) {
      Stage probe = stage(graph, f.getProbeStageId());
      Operator scan = probe == null ? null : probeScan(probe.getFragment(), f.getProbeScanInputIndex(), new int[1]);
      out.append("  filter ").append(f.getFilterId()).append(": stage ").append(f.getBuildStageId())
          .append(" keys ").append(buildColumns(graph, f)).append(" -> stage ").append(f.getProbeStageId())
          .append(" scan ").append(scan == null ? "?" : scan.getScan().getTable()).append(" input=")
          .append(f.getProbeScanInputIndex()).append(" columns ").append(probeColumns(scan, f));
      OperatorMetrics m = actual == null ? null : scanMetrics(probe, f, actual.get(f.getProbeStageId()));
      if (m != null) {
        out.append("  [scan: skipped files=").append(m.getRuntimeFilterFilesSkipped()).append(" (")
            .append(m.getRuntimeFilterFileBytesSkipped()).append("B) skipped row groups=")
            .append(m.getRuntimeFilterRowGroupsSkipped()).append(" (").append(m.getRuntimeFilterBytesSkipped())
            .append("B) dropped rows=").append(m.getRuntimeFilterRowsDropped()).append(']');
      }
      out.append('\n');
    }
  }

  /**
   * The section as JSON: {@code [{"id", "buildStage", "buildColumns", "probeStage", "probeTable",
   * "probeInputIndex", "probeColumns"}]}; nothing when the graph has no runtime filter.
   */
  static void json(StageGraph graph, ObjectNode root) {
    if (graph.getRuntimeFiltersCount() == 0) {
      return;
    }
    ArrayNode filters = root.putArray("runtimeFilters");
    for (RuntimeFilter f : graph.getRuntimeFiltersList()) {
      Stage probe = stage(graph, f.getProbeStageId());
      Operator scan = probe == null ? null : probeScan(probe.getFragment(), f.getProbeScanInputIndex(), new int[1]);
      ObjectNode n = filters.addObject().put("id", f.getFilterId()).put("buildStage", f.getBuildStageId());
      buildColumns(graph, f).forEach(n.putArray("buildColumns")::add);
      n.put("probeStage", f.getProbeStageId()).put("probeTable", scan == null ? "" : scan.getScan().getTable())
          .put("probeInputIndex", f.getProbeScanInputIndex());
      probeColumns(scan, f).forEach(n.putArray("probeColumns")::add);
    }
  }

  private static List<String> buildColumns(StageGraph graph, RuntimeFilter f) {
    Stage build = stage(graph, f.getBuildStageId());
    return columns(build == null ? null : build.getOutputSchema(), f.getBuildColumnsList());
  }

  private static List<String> probeColumns(Operator scan, RuntimeFilter f) {
    return columns(scan == null ? null : scan.getOutputSchema(), f.getProbeColumnsList());
  }

  /** Column names by index ({@code #i} for an index the schema lacks). */
  private static List<String> columns(Schema schema, List<Integer> indexes) {
    List<String> out = new ArrayList<>();
    for (int i : indexes) {
      out.add(schema != null && i >= 0 && i < schema.getFieldsCount() ? schema.getFields(i).getName() : "#" + i);
    }
    return out;
  }

  /** The probe scan's summed operator metrics (operators are reported in pre-order), or null. */
  private static OperatorMetrics scanMetrics(Stage probe, RuntimeFilter f, StageSummary summary) {
    if (probe == null || summary == null) {
      return null;
    }
    int[] position = new int[1];
    if (probeScan(probe.getFragment(), f.getProbeScanInputIndex(), position) == null
        || position[0] >= summary.getOperatorsCount()) {
      return null;
    }
    return summary.getOperators(position[0]);
  }

  /**
   * The Scan of {@code inputIndex} under {@code op}, or null; {@code position[0]} counts the
   * operators before it in pre-order (its index among the stage's operator metrics).
   */
  private static Operator probeScan(Operator op, int inputIndex, int[] position) {
    if (op.hasScan() && op.getScan().getInputIndex() == inputIndex) {
      return op;
    }
    position[0]++;
    for (Operator child : dev.squall.proto.OperatorTree.children(op)) {
      Operator found = probeScan(child, inputIndex, position);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  private static Stage stage(StageGraph graph, int id) {
    return graph.getStagesList().stream().filter(s -> s.getStageId() == id).findFirst().orElse(null);
  }
}
