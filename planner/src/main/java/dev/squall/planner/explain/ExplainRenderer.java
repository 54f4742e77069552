package dev.squall.planner.explain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders a stage graph for {@code EXPLAIN}: as indented text (root stage first, each with its task
 * count, estimates, output columns and operator tree, each exchange input naming its producer stage
 * and partitioning), or as JSON with the same content
 * ({@code {"rootStageId", "stages": [{"id", "tasks", "estimatedRows", "estimatedBytes", "output",
 * "plan"}], "edges": [{"producer", "consumer", "inputIndex", "partitioning"}]}}).
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
          .append(": ").append(partitioning(edge.getPartitioning())).append('\n');
    }
    return out.toString();
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
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
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
    for (Operator child : children(op)) {
      operator(child, inputs, indent + 2, out);
    }
  }

  private static ObjectNode operatorJson(Operator op, Map<Integer, Edge> inputs) {
    ObjectNode node = JSON.createObjectNode();
    node.put("operator", name(op));
    node.put("detail", describe(op, inputs));
    node.put("columns", columns(op.getOutputSchema()));
    ArrayNode children = node.putArray("inputs");
    for (Operator child : children(op)) {
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
      default -> "?";
    };
  }

  /** The operators below an operator, left to right. */
  static List<Operator> children(Operator op) {
    return switch (op.getOpCase()) {
      case FILTER -> List.of(op.getFilter().getInput());
      case PROJECT -> List.of(op.getProject().getInput());
      case AGGREGATE -> List.of(op.getAggregate().getInput());
      case HASH_JOIN -> List.of(op.getHashJoin().getLeft(), op.getHashJoin().getRight());
      case NESTED_LOOP_JOIN -> List.of(op.getNestedLoopJoin().getLeft(), op.getNestedLoopJoin().getRight());
      case SORT -> List.of(op.getSort().getInput());
      case TOP_N -> List.of(op.getTopN().getInput());
      case LIMIT -> List.of(op.getLimit().getInput());
      case WINDOW -> List.of(op.getWindow().getInput());
      case UNION_ALL -> op.getUnionAll().getInputsList();
      case EXPAND -> List.of(op.getExpand().getInput());
      default -> List.of();
    };
  }

  private static String describe(Operator op, Map<Integer, Edge> inputs) {
    return switch (op.getOpCase()) {
      case SCAN -> "Scan " + op.getScan().getTable() + " input=" + op.getScan().getInputIndex()
          + " columns=" + names(op.getOutputSchema())
          + (op.getScan().getIcebergFilterJson().isEmpty() ? ""
              : " pruning=" + op.getScan().getIcebergFilterJson());
      case SHUFFLE_READ -> {
        Edge edge = inputs.get(op.getShuffleRead().getInputIndex());
        yield "ShuffleRead input=" + op.getShuffleRead().getInputIndex()
            + (edge == null ? "" : " <- stage " + edge.getProducerStageId() + " " + partitioning(edge.getPartitioning()));
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
      calls.add(c.getKind() + "(" + (c.getKind() == AggregateCall.Kind.COUNT_STAR && args.isEmpty() ? "*" : String.join(", ", args))
          + ") AS " + c.getName());
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
