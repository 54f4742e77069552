package dev.squall.cli;

import java.time.Duration;
import java.util.List;

/**
 * Renders a job's progress as one line of text for a terminal, e.g.
 * {@code RUNNING [########............] 12/30 tasks | stage 1 4/10, stage 2 0/8 | 0:07}:
 * the state (with "cancelling" once a cancel is recorded), a bar of tasks done over all stages
 * known so far, the unfinished stages (at most {@value #MAX_STAGES_SHOWN}, then "+N more") and the
 * time since submission. The line never exceeds the given width, so it does not wrap and a
 * carriage return can overwrite it.
 */
final class ProgressLine {
  static final int BAR_WIDTH = 20;
  static final int MAX_STAGES_SHOWN = 3;

  private ProgressLine() {}

  /**
   * @param elapsed time since the query was submitted
   * @param width terminal columns; the result has at most {@code width - 1} characters
   */
  static String render(JobStatus status, Duration elapsed, int width) {
    StringBuilder line = new StringBuilder();
    line.append(status.state());
    if (status.cancelRequested() && !status.state().isTerminal()) {
      line.append(" (cancelling)");
    }
    long done = status.tasksDone();
    long total = status.tasksTotal();
    line.append(' ').append(bar(done, total)).append(' ').append(done).append('/').append(total).append(" tasks");
    List<JobStatus.StageProgress> running = status.stages().stream().filter(s -> !s.isDone()).toList();
    if (!running.isEmpty()) {
      line.append(" | ");
      for (int i = 0; i < Math.min(MAX_STAGES_SHOWN, running.size()); i++) {
        JobStatus.StageProgress s = running.get(i);
        line.append(i == 0 ? "" : ", ").append("stage ").append(s.stageId()).append(' ')
            .append(s.tasksDone()).append('/').append(s.tasksTotal());
      }
      if (running.size() > MAX_STAGES_SHOWN) {
        line.append(", +").append(running.size() - MAX_STAGES_SHOWN).append(" more");
      }
    }
    line.append(" | ").append(clock(elapsed));
    int max = Math.max(0, width - 1);
    return line.length() <= max ? line.toString() : line.substring(0, max);
  }

  /** {@code [####......]}: done/total of {@link #BAR_WIDTH} cells filled, none while nothing is known. */
  static String bar(long done, long total) {
    int filled = total <= 0 ? 0 : (int) Math.min(BAR_WIDTH, done * BAR_WIDTH / total);
    return "[" + "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled) + "]";
  }

  /** {@code m:ss}, or {@code h:mm:ss} from one hour on. */
  static String clock(Duration elapsed) {
    long s = Math.max(0, elapsed.toSeconds());
    return s >= 3600 ? String.format("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String.format("%d:%02d", s / 60, s % 60);
  }
}
