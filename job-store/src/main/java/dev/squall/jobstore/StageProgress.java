package dev.squall.jobstore;

/**
 * How far one stage of a job is.
 *
 * @param stageId the stage
 * @param tasksDone tasks with a winning attempt
 * @param tasksTotal tasks of the stage
 */
public record StageProgress(int stageId, int tasksDone, int tasksTotal) {
  public StageProgress {
    if (tasksDone < 0 || tasksTotal < 0 || tasksDone > tasksTotal) {
      throw new IllegalArgumentException("Invalid progress of stage " + stageId + ": " + tasksDone + "/" + tasksTotal);
    }
  }
}
