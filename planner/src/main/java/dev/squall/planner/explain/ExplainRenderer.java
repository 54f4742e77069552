package dev.squall.planner.explain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.proto.OperatorTree;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.OperatorMetrics;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.QueryCost;
import dev.squall.proto.v1.QuerySummary;
import dev.squall.proto.v1.S3RequestCounts;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.StageSummary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a stage graph for {@code EXPLAIN}: as indented text (root stage first, each with its task
 * count, estimates, output columns and operator tree, each exchange input naming its producer stage
 * and partitioning, then the runtime filters, {@link RuntimeFilterRenderer}), or as JSON with the same content
 * ({@code {"rootStageId", "stages": [{"id", "tasks", "estimatedRows", "estimatedBytes", "output",
 * "plan"}], "edges": [{"producer", "consumer", "inputIndex", "partitioning", "combineGroup" (into a combiner stage only)}],
 * "runtimeFilters": [...] (when there are any)}}).
 */
public final class ExplainRenderer {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ExplainRenderer() {}

  /** The text form. */
  public static String text(StageGraph graph) {
    return text(graph, null);
  }

  /**
   * The text form under a first line {@code Write: <write>} when {@code write} is not null (e.g.
   * {@code Write: INSERT INTO tpch.t}; the root stage writes the table's data files).
   */
  public static String text(StageGraph graph, String write) {
    Map<Integer, Map<Integer, Edge>> inputs = inputsByStage(graph);
    StringBuilder out = new StringBuilder();
    if (write != null) {
      out.append("Write: ").append(write).append(" (root stage writes data files)\n");
    }
    List<Stage> stages = new ArrayList<>(graph.getStagesList());
    stages.sort((a, b) -> Integer.compare(b.getStageId(), a.getStageId()));
    for (Stage stage : stages) {
      out.append("Stage ").append(stage.getStageId());
      if (stage.getStageId() == graph.getRootStageId()) {
        out.append(" [root]");
      }
      out.append(": tasks=").append(stage.getTaskCount())
          .append(" rows=").append(stage.getEstimates().getRows())
          .append(" bytes=").append(stage.getEstimates().getBytes()).append('\n');
      out.append("  output: ").append(columns(stage.getOutputSchema())).append('\n');
      operator(stage.getFragment(), inputs.getOrDefault(stage.getStageId(), Map.of()), 2, out);
    }
    out.append("Edges:\n");
    for (Edge edge : graph.getEdgesList()) {
      out.append("  stage ").append(edge.getProducerStageId()).append(" -> stage ")
          .append(edge.getConsumerStageId()).append(" input ").append(edge.getConsumerInputIndex())
          .append(": ").append(partitioning(edge.getPartitioning()))
          .append(edge.getCombineGroup() > 0 ? " combined in groups of " + edge.getCombineGroup() : "").append('\n');
    }
    RuntimeFilterRenderer.text(graph, null, out);
    return asTrinoNames(out.toString());
  }

  /**
   * The text form of EXPLAIN ANALYZE: each stage line followed by what its tasks did ({@code actual:}
   * tasks, attempts, rows in and out, bytes, summed wall and CPU time, spill, task GB-seconds and S3
   * requests), each operator line followed by its rows in and out and wall time summed over the
   * stage's winning attempts (pre-order, as the task reports them), and the query's cost at the end.
   */
  public static String analyzed(StageGraph graph, QuerySummary summary) {
    Map<Integer, Map<Integer, Edge>> inputs = inputsByStage(graph);
    Map<Integer, StageSummary> actual = new HashMap<>();
    summary.getStageSummariesList().forEach(s -> actual.put(s.getStageId(), s));
    StringBuilder out = new StringBuilder();
    List<Stage> stages = new ArrayList<>(graph.getStagesList());
    stages.sort((a, b) -> Integer.compare(b.getStageId(), a.getStageId()));
    for (Stage stage : stages) {
      StageSummary s = actual.getOrDefault(stage.getStageId(), StageSummary.getDefaultInstance());
      out.append("Stage ").append(stage.getStageId());
      if (stage.getStageId() == graph.getRootStageId()) {
        out.append(" [root]");
      }
      out.append(": tasks=").append(stage.getTaskCount()).append(" estimated rows=")
          .append(stage.getEstimates().getRows()).append(" bytes=").append(stage.getEstimates().getBytes()).append('\n');
      S3RequestCounts r = s.getS3();
      out.append("  actual: tasks=").append(s.getTasks()).append(" attempts=").append(s.getAttempts())
          .append(" rows in=").append(s.getRowsIn()).append(" out=").append(s.getRowsOut())
          .append(" scanned=").append(s.getBytesScanned()).append("B shuffled=").append(s.getBytesShuffled())
          .append("B spilled=").append(s.getBytesSpilled()).append("B wall=").append(s.getWallMillis())
          .append("ms cpu=").append(s.getCpuMillis()).append("ms peak memory=").append(s.getMaxPeakMemoryBytes())
          .append("B GB-s=").append(String.format(Locale.ROOT, "%.3f", s.getTaskGbSeconds()))
          .append(" S3 put=").append(r.getPut()).append(" get=").append(r.getGet()).append(" list=")
          .append(r.getList()).append(" head=").append(r.getHead()).append(" delete=").append(r.getDelete())
          .append(s.getSkewedPartitionsSplit() > 0 ? " skewed partitions split=" + s.getSkewedPartitionsSplit() : "")
          .append('\n');
      if (stage.hasBroadcastSwitch()) {
        // Adaptive broadcast join: the join stage as planned ran inside this one.
        var b = stage.getBroadcastSwitch();
        out.append("  broadcast switched: runs the partitioned join planned as stage ").append(b.getJoinStageId())
            .append(", reading stage ").append(b.getBuildStageId()).append("'s ").append(b.getBuildBytes())
            .append("B whole in every task\n");
      }
      if (s.getAttemptsByTierMbCount() > 0) {
        // Task-size tiers: the estimate the stage's first tier came from, and the tier of each attempt.
        out.append("  tiers: estimated task memory=").append(s.getEstimatedTaskMemoryBytes()).append("B attempts");
        new java.util.TreeMap<>(s.getAttemptsByTierMbMap()).forEach((mb, n) ->
            out.append(' ').append(mb).append("MB=").append(n));
        out.append('\n');
      }
      out.append("  output: ").append(columns(stage.getOutputSchema())).append('\n');
      Iterator<OperatorMetrics> ops = s.getOperatorsList().iterator();
      analyzedOperator(stage.getFragment(), inputs.getOrDefault(stage.getStageId(), Map.of()), 2, ops, out);
    }
    out.append("Edges:\n");
    for (Edge edge : graph.getEdgesList()) {
      out.append("  stage ").append(edge.getProducerStageId()).append(" -> stage ")
          .append(edge.getConsumerStageId()).append(" input ").append(edge.getConsumerInputIndex())
          .append(": ").append(partitioning(edge.getPartitioning()))
          .append(edge.getCombineGroup() > 0 ? " combined in groups of " + edge.getCombineGroup() : "").append('\n');
    }
    RuntimeFilterRenderer.text(graph, actual, out);
    if (!summary.getScheduling().isEmpty()) {
      out.append("Scheduling: ").append(summary.getScheduling()).append('\n');
    }
    if (summary.hasCost()) {
      QueryCost c = summary.getCost();
      S3RequestCounts t = c.getS3();
      S3RequestCounts k = c.getCoordinatorS3();
      out.append(String.format(Locale.ROOT, "Cost: $%.6f (%s) rows=%d wall=%dms task GB-s=%.3f coordinator GB-s=%.3f"
              + " invocations=%d (tasks %d, coordinator %d) S3 tasks put=%d get=%d list=%d head=%d delete=%d"
              + " coordinator put=%d get=%d list=%d head=%d delete=%d job store reads=%d writes=%d scanned=%dB%n",
          c.getDollars(), c.getPriceTable(), summary.getRows(), summary.getWallMillis(), c.getTaskGbSeconds(),
          c.getCoordinatorGbSeconds(), c.getInvocations(), c.getTaskInvocations(), c.getCoordinatorInvocations(),
          t.getPut(), t.getGet(), t.getList(), t.getHead(), t.getDelete(), k.getPut(), k.getGet(), k.getList(),
          k.getHead(), k.getDelete(), c.getJobStoreReads(), c.getJobStoreWrites(), c.getBytesScanned()));
    }
    return asTrinoNames(out.toString());
  }

  private static void analyzedOperator(Operator op, Map<Integer, Edge> inputs, int indent,
      Iterator<OperatorMetrics> actual, StringBuilder out) {
    out.append(" ".repeat(indent)).append(describe(op, inputs));
    if (actual.hasNext()) {
      OperatorMetrics m = actual.next();
      out.append("  [rows in=").append(m.getRowsIn()).append(" out=").append(m.getRowsOut()).append(" wall=")
          .append(m.getWallNanos() / 1_000_000).append("ms");
      if (m.getRowGroups() > 0) {
        out.append(" row groups read=").append(m.getRowGroupsRead()).append(" of ").append(m.getRowGroups());
      }
      if (m.getRuntimeFilterRowGroupsSkipped() > 0 || m.getRuntimeFilterRowsDropped() > 0
          || m.getRuntimeFilterFilesSkipped() > 0) {
        out.append(" runtime filter: skipped row groups=").append(m.getRuntimeFilterRowGroupsSkipped())
            .append(" (").append(m.getRuntimeFilterBytesSkipped()).append("B) dropped rows=")
            .append(m.getRuntimeFilterRowsDropped()).append(" skipped files=").append(m.getRuntimeFilterFilesSkipped())
            .append(" (").append(m.getRuntimeFilterFileBytesSkipped()).append("B)");
      }
      out.append(']');
    }
    out.append('\n');
    for (Operator child : OperatorTree.children(op)) {
      analyzedOperator(child, inputs, indent + 2, actual, out);
    }
  }

  /** The JSON form, pretty-printed. */
  public static String json(StageGraph graph) {
    return json(graph, null);
  }

  /** The JSON form with a first member {@code "write": "<write>"} when {@code write} is not null. */
  public static String json(StageGraph graph, String write) {
    Map<Integer, Map<Integer, Edge>> inputs = inputsByStage(graph);
    ObjectNode root = JSON.createObjectNode();
    if (write != null) {
      root.put("write", write);
    }
    root.put("rootStageId", graph.getRootStageId());
    ArrayNode stages = root.putArray("stages");
    for (Stage stage : graph.getStagesList()) {
      ObjectNode s = stages.addObject();
      s.put("id", stage.getStageId());
      s.put("tasks", stage.getTaskCount());
      s.put("estimatedRows", stage.getEstimates().getRows());
      s.put("estimatedBytes", stage.getEstimates().getBytes());
      ArrayNode output = s.putArray("output");
      for (Field f : stage.getOutputSchema().getFieldsList()) {
        output.addObject().put("name", f.getName()).put("type", ExprRenderer.type(f.getType()));
      }
      s.set("plan", operatorJson(stage.getFragment(), inputs.getOrDefault(stage.getStageId(), Map.of())));
    }
    ArrayNode edges = root.putArray("edges");
    for (Edge edge : graph.getEdgesList()) {
      ObjectNode e = edges.addObject();
      e.put("producer", edge.getProducerStageId());
      e.put("consumer", edge.getConsumerStageId());
      e.put("inputIndex", edge.getConsumerInputIndex());
      e.set("partitioning", partitioningJson(edge.getPartitioning()));
      if (edge.getCombineGroup() > 0) {
        e.put("combineGroup", edge.getCombineGroup());
      }
    }
    RuntimeFilterRenderer.json(graph, root);
    try {
      return asTrinoNames(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("Cannot render EXPLAIN JSON", e);
    }
  }

  private static Map<Integer, Map<Integer, Edge>> inputsByStage(StageGraph graph) {
    Map<Integer, Map<Integer, Edge>> inputs = new HashMap<>();
    for (Edge edge : graph.getEdgesList()) {
      inputs.computeIfAbsent(edge.getConsumerStageId(), k -> new HashMap<>())
          .put(edge.getConsumerInputIndex(), edge);
    }
    return inputs;
  }

  private static void operator(Operator op, Map<Integer, Edge> inputs, int indent, StringBuilder out) {
    out.append(" ".repeat(indent)).append(describe(op, inputs)).append('\n');
    for (Operator child : OperatorTree.children(op)) {
      operator(child, inputs, indent + 2, out);
    }
  }

  private static ObjectNode operatorJson(Operator op, Map<Integer, Edge> inputs) {
    ObjectNode node = JSON.createObjectNode();
    node.put("operator", name(op));
    node.put("detail", describe(op, inputs));
    node.put("columns", columns(op.getOutputSchema()));
    ArrayNode children = node.putArray("inputs");
    for (Operator child : OperatorTree.children(op)) {
      children.add(operatorJson(child, inputs));
    }
    return node;
  }

  private static String name(Operator op) {
    return switch (op.getOpCase()) {
      case SCAN -> "Scan";
      case SHUFFLE_READ -> "ShuffleRead";
      case FILTER -> "Filter";
      case PROJECT -> "Project";
      case AGGREGATE -> "Aggregate";
      case HASH_JOIN -> "HashJoin";
      case NESTED_LOOP_JOIN -> "NestedLoopJoin";
      case SORT -> "Sort";
      case TOP_N -> "TopN";
      case LIMIT -> "Limit";
      case UNION_ALL -> "UnionAll";
      case VALUES -> "Values";
      case WINDOW -> "Window";
      case EXPAND -> "Expand";
      case SHUFFLE_COMBINE -> "ShuffleCombine";
      default -> "?";
    };
  }

  private static String describe(Operator op, Map<Integer, Edge> inputs) {
    return switch (op.getOpCase()) {
      case SCAN -> "Scan " + op.getScan().getTable() + " input=" + op.getScan().getInputIndex()
          + (op.getScan().getReplicated() ? " replicated" : "")
          + " columns=" + names(op.getOutputSchema())
          + (op.getScan().getIcebergFilterJson().isEmpty() ? ""
              : " pruning=" + op.getScan().getIcebergFilterJson());
      case SHUFFLE_READ -> {
        Edge edge = inputs.get(op.getShuffleRead().getInputIndex());
        yield "ShuffleRead input=" + op.getShuffleRead().getInputIndex()
            + (edge == null ? "" : " <- stage " + edge.getProducerStageId() + " " + partitioning(edge.getPartitioning()));
      }
      case SHUFFLE_COMBINE -> {
        Edge edge = inputs.get(op.getShuffleCombine().getInputIndex());
        yield "ShuffleCombine input=" + op.getShuffleCombine().getInputIndex() + (edge == null ? ""
            : " <- stage " + edge.getProducerStageId() + " " + partitioning(edge.getPartitioning()) + ", "
                + edge.getCombineGroup() + " map outputs per task");
      }
      case FILTER -> "Filter " + new ExprRenderer(names(op.getFilter().getInput().getOutputSchema()))
          .render(op.getFilter().getCondition());
      case PROJECT -> {
        ExprRenderer r = new ExprRenderer(names(op.getProject().getInput().getOutputSchema()));
        List<String> items = new ArrayList<>();
        for (int i = 0; i < op.getProject().getExpressionsCount(); i++) {
          items.add(r.render(op.getProject().getExpressions(i)) + " AS " + op.getOutputSchema().getFields(i).getName());
        }
        yield "Project " + String.join(", ", items);
      }
      case AGGREGATE -> aggregate(op.getAggregate());
      case HASH_JOIN -> {
        var j = op.getHashJoin();
        List<String> left = names(j.getLeft().getOutputSchema());
        List<String> right = names(j.getRight().getOutputSchema());
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < j.getLeftKeysCount(); i++) {
          keys.add(left.get(j.getLeftKeys(i)) + " = " + right.get(j.getRightKeys(i)));
        }
        List<String> both = new ArrayList<>(left);
        both.addAll(right);
        yield "HashJoin " + j.getJoinType() + " on " + String.join(" AND ", keys)
            + (j.hasResidual() ? " residual " + new ExprRenderer(both).render(j.getResidual()) : "")
            + " build=" + (j.getBuildSide() == dev.squall.proto.v1.HashJoin.BuildSide.BUILD_LEFT ? "left" : "right");
      }
      case NESTED_LOOP_JOIN -> {
        var j = op.getNestedLoopJoin();
        List<String> both = new ArrayList<>(names(j.getLeft().getOutputSchema()));
        both.addAll(names(j.getRight().getOutputSchema()));
        yield "NestedLoopJoin " + j.getJoinType()
            + (j.hasCondition() ? " on " + new ExprRenderer(both).render(j.getCondition()) : " (cross)");
      }
      case SORT -> "Sort " + keys(op.getSort().getKeysList(), op.getOutputSchema());
      case TOP_N -> "TopN limit=" + op.getTopN().getLimit() + " offset=" + op.getTopN().getOffset() + " "
          + keys(op.getTopN().getKeysList(), op.getOutputSchema());
      case LIMIT -> "Limit offset=" + op.getLimit().getOffset() + " limit=" + op.getLimit().getLimit();
      case UNION_ALL -> "UnionAll";
      case VALUES -> "Values rows=" + op.getValues().getRowsCount();
      case WINDOW -> WindowRenderer.describe(op.getWindow(), op.getOutputSchema());
      case EXPAND -> {
        ExprRenderer r = new ExprRenderer(names(op.getExpand().getInput().getOutputSchema()));
        List<String> projections = new ArrayList<>();
        for (var projection : op.getExpand().getProjectionsList()) {
          projections.add("(" + String.join(", ", projection.getExpressionsList().stream().map(r::render).toList()) + ")");
        }
        yield "Expand " + String.join(" ", projections);
      }
      default -> "?";
    };
  }

  private static String aggregate(Aggregate a) {
    List<String> in = names(a.getInput().getOutputSchema());
    List<String> groups = a.getGroupKeysList().stream().map(in::get).toList();
    List<String> calls = new ArrayList<>();
    for (AggregateCall c : a.getAggregatesList()) {
      List<String> args = c.getArgsList().stream().map(in::get).toList();
      // count(*) reads as written in every mode: the final step's argument is the partial counts' column.
      calls.add((c.getKind() == AggregateCall.Kind.COUNT_STAR ? "count(*)" : c.getKind() + "(" + String.join(", ", args) + ")")
          + " AS " + c.getName());
    }
    return "Aggregate " + a.getMode() + " group=" + groups + " aggregates=" + calls;
  }

  private static String keys(List<SortKey> keys, Schema schema) {
    List<String> out = new ArrayList<>();
    for (SortKey k : keys) {
      out.add(schema.getFields(k.getColumn()).getName() + (k.getDescending() ? " DESC" : " ASC")
          + (k.getNullsFirst() ? " NULLS FIRST" : " NULLS LAST"));
    }
    return "by " + out;
  }

  /** Calcite's name of an unnamed column, {@code EXPR$<select-list index>}. */
  private static final java.util.regex.Pattern CALCITE_UNNAMED = java.util.regex.Pattern.compile("\\bEXPR\\$(\\d+)\\b");

  /**
   * The text with Calcite's names of unnamed columns ({@code EXPR$1}) as Trino's, {@code _col1}, the
   * name the query's result gives the same select-list column (at every step that computes it).
   */
  static String asTrinoNames(String text) {
    return CALCITE_UNNAMED.matcher(text).replaceAll("_col$1");
  }

  /** An edge's partitioning as text, e.g. {@code hash([0, 1], partitions=8)}. */
  public static String partitioning(Partitioning p) {
    return switch (p.getKindCase()) {
      case HASH -> "hash(" + p.getHash().getKeysList() + ", partitions=" + p.getHash().getPartitions() + ")";
      case BROADCAST -> "broadcast";
      case SINGLE -> "single";
      case RANGE -> "range(partitions=" + p.getRange().getPartitions() + ")";
      case FORWARD -> "forward";
      default -> "?";
    };
  }

  private static ObjectNode partitioningJson(Partitioning p) {
    ObjectNode node = JSON.createObjectNode();
    switch (p.getKindCase()) {
      case HASH -> {
        node.put("kind", "hash");
        ArrayNode keys = node.putArray("keys");
        p.getHash().getKeysList().forEach(keys::add);
        node.put("partitions", p.getHash().getPartitions());
      }
      case RANGE -> node.put("kind", "range").put("partitions", p.getRange().getPartitions());
      default -> node.put("kind", partitioning(p));
    }
    return node;
  }

  private static List<String> names(Schema schema) {
    return schema.getFieldsList().stream().map(Field::getName).toList();
  }

  private static String columns(Schema schema) {
    List<String> out = new ArrayList<>();
    for (Field f : schema.getFieldsList()) {
      out.add(f.getName() + " " + ExprRenderer.type(f.getType()));
    }
    return "(" + String.join(", ", out) + ")";
  }
}
