package dev.squall.engine.operator;

import dev.squall.engine.EngineException;
import dev.squall.engine.expr.Evaluator;
import dev.squall.engine.expr.ExprCompiler;
import dev.squall.engine.input.InputProvider;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.memory.TaskMemory;
import dev.squall.engine.operator.aggregate.HashAggregateOperator;
import dev.squall.engine.operator.join.HashJoinOperator;
import dev.squall.engine.operator.join.NestedLoopJoinOperator;
import dev.squall.engine.operator.sort.SortOperator;
import dev.squall.engine.operator.window.WindowOperator;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.NestedLoopJoin;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.OperatorMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Turns a plan-proto {@link Operator} tree into physical operators, compiling every expression once.
 * Each operator gets its own share of the task memory, named {@code Kind#n} in pre-order.
 */
public final class OperatorBuilder {
  private final TaskMemory memory;
  private final InputProvider inputs;
  private int counter;
  private final List<Profiled> preorder = new ArrayList<>();

  /** An operator as built, with its plan kind and direct inputs, for its metrics. */
  private record Profiled(String kind, BatchOperator operator, List<BatchOperator> inputs) {}

  public OperatorBuilder(TaskMemory memory, InputProvider inputs) {
    this.memory = memory;
    this.inputs = inputs;
  }

  public BatchOperator build(Operator op) {
    String kind = switch (op.getOpCase()) {
      case SCAN -> "Scan";
      case SHUFFLE_READ -> "ShuffleRead";
      case FILTER -> "Filter";
      case PROJECT -> "Project";
      case AGGREGATE -> "HashAggregate";
      case HASH_JOIN -> "HashJoin";
      case NESTED_LOOP_JOIN -> "NestedLoopJoin";
      case SORT -> "Sort";
      case TOP_N -> "TopN";
      case LIMIT -> "Limit";
      case UNION_ALL -> "UnionAll";
      case VALUES -> "Values";
      case WINDOW -> "Window";
      case EXPAND -> "Expand";
      default -> throw EngineException.badPlan("operator without a kind");
    };
    int index = counter++;
    String name = kind + "#" + index;
    preorder.add(null);
    List<BatchOperator> children = new ArrayList<>();
    OperatorMemory mem = null;
    try {
      BatchOperator built = switch (op.getOpCase()) {
        case SCAN -> {
          mem = memory.forOperator(name);
          yield new ScanOperator(mem, schema(op, name), op.getScan(),
              inputs.scanInput(op.getScan().getInputIndex()).getSplitsList(), inputs.fileIO());
        }
        case SHUFFLE_READ -> {
          mem = memory.forOperator(name);
          yield new ShuffleReadOperator(mem, schema(op, name), inputs.shuffleInput(op.getShuffleRead().getInputIndex(), mem.allocator()));
        }
        case FILTER -> {
          BatchOperator in = child(op.getFilter().getInput(), children);
          mem = memory.forOperator(name);
          yield new FilterOperator(mem, in, compiler(in).compile(op.getFilter().getCondition()));
        }
        case PROJECT -> {
          BatchOperator in = child(op.getProject().getInput(), children);
          mem = memory.forOperator(name);
          ExprCompiler c = compiler(in);
          List<Evaluator> exprs = new ArrayList<>();
          op.getProject().getExpressionsList().forEach(e -> exprs.add(c.compile(e)));
          Schema s = schema(op, name);
          if (s.getFields().size() != exprs.size()) {
            throw EngineException.badPlan(name + " has " + exprs.size() + " expressions but " + s.getFields().size() + " output columns");
          }
          yield new ProjectOperator(mem, s, in, exprs);
        }
        case EXPAND -> {
          BatchOperator in = child(op.getExpand().getInput(), children);
          mem = memory.forOperator(name);
          ExprCompiler c = compiler(in);
          Schema s = schema(op, name);
          List<List<Evaluator>> projections = new ArrayList<>();
          for (var projection : op.getExpand().getProjectionsList()) {
            List<Evaluator> exprs = new ArrayList<>();
            projection.getExpressionsList().forEach(e -> exprs.add(c.compile(e)));
            if (s.getFields().size() != exprs.size()) {
              throw EngineException.badPlan(name + " has a projection of " + exprs.size() + " expressions but "
                  + s.getFields().size() + " output columns");
            }
            projections.add(exprs);
          }
          if (projections.isEmpty()) {
            throw EngineException.badPlan(name + " has no projection");
          }
          yield new ExpandOperator(mem, s, in, projections);
        }
        case AGGREGATE -> {
          BatchOperator in = child(op.getAggregate().getInput(), children);
          mem = memory.forOperator(name);
          yield new HashAggregateOperator(mem, schema(op, name), in, op.getAggregate());
        }
        case HASH_JOIN -> {
          HashJoin j = op.getHashJoin();
          BatchOperator left = child(j.getLeft(), children);
          BatchOperator right = child(j.getRight(), children);
          mem = memory.forOperator(name);
          Evaluator residual = j.hasResidual() ? joinCompiler(left, right).compile(j.getResidual()) : null;
          if (j.getLeftKeysCount() == 0 && j.getRightKeysCount() == 0) {
            yield new NestedLoopJoinOperator(mem, schema(op, name), left, right, j.getJoinType(), residual,
                j.getBuildSide() == HashJoin.BuildSide.BUILD_LEFT, 0);
          }
          yield new HashJoinOperator(mem, schema(op, name), left, right, j.getJoinType(),
              j.getLeftKeysList().stream().mapToInt(Integer::intValue).toArray(),
              j.getRightKeysList().stream().mapToInt(Integer::intValue).toArray(),
              residual, j.getBuildSide() == HashJoin.BuildSide.BUILD_LEFT);
        }
        case NESTED_LOOP_JOIN -> {
          NestedLoopJoin j = op.getNestedLoopJoin();
          BatchOperator left = child(j.getLeft(), children);
          BatchOperator right = child(j.getRight(), children);
          mem = memory.forOperator(name);
          Evaluator cond = j.hasCondition() ? joinCompiler(left, right).compile(j.getCondition()) : null;
          yield new NestedLoopJoinOperator(mem, schema(op, name), left, right, j.getJoinType(), cond, false,
              j.getMaxRows());
        }
        case SORT -> {
          BatchOperator in = child(op.getSort().getInput(), children);
          mem = memory.forOperator(name);
          yield new SortOperator(mem, in, op.getSort().getKeysList(), -1, 0);
        }
        case TOP_N -> {
          BatchOperator in = child(op.getTopN().getInput(), children);
          mem = memory.forOperator(name);
          yield new SortOperator(mem, in, op.getTopN().getKeysList(), op.getTopN().getLimit(), op.getTopN().getOffset());
        }
        case LIMIT -> {
          BatchOperator in = child(op.getLimit().getInput(), children);
          mem = memory.forOperator(name);
          yield new LimitOperator(mem, in, op.getLimit().getOffset(), op.getLimit().getLimit());
        }
        case UNION_ALL -> {
          List<BatchOperator> ins = new ArrayList<>();
          for (Operator o : op.getUnionAll().getInputsList()) {
            ins.add(child(o, children));
          }
          mem = memory.forOperator(name);
          yield new UnionAllOperator(mem, schema(op, name), ins);
        }
        case VALUES -> {
          mem = memory.forOperator(name);
          yield new ValuesOperator(mem, schema(op, name), op.getValues());
        }
        case WINDOW -> {
          BatchOperator in = child(op.getWindow().getInput(), children);
          mem = memory.forOperator(name);
          yield new WindowOperator(mem, schema(op, name), in, op.getWindow());
        }
        default -> throw EngineException.badPlan("operator without a kind");
      };
      preorder.set(index, new Profiled(op.getOpCase().name().toLowerCase(Locale.ROOT), built, List.copyOf(children)));
      return built;
    } catch (RuntimeException e) {
      if (mem != null) {
        mem.close();
      }
      children.forEach(BatchOperator::close);
      throw e;
    }
  }

  /**
   * Rows in and out and wall time of every operator built so far, in the fragment's pre-order (an
   * operator, then its inputs in order): rows in are the rows its inputs handed it, or for a leaf
   * (scan, shuffle read, values) the rows it read.
   */
  public List<OperatorMetrics> metrics() {
    List<OperatorMetrics> out = new ArrayList<>();
    for (Profiled p : preorder) {
      if (p == null) {
        continue;
      }
      long in = p.inputs().isEmpty() ? p.operator().rowsOut()
          : p.inputs().stream().mapToLong(BatchOperator::rowsOut).sum();
      OperatorMetrics.Builder m = OperatorMetrics.newBuilder().setKind(p.kind()).setRowsIn(in)
          .setRowsOut(p.operator().rowsOut()).setWallNanos(p.operator().wallNanos());
      if (p.operator() instanceof ScanOperator scan) {
        var c = scan.counters();
        m.setRowsIn(in + scan.runtimeRowsDropped()).setRowGroups(c.rowGroups()).setRowGroupsRead(c.rowGroupsRead())
            .setRuntimeFilterRowGroupsSkipped(c.runtimeSkipped()).setRuntimeFilterBytesSkipped(c.runtimeBytesSkipped())
            .setRuntimeFilterRowsDropped(scan.runtimeRowsDropped())
            .setRuntimeFilterFilesSkipped(scan.runtimeFilesSkipped())
            .setRuntimeFilterFileBytesSkipped(scan.runtimeFileBytesSkipped());
      }
      out.add(m.build());
    }
    return out;
  }

  private BatchOperator child(Operator op, List<BatchOperator> children) {
    BatchOperator b = build(op);
    children.add(b);
    return b;
  }

  private static Schema schema(Operator op, String name) {
    if (!op.hasOutputSchema()) {
      throw EngineException.badPlan(name + " has no output schema");
    }
    return SqlType.arrowSchema(op.getOutputSchema());
  }

  private static ExprCompiler compiler(BatchOperator in) {
    List<SqlType> types = new ArrayList<>();
    in.schema().getFields().forEach(f -> types.add(SqlType.fromArrow(f.getType())));
    return new ExprCompiler(types);
  }

  private static ExprCompiler joinCompiler(BatchOperator left, BatchOperator right) {
    List<SqlType> types = new ArrayList<>();
    left.schema().getFields().forEach(f -> types.add(SqlType.fromArrow(f.getType())));
    right.schema().getFields().forEach(f -> types.add(SqlType.fromArrow(f.getType())));
    return new ExprCompiler(types);
  }
}
