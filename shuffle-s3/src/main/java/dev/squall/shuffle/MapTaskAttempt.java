package dev.squall.shuffle;

/**
 * One attempt of one map-side task: the producer identity of a shuffle output.
 *
 * @param stageId producer stage
 * @param partition the task's partition (task index) within the stage
 * @param attempt attempt number, 0 for the first
 */
public record MapTaskAttempt(int stageId, int partition, int attempt) {
  public MapTaskAttempt {
    if (stageId < 0 || partition < 0 || attempt < 0) {
      throw new IllegalArgumentException("Invalid map task attempt: stage " + stageId + ", partition " + partition
          + ", attempt " + attempt);
    }
  }

  @Override
  public String toString() {
    return "stage " + stageId + ", partition " + partition + ", attempt " + attempt;
  }
}
