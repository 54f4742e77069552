package dev.squall.planner.stage;

import dev.squall.planner.PlannerSettings;
import dev.squall.planner.PlanningException;
import dev.squall.planner.translate.LiteralTranslator;
import dev.squall.planner.translate.RexTranslator;
import dev.squall.planner.translate.ScanTranslator;
import dev.squall.planner.translate.SizeEstimator;
import dev.squall.planner.translate.SortKeys;
import dev.squall.planner.translate.TypeTranslator;
import dev.squall.planner.translate.WindowTranslator;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.NestedLoopJoin;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.UnionAll;
import dev.squall.proto.v1.Values;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;

/**
 * Turns an optimized Calcite logical plan into a {@link StageGraph}. It walks the plan bottom-up,
 * growing a {@link StageDraft} operator by operator, and places an exchange only where the rows
 * must move: around aggregates whose groups are not yet in one task ({@link AggregateSplit}),
 * between join inputs ({@link JoinStrategy}), before ORDER BY / LIMIT ({@link LimitPushDown}) and
 * before UNION ALL. Everything else stays in the stage of its input, so no forward edges arise.
 */
public final class StageGraphTranslator {
  private final PlannerSettings settings;
  private final TaskCountEstimator taskCounts;
  private final StageGraphBuilder graph = new StageGraphBuilder();

  public StageGraphTranslator(PlannerSettings settings) {
    this.settings = settings;
    this.taskCounts = new TaskCountEstimator(
        settings.targetBytesPerTask(), settings.targetSplitSizeBytes(), settings.maxTasksPerStage());
  }

  /**
   * Translates a whole plan. The root stage's output columns get {@code outputNames}.
   *
   * @throws PlanningException UNSUPPORTED for plan nodes or expressions the engine cannot run
   */
  public StageGraph translate(RelNode plan, List<String> outputNames) {
    StageDraft root = visit(plan);
    Schema schema = TypeTranslator.schema(plan.getRowType(), outputNames);
    root.setRoot(root.root().toBuilder().setOutputSchema(schema).build());
    return graph.build(root);
  }

  /**
   * Translates a whole plan whose root stage must hold all rows with equal values of the columns
   * {@code keys} in one task: a hash edge on them goes before the root unless the plan's rows
   * are placed so already. Row-level deletes use it so that one writer task sees every position
   * of a data file.
   *
   * @throws PlanningException as {@link #translate}
   */
  public StageGraph translateClustered(RelNode plan, List<String> outputNames, List<Integer> keys) {
    return translateClustered(plan, outputNames, keys, plan.getRowType().getFieldCount());
  }

  /**
   * As {@link #translateClustered(RelNode, List, List)} for a plan whose trailing columns (from
   * {@code outputColumns} on) exist only to be hashed on: the root stage drops them after the
   * edge. Partitioned writes use it to cluster rows by their partition values (month of a date,
   * ...) before the writer stage.
   *
   * @throws PlanningException as {@link #translate}
   */
  public StageGraph translateClustered(RelNode plan, List<String> outputNames, List<Integer> keys,
      int outputColumns) {
    return translateClustered(plan, outputNames, keys, outputColumns, List.of());
  }

  /**
   * As {@link #translateClustered(RelNode, List, List, int)}, with each root task sorting its rows on
   * {@code sortKeys} (columns of {@code plan}, the trailing ones included) before the trailing
   * columns are dropped: a partitioned write sorts on its partition values, so that its writer task
   * meets each value in one run and writes it into one file at a time, and then on the table's sort
   * order. With no {@code keys} no edge is added and each root task sorts its own rows. The engine's
   * sort is memory-accounted and spills.
   *
   * @throws PlanningException as {@link #translate}
   */
  public StageGraph translateClustered(RelNode plan, List<String> outputNames, List<Integer> keys,
      int outputColumns, List<SortKey> sortKeys) {
    StageDraft root = visit(plan);
    if (keys.isEmpty()) {
      // Nothing to cluster on: each root task sorts its own rows (an unpartitioned sorted write).
      return rooted(plan, root, outputNames, outputColumns, sortKeys);
    }
    if (!root.distribution().groupsAreLocal(keys)) {
      int tasks = taskCounts.forBytes(root.bytes());
      StageDraft clustered = StageDraft.intermediate(tasks, tasks == 1 ? Distribution.SINGLE : Distribution.hashOn(keys));
      clustered.setRoot(graph.exchange(root, Partitionings.hash(keys, tasks), clustered));
      clustered.setEstimates(root.rows(), root.bytes());
      root = clustered;
    }
    return rooted(plan, root, outputNames, outputColumns, sortKeys);
  }

  /** The root stage sorted on {@code sortKeys}, then cut to its first {@code outputColumns} columns. */
  private StageGraph rooted(RelNode plan, StageDraft root, List<String> outputNames, int outputColumns,
      List<SortKey> sortKeys) {
    if (!sortKeys.isEmpty()) {
      root.setRoot(Operator.newBuilder().setOutputSchema(root.root().getOutputSchema())
          .setSort(dev.squall.proto.v1.Sort.newBuilder().setInput(root.root()).addAllKeys(sortKeys)).build());
    }
    var fields = plan.getRowType().getFieldList();
    if (outputColumns < fields.size()) {
      dev.squall.proto.v1.Project.Builder kept = dev.squall.proto.v1.Project.newBuilder().setInput(root.root());
      for (int c = 0; c < outputColumns; c++) {
        kept.addExpressions(Expr.newBuilder().setType(TypeTranslator.toProto(fields.get(c).getType())).setColumn(c));
      }
      root.setRoot(Operator.newBuilder().setProject(kept).build());
    }
    Schema schema = TypeTranslator.schema(
        plan.getCluster().getTypeFactory().createStructType(fields.subList(0, outputColumns)), outputNames);
    root.setRoot(root.root().toBuilder().setOutputSchema(schema).build());
    return graph.build(root);
  }

  private StageDraft visit(RelNode rel) {
    if (ScanTranslator.matches(rel)) {
      return scan(rel, false);
    }
    if (rel instanceof Filter filter) {
      StageDraft draft = visit(filter.getInput());
      draft.setRoot(Operator.newBuilder()
          .setOutputSchema(draft.root().getOutputSchema())
          .setFilter(dev.squall.proto.v1.Filter.newBuilder()
              .setInput(draft.root())
              .setCondition(RexTranslator.toProto(filter.getCondition())))
          .build());
      return estimated(draft, rel);
    }
    if (rel instanceof Project project) {
      StageDraft draft = visit(project.getInput());
      dev.squall.proto.v1.Project.Builder p = dev.squall.proto.v1.Project.newBuilder().setInput(draft.root());
      for (RexNode e : project.getProjects()) {
        p.addExpressions(RexTranslator.toProto(e));
      }
      draft.setRoot(Operator.newBuilder().setOutputSchema(TypeTranslator.schema(project.getRowType())).setProject(p).build());
      draft.setDistribution(draft.distribution().throughProject(project.getProjects()));
      return estimated(draft, rel);
    }
    if (rel instanceof Aggregate aggregate) {
      return aggregate(aggregate);
    }
    if (rel instanceof Join join) {
      return join(join);
    }
    if (rel instanceof Sort sort) {
      return sort(sort);
    }
    if (rel instanceof Union union) {
      return union(union);
    }
    if (rel instanceof org.apache.calcite.rel.core.Values values) {
      return values(values);
    }
    if (rel instanceof Window window) {
      return window(window);
    }
    throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
        "Unsupported SQL: plan node " + rel.getRelTypeName() + " is not supported by Squall");
  }

  private StageDraft scan(RelNode rel, boolean outputUnused) {
    ScanTranslator.ScanLeaf leaf = ScanTranslator.translate(rel, 0, outputUnused);
    var stats = leaf.table().statistics();
    StageDraft draft = StageDraft.leaf(taskCounts.forScan(stats.fileBytes()));
    draft.addScan(leaf.tableName(), leaf.table());
    draft.addScanFileBytes(stats.fileBytes());
    draft.setRoot(leaf.operator());
    if (leaf.table().pinnedSnapshotId().isEmpty()) {
      graph.recordSnapshot(leaf.tableName(), stats.snapshotId());
    }
    return estimated(draft, rel);
  }

  private StageDraft values(org.apache.calcite.rel.core.Values values) {
    StageDraft draft = StageDraft.intermediate(1, Distribution.SINGLE);
    Values.Builder v = Values.newBuilder();
    for (List<RexLiteral> tuple : values.getTuples()) {
      Values.Row.Builder row = Values.Row.newBuilder();
      for (RexLiteral literal : tuple) {
        row.addValues(LiteralTranslator.toProto(literal));
      }
      v.addRows(row);
    }
    draft.setRoot(Operator.newBuilder().setOutputSchema(TypeTranslator.schema(values.getRowType())).setValues(v).build());
    return estimated(draft, values);
  }

  private StageDraft aggregate(Aggregate aggregate) {
    if (aggregate.getGroupType() != Aggregate.Group.SIMPLE) {
      return groupingSets(aggregate);
    }
    AggregateSplit split = new AggregateSplit(aggregate);
    boolean readsNoColumn = aggregate.getGroupSet().isEmpty()
        && aggregate.getAggCallList().stream().allMatch(c -> c.getArgList().isEmpty());
    StageDraft input = readsNoColumn && ScanTranslator.matches(aggregate.getInput())
        ? scan(aggregate.getInput(), true) : visit(aggregate.getInput());
    return estimated(aggregate(split, input, aggregate), aggregate);
  }

  /**
   * Grouping sets: the input rows are replicated once per grouping set by an Expand, and one
   * ordinary aggregation on (keys, grouping-set id) follows ({@link GroupingSetsPlan}).
   */
  private StageDraft groupingSets(Aggregate aggregate) {
    GroupingSetsPlan plan = new GroupingSetsPlan(aggregate);
    StageDraft input = visit(aggregate.getInput());
    input.setRoot(plan.expand(input.root()));
    if (!input.distribution().isSingle()) {
      // A grouping set's group gathers rows of several groups of the input's placement.
      input.setDistribution(Distribution.ANY);
    }
    int sets = aggregate.getGroupSets().size();
    input.setEstimates(input.rows() * sets, input.bytes() * sets);
    StageDraft draft = aggregate(plan.split(), input, aggregate);
    draft.setRoot(plan.restore(draft.root()));
    draft.setDistribution(draft.distribution().isSingle() ? Distribution.SINGLE : Distribution.ANY);
    return estimated(draft, aggregate);
  }

  /**
   * Places one simple aggregation over {@code input}: in the input's stage when its groups are
   * already local; else PARTIAL there and FINAL after a hash edge on the keys (a single edge
   * without keys); aggregations without partial states move their input rows across the edge (a
   * single edge when they must keep a group that has no rows).
   */
  private StageDraft aggregate(AggregateSplit split, StageDraft input, Aggregate aggregate) {
    List<Integer> groupKeys = split.groupKeys();
    if (input.distribution().groupsAreLocal(groupKeys)) {
      input.setRoot(split.single(input.root()));
      input.setDistribution(input.distribution().throughAggregate(groupKeys));
      return input;
    }
    List<Integer> exchangeKeys;
    if (split.isSingleStepOnly()) {
      exchangeKeys = groupKeys;
    } else {
      input.setRoot(split.partial(input.root()));
      double partialRows = Math.min(input.rows(), SizeEstimator.rows(aggregate) * input.taskCount());
      input.setEstimates(partialRows, partialRows * SizeEstimator.rowWidth(aggregate.getRowType()));
      exchangeKeys = IntStream.range(0, groupKeys.size()).boxed().toList();
    }
    List<Integer> outputKeys = IntStream.range(0, groupKeys.size()).boxed().toList();
    StageDraft reduce;
    Operator read;
    // A group kept without input rows must be made by one task only: where the rows themselves
    // cross the edge, that is the one task of a single edge.
    if (groupKeys.isEmpty() || (split.isSingleStepOnly() && split.hasAlwaysGroup())) {
      reduce = StageDraft.intermediate(1, Distribution.SINGLE);
      read = graph.exchange(input, Partitionings.single(), reduce);
    } else {
      int tasks = taskCounts.forBytes(input.bytes());
      reduce = StageDraft.intermediate(tasks, tasks == 1 ? Distribution.SINGLE : Distribution.hashOn(outputKeys));
      read = graph.exchange(input, Partitionings.hash(exchangeKeys, tasks), reduce);
    }
    reduce.setRoot(split.isSingleStepOnly() ? split.single(read) : split.finalOf(read));
    return reduce;
  }

  private StageDraft join(Join join) {
    JoinInfo info = JoinInfo.createWithStrictEquality(join.getLeft(), join.getRight(), join.getCondition());
    RexNode residual = info.nonEquiConditions.isEmpty() ? null
        : RexUtil.composeConjunction(join.getCluster().getRexBuilder(), info.nonEquiConditions);
    StageDraft left = visit(join.getLeft());
    StageDraft right = visit(join.getRight());
    JoinRelType type = join.getJoinType();
    List<Integer> leftKeys = List.copyOf(info.leftKeys);
    List<Integer> rightKeys = List.copyOf(info.rightKeys);
    boolean keyTypesMatch = keyTypesMatch(join, leftKeys, rightKeys);
    JoinStrategy strategy = JoinStrategy.choose(type,
        new JoinStrategy.Side(left.bytes(), left.distribution(), leftKeys, left.taskCount()),
        new JoinStrategy.Side(right.bytes(), right.distribution(), rightKeys, right.taskCount()),
        settings.broadcastThresholdBytes(), keyTypesMatch);
    boolean rightReplicated = strategy == JoinStrategy.BROADCAST_RIGHT
        && replicable(join, strategy, right, left, leftKeys, rightKeys);
    boolean rightReduced = strategy == JoinStrategy.BROADCAST_RIGHT && !rightReplicated
        && reducible(join, strategy, right, left, leftKeys, rightKeys);
    boolean rightCrossesExchange = switch (strategy) {
      case BROADCAST_RIGHT -> !rightReplicated && !rightReduced;
      case BROADCAST_LEFT, SHUFFLE_LEFT -> false;
      default -> true;
    };
    Double distinctRightKeys = rightCrossesExchange ? repeatedKeys(join, rightKeys, residual) : null;
    if (distinctRightKeys != null) {
      rightKeys = distinctKeys(right, rightKeys, distinctRightKeys);
    }
    int leftWidth = join.getLeft().getRowType().getFieldCount();
    StageDraft draft;
    Operator leftOp;
    Operator rightOp;
    Distribution placed;
    // The stage each side was closed into when it crossed an exchange; -1 for a side left in place.
    int leftStage = -1;
    int rightStage = -1;
    Operator leftRoot = left.root();
    Operator rightRoot = right.root();
    switch (strategy) {
      case BROADCAST_RIGHT -> {
        draft = left;
        leftOp = left.root();
        if (rightReplicated) {
          rightOp = ReplicatedScans.inline(right, left);
        } else if (rightReduced) {
          rightOp = ReplicatedReduce.inline(right, left);
        } else {
          rightOp = graph.exchange(right, Partitionings.broadcast(), left);
          rightStage = graph.lastProducerId();
        }
        placed = left.distribution();
      }
      case BROADCAST_LEFT -> {
        draft = right;
        rightOp = right.root();
        if (replicable(join, strategy, left, right, leftKeys, rightKeys)) {
          leftOp = ReplicatedScans.inline(left, right);
        } else if (reducible(join, strategy, left, right, leftKeys, rightKeys)) {
          leftOp = ReplicatedReduce.inline(left, right);
        } else {
          leftOp = graph.exchange(left, Partitionings.broadcast(), right);
          leftStage = graph.lastProducerId();
        }
        placed = right.distribution().shifted(leftWidth);
      }
      case SHUFFLE_RIGHT -> {
        List<Integer> positions = left.distribution().hashPositionsWithin(leftKeys).orElseThrow();
        draft = left;
        leftOp = left.root();
        rightOp = graph.exchange(right, Partitionings.hash(pick(rightKeys, positions), left.taskCount()), left);
        rightStage = graph.lastProducerId();
        placed = keyPlacement(type, pick(leftKeys, positions), pick(rightKeys, positions), leftWidth);
      }
      case SHUFFLE_LEFT -> {
        List<Integer> positions = right.distribution().hashPositionsWithin(rightKeys).orElseThrow();
        draft = right;
        rightOp = right.root();
        leftOp = graph.exchange(left, Partitionings.hash(pick(leftKeys, positions), right.taskCount()), right);
        leftStage = graph.lastProducerId();
        placed = keyPlacement(type, pick(leftKeys, positions), pick(rightKeys, positions), leftWidth);
      }
      case HASH_BOTH -> {
        int tasks = taskCounts.forBytes(left.bytes() + right.bytes());
        draft = StageDraft.intermediate(tasks, Distribution.ANY);
        leftOp = graph.exchange(left, Partitionings.hash(leftKeys, tasks), draft);
        leftStage = graph.lastProducerId();
        rightOp = graph.exchange(right, Partitionings.hash(rightKeys, tasks), draft);
        rightStage = graph.lastProducerId();
        placed = keyPlacement(type, leftKeys, rightKeys, leftWidth);
      }
      default -> {
        draft = StageDraft.intermediate(1, Distribution.SINGLE);
        leftOp = graph.exchange(left, Partitionings.single(), draft);
        rightOp = graph.exchange(right, Partitionings.single(), draft);
        placed = Distribution.SINGLE;
      }
    }
    if (draft.taskCount() == 1 && !draft.isLeaf()) {
      placed = Distribution.SINGLE;
    }
    if (!leftKeys.isEmpty() && keyTypesMatch) {
      runtimeFilter(join, strategy, new JoinSide(left, leftRoot, leftStage, leftKeys),
          new JoinSide(right, rightRoot, rightStage, rightKeys), draft);
    }
    Operator.Builder op = Operator.newBuilder().setOutputSchema(TypeTranslator.schema(join.getRowType()));
    if (leftKeys.isEmpty()) {
      NestedLoopJoin.Builder nlj = NestedLoopJoin.newBuilder().setLeft(leftOp).setRight(rightOp)
          .setJoinType(joinType(type)).setMaxRows(settings.maxNestedLoopJoinRows());
      if (residual != null) {
        nlj.setCondition(RexTranslator.toProto(residual));
      }
      op.setNestedLoopJoin(nlj);
    } else {
      HashJoin.Builder hj = HashJoin.newBuilder().setLeft(leftOp).setRight(rightOp).setJoinType(joinType(type))
          .addAllLeftKeys(leftKeys).addAllRightKeys(rightKeys)
          .setBuildSide(buildSide(strategy, type, left.bytes(), right.bytes()));
      if (residual != null) {
        hj.setResidual(RexTranslator.toProto(residual));
      }
      op.setHashJoin(hj);
    }
    draft.setRoot(op.build());
    draft.setDistribution(placed);
    return estimated(draft, join);
  }

  /**
   * Whether a broadcast side is scanned in every task of the other side's stage ({@link
   * ReplicatedScans}). Not when the join would plan a runtime filter from that side, the other
   * side's tables hold more data files than the bound, and the filter's probe scan is in another
   * stage or has its files clustered on the filtered columns: there the filter's skipped files and
   * row groups (or rows dropped before a shuffle) can save more than its stage costs.
   */
  private boolean replicable(Join join, JoinStrategy strategy, StageDraft side, StageDraft into,
      List<Integer> leftKeys, List<Integer> rightKeys) {
    long max = settings.replicatedScanMaxBytes();
    if (!ReplicatedScans.qualifies(side, into, max)) {
      return false;
    }
    if (into.scanFileBytes() <= max) {
      return true;
    }
    Optional<RuntimeFilterPlan> filter = filterFromSide(join, strategy, side, into, leftKeys, rightKeys);
    if (filter.isEmpty()) {
      return true;
    }
    ProbeScan probe = filter.get().probe();
    return probe.stage() < 0 && ReplicatedScans.unclustered(into, probe.scanInput(), probe.columns());
  }

  /**
   * Whether a broadcast side's reduction is computed in every task of the other side's stage
   * ({@link ReplicatedReduce}). Not when the join would plan a runtime filter from that side, which
   * needs the side as a stage of its own.
   */
  private boolean reducible(Join join, JoinStrategy strategy, StageDraft side, StageDraft into, List<Integer> leftKeys,
      List<Integer> rightKeys) {
    return ReplicatedReduce.qualifies(side, settings.replicatedScanMaxBytes(), graph::estimatedBytes)
        && filterFromSide(join, strategy, side, into, leftKeys, rightKeys).isEmpty();
  }

  /**
   * The runtime filter the join would plan from its broadcast side {@code side} were that side a
   * stage of its own, the other side {@code into} left in place; empty when it would plan none
   * (no keys, or key types that differ).
   */
  private Optional<RuntimeFilterPlan> filterFromSide(Join join, JoinStrategy strategy, StageDraft side, StageDraft into,
      List<Integer> leftKeys, List<Integer> rightKeys) {
    if (leftKeys.isEmpty() || !keyTypesMatch(join, leftKeys, rightKeys)) {
      return Optional.empty();
    }
    boolean sideIsLeft = strategy == JoinStrategy.BROADCAST_LEFT;
    // Any stage id for the side: only whether a filter would be planned, and into which scan, matters.
    JoinSide sideAsStage = new JoinSide(side, side.root(), Integer.MAX_VALUE, sideIsLeft ? leftKeys : rightKeys);
    JoinSide kept = new JoinSide(into, into.root(), -1, sideIsLeft ? rightKeys : leftKeys);
    return runtimeFilterPlan(join, strategy, sideIsLeft ? sideAsStage : kept, sideIsLeft ? kept : sideAsStage);
  }

  /** One input of a join: its draft, its root operator, the stage it was closed into (-1: in place), its keys. */
  private record JoinSide(StageDraft draft, Operator root, int stage, List<Integer> keys) {}

  /**
   * The estimated distinct keys of a SEMI or ANTI join's right side when it is worth reducing to
   * them before it crosses an exchange, else null: only its keys matter to the join (no residual
   * condition), and they repeat (the estimated distinct keys are under half its rows). TPC-H Q22's
   * NOT EXISTS over orders sends about a tenth of the order rows and builds a table of that many.
   */
  private static Double repeatedKeys(Join join, List<Integer> rightKeys, RexNode residual) {
    JoinRelType type = join.getJoinType();
    if ((type != JoinRelType.SEMI && type != JoinRelType.ANTI) || residual != null || rightKeys.isEmpty()) {
      return null;
    }
    var mq = join.getCluster().getMetadataQuery();
    Double rows = mq.getRowCount(join.getRight());
    Double keys = mq.getDistinctRowCount(join.getRight(), org.apache.calcite.util.ImmutableBitSet.of(rightKeys), null);
    return rows != null && keys != null && keys * 2 < rows ? keys : null;
  }

  /**
   * Ends the right side's draft with a PARTIAL aggregation on its join keys and no aggregate
   * (each task's distinct keys; NULL keys make one group, so NOT IN still sees them), estimated at
   * {@code keys} distinct keys a task, and returns the keys' positions in its output.
   */
  private static List<Integer> distinctKeys(StageDraft right, List<Integer> rightKeys, double keys) {
    Operator input = right.root();
    Schema.Builder schema = Schema.newBuilder();
    for (int k : rightKeys) {
      schema.addFields(input.getOutputSchema().getFields(k));
    }
    Operator distinct = Operator.newBuilder().setOutputSchema(schema)
        .setAggregate(dev.squall.proto.v1.Aggregate.newBuilder().setInput(input)
            .setMode(dev.squall.proto.v1.Aggregate.Mode.PARTIAL).addAllGroupKeys(rightKeys))
        .build();
    right.setRoot(distinct);
    double rows = Math.min(right.rows(), keys * right.taskCount());
    right.setEstimates(rows, right.rows() > 0 ? right.bytes() * rows / right.rows() : right.bytes());
    return IntStream.range(0, rightKeys.size()).boxed().toList();
  }

  /** Join key types a runtime filter summarises (RuntimeKeys' canonical forms). */
  private static final java.util.Set<org.apache.calcite.sql.type.SqlTypeName> FILTERED_KEY_TYPES = java.util.EnumSet.of(
      org.apache.calcite.sql.type.SqlTypeName.BIGINT, org.apache.calcite.sql.type.SqlTypeName.INTEGER,
      org.apache.calcite.sql.type.SqlTypeName.SMALLINT, org.apache.calcite.sql.type.SqlTypeName.TINYINT,
      org.apache.calcite.sql.type.SqlTypeName.DATE, org.apache.calcite.sql.type.SqlTypeName.VARCHAR,
      org.apache.calcite.sql.type.SqlTypeName.DECIMAL);

  /**
   * Marks a runtime filter (dynamic filtering) on an INNER or SEMI equi-join: the build side (for
   * SEMI the right side; for INNER the broadcast side, else the side estimated smaller) must be a
   * stage of its own, estimated at most half the probe side's rows, and every probe key must reach a
   * scan column through plain column references, group keys and shuffle edges ({@link
   * #traceToProbeScan}); that scan's stage is the probe stage. The
   * probe scan then reads only rows whose keys the build side wrote (NULL keys never match).
   */
  private void runtimeFilter(Join join, JoinStrategy strategy, JoinSide left, JoinSide right, StageDraft joinDraft) {
    Optional<RuntimeFilterPlan> planned = runtimeFilterPlan(join, strategy, left, right);
    if (planned.isEmpty()) {
      return;
    }
    ProbeScan t = planned.get().probe();
    dev.squall.proto.v1.RuntimeFilter.Builder f = dev.squall.proto.v1.RuntimeFilter.newBuilder()
        .setBuildStageId(planned.get().buildStage()).setProbeScanInputIndex(t.scanInput());
    for (int c : planned.get().buildColumns()) {
      f.addBuildColumns(c);
    }
    for (int c : t.columns()) {
      f.addProbeColumns(c);
    }
    if (t.stage() >= 0) {
      graph.addRuntimeFilter(f.setProbeStageId(t.stage()));
    } else {
      joinDraft.addProbeFilter(f);
    }
  }

  /**
   * A runtime filter {@link #runtimeFilter} would plan: the stage whose output columns build it
   * and where its probe keys are scanned (one probe column per build column).
   */
  private record RuntimeFilterPlan(int buildStage, int[] buildColumns, ProbeScan probe) {}

  /** The runtime filter of a join, by {@link #runtimeFilter}'s rules, without recording it. */
  private Optional<RuntimeFilterPlan> runtimeFilterPlan(Join join, JoinStrategy strategy, JoinSide left, JoinSide right) {
    JoinRelType type = join.getJoinType();
    boolean probeLeft;
    if (type == JoinRelType.SEMI) {
      probeLeft = true;
    } else if (type == JoinRelType.INNER) {
      probeLeft = strategy == JoinStrategy.BROADCAST_RIGHT
          || (strategy != JoinStrategy.BROADCAST_LEFT && right.draft().rows() <= left.draft().rows());
    } else {
      return Optional.empty(); // an outer join keeps unmatched probe rows; ANTI keeps exactly those
    }
    JoinSide probe = probeLeft ? left : right;
    JoinSide build = probeLeft ? right : left;
    if (build.stage() < 0) {
      return Optional.empty();
    }
    var fields = (probeLeft ? join.getLeft() : join.getRight()).getRowType().getFieldList();
    for (int k : probe.keys()) {
      if (!FILTERED_KEY_TYPES.contains(fields.get(k).getType().getSqlTypeName())) {
        return Optional.empty();
      }
    }
    java.util.function.IntUnaryOperator producers =
        i -> probe.draft().inputs().get(i) instanceof StageDraft.EdgeInput e ? e.producerStageId() : -1;
    int[] keys = probe.keys().stream().mapToInt(Integer::intValue).toArray();
    int[] chosen = null;
    java.util.Optional<ProbeScan> traced = traceToProbeScan(probe.root(), keys, probe.stage(), producers);
    if (traced.isPresent()) {
      chosen = java.util.stream.IntStream.range(0, keys.length).toArray();
    } else {
      // A key that reaches no scan (Q2's minimum cost, an aggregate's value) leaves the others:
      // a row whose key is not among the build side's values of that key alone matches nothing.
      for (int k = 0; k < keys.length && traced.isEmpty(); k++) {
        traced = traceToProbeScan(probe.root(), new int[] {keys[k]}, probe.stage(), producers);
        chosen = new int[] {k};
      }
    }
    if (traced.isEmpty()) {
      return Optional.empty();
    }
    int[] buildColumns = new int[chosen.length];
    for (int i = 0; i < chosen.length; i++) {
      buildColumns[i] = build.keys().get(chosen[i]);
    }
    int buildStage = build.stage();
    double buildRows = build.draft().rows();
    // (A side that is not a stage yet, asked about by replicable, has no fragment to follow.)
    Optional<KeySource> source = buildStage <= graph.lastStageId()
        ? keySource(graph.fragmentOf(buildStage), buildColumns, buildStage) : Optional.empty();
    if (source.isPresent() && graph.estimatedRows(source.get().stage()) <= buildRows) {
      buildStage = source.get().stage();
      buildColumns = source.get().columns();
      buildRows = graph.estimatedRows(buildStage);
    }
    if (buildRows * 2 > probe.draft().rows()) {
      return Optional.empty();
    }
    return Optional.of(new RuntimeFilterPlan(buildStage, buildColumns, traced.get()));
  }

  /** An earlier stage whose output columns hold every value of a build side's key columns. */
  record KeySource(int stage, int[] columns) {}

  /**
   * Follows a build side's key columns down from {@code op} in stage {@code stage} to a stage it
   * reads over an edge: through Filters, Projects of plain column references and INNER hash joins,
   * where a key column may cross to the other side by the join's equality. Every value of the
   * build side's keys is then among that stage's values of those columns, so a runtime filter
   * built there is looser but correct, and known sooner: TPC-H Q17's filtered part keys filter
   * the lineitem scan under the per-part average while the stage joining lineitem to part still
   * runs. Key types must stay the same along the way (a runtime filter summarises one type).
   */
  Optional<KeySource> keySource(Operator op, int[] columns, int stage) {
    switch (op.getOpCase()) {
      case FILTER -> {
        return keySource(op.getFilter().getInput(), columns, stage);
      }
      case PROJECT -> {
        int[] below = referencedColumns(op.getProject(), columns);
        return below == null ? Optional.empty() : keySource(op.getProject().getInput(), below, stage);
      }
      case HASH_JOIN -> {
        HashJoin j = op.getHashJoin();
        if (j.getJoinType() != dev.squall.proto.v1.JoinType.INNER) {
          return Optional.empty();
        }
        int leftWidth = j.getLeft().getOutputSchema().getFieldsCount();
        // The right side first: where a stage read over a broadcast edge usually sits.
        for (boolean right : new boolean[] {true, false}) {
          int[] mapped = sideColumns(j, columns, leftWidth, right);
          if (mapped == null) {
            continue;
          }
          Operator side = right ? j.getRight() : j.getLeft();
          boolean sameTypes = true;
          for (int i = 0; i < columns.length; i++) {
            sameTypes &= op.getOutputSchema().getFields(columns[i]).getType().getKind()
                == side.getOutputSchema().getFields(mapped[i]).getType().getKind();
          }
          if (!sameTypes) {
            continue;
          }
          Optional<KeySource> found = keySource(side, mapped, stage);
          if (found.isPresent()) {
            return found;
          }
        }
        return Optional.empty();
      }
      case SHUFFLE_READ -> {
        int producer = graph.producerOf(stage, op.getShuffleRead().getInputIndex());
        return producer < 0 ? Optional.empty() : Optional.of(new KeySource(producer, columns.clone()));
      }
      default -> {
        return Optional.empty();
      }
    }
  }

  /**
   * The input columns that output {@code columns} of a projection are plain references to, or null
   * when one of them is computed.
   */
  private static int[] referencedColumns(dev.squall.proto.v1.Project project, int[] columns) {
    int[] below = new int[columns.length];
    for (int i = 0; i < columns.length; i++) {
      Expr e = project.getExpressions(columns[i]);
      if (e.getKindCase() != Expr.KindCase.COLUMN) {
        return null;
      }
      below[i] = e.getColumn();
    }
    return below;
  }

  /**
   * The join output columns as columns of one side ({@code right} or left): a column of that side
   * as is, a key of the other side as the key it equals; null when some column is neither.
   */
  private static int[] sideColumns(HashJoin j, int[] columns, int leftWidth, boolean right) {
    int[] mapped = new int[columns.length];
    for (int i = 0; i < columns.length; i++) {
      int c = columns[i];
      boolean onRight = c >= leftWidth;
      if (onRight == right) {
        mapped[i] = right ? c - leftWidth : c;
        continue;
      }
      List<Integer> own = right ? j.getLeftKeysList() : j.getRightKeysList();
      int k = own.indexOf(right ? c : c - leftWidth);
      if (k < 0) {
        return null;
      }
      mapped[i] = right ? j.getRightKeys(k) : j.getLeftKeys(k);
    }
    return mapped;
  }

  /**
   * Where a runtime filter's probe keys are read: the stage (-1: the draft still being built), its
   * scan input and the scan output column of each key.
   */
  record ProbeScan(int stage, int scanInput, int[] columns) {}

  /**
   * Follows the probe keys down from {@code op} to a scan: through Filters, Projects of plain column
   * references, the group keys of an aggregation, the key's side of an INNER hash join, and across
   * shuffle edges into the stages that produce them. Crossing aggregations and edges means a join's probe side that aggregates a scan (TPC-H Q4,
   * Q20: the keys of an IN/EXISTS subquery grouped, then joined to a filtered table) is filtered at
   * that scan, before the aggregation and the shuffle. Dropping the rows of a key that has no match
   * drops only that key's groups, which the inner or semi join drops anyway; grouping sets (a group
   * made without input rows) and every other operator stop the trace.
   *
   * @param stage the stage {@code op} belongs to, or -1 for the draft being built
   * @param producerOf the producer stage of each of that stage's inputs (-1: not an edge)
   */
  java.util.Optional<ProbeScan> traceToProbeScan(Operator op, int[] columns, int stage,
      java.util.function.IntUnaryOperator producerOf) {
    switch (op.getOpCase()) {
      case SCAN -> {
        return java.util.Optional.of(new ProbeScan(stage, op.getScan().getInputIndex(), columns.clone()));
      }
      case FILTER -> {
        return traceToProbeScan(op.getFilter().getInput(), columns, stage, producerOf);
      }
      case PROJECT -> {
        int[] below = referencedColumns(op.getProject(), columns);
        return below == null ? java.util.Optional.empty()
            : traceToProbeScan(op.getProject().getInput(), below, stage, producerOf);
      }
      case AGGREGATE -> {
        dev.squall.proto.v1.Aggregate agg = op.getAggregate();
        if (agg.getAlwaysGroupCount() > 0) {
          return java.util.Optional.empty();
        }
        int[] below = new int[columns.length];
        for (int i = 0; i < columns.length; i++) {
          if (columns[i] >= agg.getGroupKeysCount()) {
            return java.util.Optional.empty(); // an aggregate's value, not a group key
          }
          below[i] = agg.getGroupKeys(columns[i]);
        }
        return traceToProbeScan(agg.getInput(), below, stage, producerOf);
      }
      case HASH_JOIN -> {
        // An inner join's output rows with a key value come from rows of the key's side with that
        // value: dropping the side's rows of a value the build side lacks drops only those.
        HashJoin j = op.getHashJoin();
        if (j.getJoinType() != dev.squall.proto.v1.JoinType.INNER) {
          return java.util.Optional.empty();
        }
        int leftWidth = j.getLeft().getOutputSchema().getFieldsCount();
        boolean right = columns[0] >= leftWidth;
        int[] below = new int[columns.length];
        for (int i = 0; i < columns.length; i++) {
          if ((columns[i] >= leftWidth) != right) {
            return java.util.Optional.empty(); // keys from both sides: no one scan holds them
          }
          below[i] = right ? columns[i] - leftWidth : columns[i];
        }
        return traceToProbeScan(right ? j.getRight() : j.getLeft(), below, stage, producerOf);
      }
      case SHUFFLE_READ, SHUFFLE_COMBINE -> {
        int input = op.hasShuffleRead() ? op.getShuffleRead().getInputIndex() : op.getShuffleCombine().getInputIndex();
        int producer = producerOf.applyAsInt(input);
        if (producer < 0 || graph.isShared(producer)) {
          return java.util.Optional.empty(); // a shared stage's rows are other consumers' too
        }
        // The producer's output columns are this read's columns.
        return traceToProbeScan(graph.fragmentOf(producer), columns, producer, i -> graph.producerOf(producer, i));
      }
      default -> {
        return java.util.Optional.empty();
      }
    }
  }

  private static boolean keyTypesMatch(Join join, List<Integer> leftKeys, List<Integer> rightKeys) {
    var left = join.getLeft().getRowType().getFieldList();
    var right = join.getRight().getRowType().getFieldList();
    for (int i = 0; i < leftKeys.size(); i++) {
      var l = TypeTranslator.toProto(left.get(leftKeys.get(i)).getType()).toBuilder().setNullable(false).build();
      var r = TypeTranslator.toProto(right.get(rightKeys.get(i)).getType()).toBuilder().setNullable(false).build();
      if (!l.equals(r)) {
        return false;
      }
    }
    return true;
  }

  private static List<Integer> pick(List<Integer> keys, List<Integer> positions) {
    return positions.stream().map(keys::get).toList();
  }

  private static HashJoin.BuildSide buildSide(JoinStrategy strategy, JoinRelType type, double leftBytes, double rightBytes) {
    if (strategy == JoinStrategy.BROADCAST_LEFT) {
      return HashJoin.BuildSide.BUILD_LEFT;
    }
    if (strategy == JoinStrategy.BROADCAST_RIGHT) {
      return HashJoin.BuildSide.BUILD_RIGHT;
    }
    // The engine joins with either side built for these types (a SEMI or ANTI join built on its
    // left side emits the build rows it matched, or did not, at the end); outer joins keep the right.
    boolean either = type == JoinRelType.INNER || type == JoinRelType.SEMI || type == JoinRelType.ANTI;
    return either && leftBytes < rightBytes ? HashJoin.BuildSide.BUILD_LEFT : HashJoin.BuildSide.BUILD_RIGHT;
  }

  /** Placement of a hash join's output: by the keys of every side whose rows keep their key values. */
  private static Distribution keyPlacement(JoinRelType type, List<Integer> leftKeys, List<Integer> rightKeys, int leftWidth) {
    List<Integer> shiftedRight = rightKeys.stream().map(k -> k + leftWidth).toList();
    return switch (type) {
      case INNER -> Distribution.hash(List.of(leftKeys, shiftedRight));
      case LEFT, SEMI, ANTI -> Distribution.hashOn(leftKeys);
      case RIGHT -> Distribution.hashOn(shiftedRight);
      default -> Distribution.ANY;
    };
  }

  private static JoinType joinType(JoinRelType type) {
    return switch (type) {
      case INNER -> JoinType.INNER;
      case LEFT -> JoinType.LEFT;
      case RIGHT -> JoinType.RIGHT;
      case FULL -> JoinType.FULL;
      case SEMI -> JoinType.SEMI;
      case ANTI -> JoinType.ANTI;
      default -> throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
          "Unsupported SQL: " + type + " join is not supported by Squall");
    };
  }

  private StageDraft sort(Sort sort) {
    LimitPushDown limits = limits(sort);
    StageDraft input = visit(sort.getInput());
    if (limits.isNoOp()) {
      return input;
    }
    if (input.distribution().isSingle()) {
      input.setRoot(limits.exact(input.root()));
      return estimated(input, sort);
    }
    if (limits.limit() < 0 && limits.offset() == 0) {
      StageDraft ranged = rangeSorted(sort, limits, input);
      if (ranged != null) {
        return ranged;
      }
    }
    input.setRoot(limits.local(input.root()));
    if (limits.localRowBound() >= 0) {
      double rows = Math.min(input.rows(), (double) limits.localRowBound() * input.taskCount());
      input.setEstimates(rows, rows * SizeEstimator.rowWidth(sort.getRowType()));
    }
    StageDraft merge = StageDraft.intermediate(1, Distribution.SINGLE);
    Operator read = graph.exchange(input, Partitionings.single(), merge);
    merge.setRoot(limits.exact(read));
    return estimated(merge, sort);
  }

  /**
   * A distributed ORDER BY (no LIMIT or OFFSET): the rows cross a range edge on the sort keys into
   * as many tasks as their bytes call for, each task sorts its range, and the ranges in task order
   * are the answer (the coordinator concatenates the root stage's outputs by task). Null, meaning
   * gather into one task, when one task suffices or the first key's range is unknown
   * ({@link SortRangeBounds}).
   */
  private StageDraft rangeSorted(Sort sort, LimitPushDown limits, StageDraft input) {
    int tasks = taskCounts.forBytes(input.bytes());
    java.util.Optional<List<dev.squall.proto.v1.Values.Row>> bounds =
        SortRangeBounds.of(sort.getInput(), limits.keys(), tasks);
    if (bounds.isEmpty()) {
      return null;
    }
    int partitions = bounds.get().size() + 1;
    StageDraft ranges = StageDraft.intermediate(partitions, Distribution.ANY);
    Operator read = graph.exchange(input, Partitionings.range(limits.keys(), bounds.get()), ranges);
    ranges.setRoot(limits.exact(read));
    return estimated(ranges, sort);
  }

  private static LimitPushDown limits(Sort sort) {
    List<SortKey> keys = SortKeys.of(sort.getCollation().getFieldCollations());
    return new LimitPushDown(keys, count(sort.offset, 0), count(sort.fetch, -1));
  }

  private static long count(RexNode node, long absent) {
    if (node == null) {
      return absent;
    }
    if (node instanceof RexLiteral literal) {
      return literal.getValueAs(Long.class);
    }
    throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
        "Unsupported SQL: LIMIT/OFFSET must be constants");
  }

  /**
   * One window operator per group of the Calcite window, stacked so that groups with the same
   * PARTITION BY keys are adjacent, groups with fewer keys come first and groups without any come
   * last (an exchange only where the keys change and the rows are not already placed by a subset
   * of them; once the rows are in one task they stay there); each operator appends its calls' columns,
   * and a projection restores the window's column order when the stack changed it. A group runs
   * where its rows are: in place when every partition is already in one task, else behind a hash
   * edge on its PARTITION BY keys, or a single edge when it has none.
   */
  private StageDraft window(Window window) {
    StageDraft draft = visit(window.getInput());
    WindowTranslator translator = new WindowTranslator(window);
    List<RelDataTypeField> fields = window.getRowType().getFieldList();
    int inputWidth = window.getInput().getRowType().getFieldCount();
    List<Window.Group> groups = window.groups;
    int[] firstColumn = new int[groups.size()];
    for (int g = 0, column = inputWidth; g < groups.size(); column += groups.get(g).aggCalls.size(), g++) {
      firstColumn[g] = column;
    }
    List<Integer> stackOrder = IntStream.range(0, groups.size()).boxed()
        .sorted(Comparator.comparing((Integer g) -> WindowTranslator.partitionKeys(groups.get(g)).isEmpty())
            // Fewer keys first: rows hashed on [a] need no exchange for PARTITION BY a, b.
            .thenComparing(g -> WindowTranslator.partitionKeys(groups.get(g)).size())
            .thenComparing(g -> WindowTranslator.partitionKeys(groups.get(g)).toString()))
        .toList();
    List<Integer> stackedColumn = new ArrayList<>(IntStream.range(0, fields.size()).boxed().toList());
    int width = inputWidth;
    for (int g : stackOrder) {
      Window.Group group = groups.get(g);
      List<Integer> keys = WindowTranslator.partitionKeys(group);
      if (!draft.distribution().groupsAreLocal(keys)) {
        draft = exchangedForWindow(draft, keys);
      }
      Schema.Builder schema = draft.root().getOutputSchema().toBuilder();
      for (int i = 0; i < group.aggCalls.size(); i++) {
        var field = fields.get(firstColumn[g] + i);
        schema.addFields(Field.newBuilder().setName(field.getName())
            .setType(TypeTranslator.toProto(field.getType())));
        stackedColumn.set(firstColumn[g] + i, width + i);
      }
      draft.setRoot(Operator.newBuilder().setOutputSchema(schema)
          .setWindow(translator.translate(group, firstColumn[g]).setInput(draft.root())).build());
      width += group.aggCalls.size();
    }
    if (!stackedColumn.equals(IntStream.range(0, fields.size()).boxed().toList())) {
      // Partition keys are input columns, which keep their places: the placement holds.
      Schema stacked = draft.root().getOutputSchema();
      dev.squall.proto.v1.Project.Builder p = dev.squall.proto.v1.Project.newBuilder().setInput(draft.root());
      for (int column : stackedColumn) {
        p.addExpressions(Expr.newBuilder().setType(stacked.getFields(column).getType()).setColumn(column));
      }
      draft.setRoot(Operator.newBuilder().setOutputSchema(TypeTranslator.schema(window.getRowType())).setProject(p).build());
    }
    return estimated(draft, window);
  }

  /** A new stage holding {@code draft}'s rows hashed on {@code keys}, or in one task when there are none. */
  private StageDraft exchangedForWindow(StageDraft draft, List<Integer> keys) {
    int tasks = keys.isEmpty() ? 1 : taskCounts.forBytes(draft.bytes());
    StageDraft placed = StageDraft.intermediate(tasks, tasks == 1 ? Distribution.SINGLE : Distribution.hashOn(keys));
    placed.setRoot(graph.exchange(draft, tasks == 1 ? Partitionings.single() : Partitionings.hash(keys, tasks), placed));
    placed.setEstimates(draft.rows(), draft.bytes());
    return placed;
  }

  private StageDraft union(Union union) {
    if (!union.all) {
      throw PlanningException.unpositioned(PlanningException.Code.UNSUPPORTED,
          "Unsupported SQL: UNION without ALL reached the stage planner");
    }
    List<StageDraft> inputs = new ArrayList<>();
    double bytes = 0;
    for (RelNode input : union.getInputs()) {
      StageDraft draft = visit(input);
      inputs.add(draft);
      bytes += draft.bytes();
    }
    int tasks = taskCounts.forBytes(bytes);
    List<Integer> allColumns = IntStream.range(0, union.getRowType().getFieldCount()).boxed().toList();
    StageDraft draft = StageDraft.intermediate(tasks, tasks == 1 ? Distribution.SINGLE : Distribution.ANY);
    UnionAll.Builder u = UnionAll.newBuilder();
    for (StageDraft input : inputs) {
      u.addInputs(graph.exchange(input,
          tasks == 1 ? Partitionings.single() : Partitionings.hash(allColumns, tasks), draft));
    }
    draft.setRoot(Operator.newBuilder().setOutputSchema(TypeTranslator.schema(union.getRowType())).setUnionAll(u).build());
    return estimated(draft, union);
  }

  private static StageDraft estimated(StageDraft draft, RelNode rel) {
    draft.setEstimates(SizeEstimator.rows(rel), SizeEstimator.bytes(rel));
    return draft;
  }
}
