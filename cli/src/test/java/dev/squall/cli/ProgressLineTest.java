package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
  private static JobStatus status(JobState state, boolean cancelRequested, JobStatus.StageProgress... stages) {
    return new JobStatus("q", state, cancelRequested, null, null, null, List.of(stages), null, null);
  }

  private static JobStatus.StageProgress stage(int id, long done, long total) {
    return new JobStatus.StageProgress(id, done, total);
  }

  @Test
  void runningJobShowsTotalsAndUnfinishedStages() {
    String line = ProgressLine.render(status(JobState.RUNNING, false, stage(0, 10, 10), stage(1, 2, 10), stage(2, 0, 4)),
        Duration.ofSeconds(7), 200);
    // 12 of 24 tasks: half of the 20 cells.
    assertThat(line).isEqualTo("RUNNING [##########..........] 12/24 tasks | stage 1 2/10, stage 2 0/4 | 0:07");
  }

  @Test
  void queuedJobWithoutStagesShowsAnEmptyBar() {
    assertThat(ProgressLine.render(status(JobState.QUEUED, false), Duration.ofMillis(400), 200))
        .isEqualTo("QUEUED [....................] 0/0 tasks | 0:00");
  }

  @Test
  void cancelRequestIsShownUntilTheJobEnds() {
    assertThat(ProgressLine.render(status(JobState.RUNNING, true, stage(0, 1, 4)), Duration.ZERO, 200))
        .startsWith("RUNNING (cancelling) [#####...............] 1/4 tasks");
    assertThat(ProgressLine.render(status(JobState.CANCELLED, true, stage(0, 1, 4)), Duration.ZERO, 200))
        .startsWith("CANCELLED [");
  }

  @Test
  void manyUnfinishedStagesAreCountedNotListed() {
    String line = ProgressLine.render(status(JobState.RUNNING, false, stage(0, 0, 1), stage(1, 0, 1), stage(2, 0, 1),
        stage(3, 0, 1), stage(4, 0, 1)), Duration.ZERO, 200);
    assertThat(line).contains("stage 0 0/1, stage 1 0/1, stage 2 0/1, +2 more").doesNotContain("stage 3");
  }

  @Test
  void lineNeverReachesTheTerminalWidth() {
    JobStatus s = status(JobState.FINALIZING, false, stage(0, 3, 7), stage(1, 0, 9));
    for (int width = 1; width <= 90; width++) {
      assertThat(ProgressLine.render(s, Duration.ofMinutes(3), width).length()).isLessThanOrEqualTo(Math.max(0, width - 1));
    }
  }

  @Test
  void barIsFullWhenAllTasksAreDoneAndNeverOverflows() {
    assertThat(ProgressLine.bar(5, 5)).isEqualTo("[" + "#".repeat(20) + "]");
    assertThat(ProgressLine.bar(9, 5)).isEqualTo("[" + "#".repeat(20) + "]");
    assertThat(ProgressLine.bar(1, 3)).isEqualTo("[" + "#".repeat(6) + ".".repeat(14) + "]");
  }

  @Test
  void clockShowsHoursOnlyFromOneHourOn() {
    assertThat(ProgressLine.clock(Duration.ofSeconds(59))).isEqualTo("0:59");
    assertThat(ProgressLine.clock(Duration.ofSeconds(61 * 60 + 5))).isEqualTo("1:01:05");
    assertThat(ProgressLine.clock(Duration.ofSeconds(-3))).isEqualTo("0:00");
  }

  @Test
  void displayOverwritesALongerLineAndErasesItWhenClosed() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressDisplay d = new ProgressDisplay(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, 200);
    JobStatus running = status(JobState.RUNNING, false, stage(0, 1, 10), stage(1, 0, 10));
    JobStatus done = status(JobState.SUCCEEDED, false, stage(0, 10, 10), stage(1, 10, 10));
    String first = ProgressLine.render(running, Duration.ZERO, 200);
    String second = ProgressLine.render(done, Duration.ZERO, 200);
    assertThat(second.length()).isLessThan(first.length());
    d.show(running, Duration.ZERO);
    d.show(done, Duration.ZERO);
    d.close();
    d.show(running, Duration.ZERO);
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("\r" + first + "\r" + second
        + " ".repeat(first.length() - second.length()) + "\r" + " ".repeat(second.length()) + "\r");
  }

  @Test
  void disabledDisplayDrawsNothing() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressDisplay d = new ProgressDisplay(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, 200);
    d.show(status(JobState.RUNNING, false, stage(0, 1, 2)), Duration.ZERO);
    d.close();
    assertThat(bytes.size()).isZero();
  }

  @Test
  void quietWinsOverForcedProgress() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    ProgressDisplay.choose(err, true, true).show(status(JobState.RUNNING, false), Duration.ZERO);
    assertThat(bytes.size()).isZero();
    ProgressDisplay.choose(err, false, true).show(status(JobState.RUNNING, false), Duration.ZERO);
    assertThat(bytes.toString(StandardCharsets.UTF_8)).startsWith("\rRUNNING [");
  }
}
