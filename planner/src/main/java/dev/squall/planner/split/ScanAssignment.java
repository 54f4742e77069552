package dev.squall.planner.split;

import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.Stage;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import java.util.Map;

/**
 * The scan splits of every leaf stage, per task: {@code tasks(stageId).get(p)} maps each Scan
 * input index of stage {@code stageId} to the splits task {@code p} reads. Stages without scans
 * have no entry.
 */
public record ScanAssignment(Map<Integer, List<Map<Integer, ScanInput>>> tasksByStage) {
  public ScanAssignment {
    tasksByStage = Map.copyOf(tasksByStage);
  }

  /** True when the stage reads scan splits. */
  public boolean isLeaf(int stageId) {
    return tasksByStage.containsKey(stageId);
  }

  /** The per-task inputs of a leaf stage (at least one task). */
  public List<Map<Integer, ScanInput>> tasks(int stageId) {
    List<Map<Integer, ScanInput>> tasks = tasksByStage.get(stageId);
    if (tasks == null) {
      throw new IllegalArgumentException("Stage " + stageId + " is not a leaf stage");
    }
    return tasks;
  }

  /** The graph with each leaf stage's task count replaced by its number of split groups. */
  public StageGraph applyTo(StageGraph graph) {
    StageGraph.Builder b = graph.toBuilder();
    for (int i = 0; i < b.getStagesCount(); i++) {
      Stage stage = b.getStages(i);
      if (isLeaf(stage.getStageId())) {
        b.setStages(i, stage.toBuilder().setTaskCount(tasks(stage.getStageId()).size()));
      }
    }
    return b.build();
  }
}
