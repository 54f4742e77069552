package dev.squall.coordinator.scheduler;

import dev.squall.proto.v1.TaskSpec;
import java.util.List;

/**
 * The scheduler stopped a job without finishing or failing it ({@link JobControl.Directive#SUSPEND}):
 * another invocation resumes it from the winners recorded so far.
 */
public final class JobSuspendedException extends Exception {
  private final transient List<TaskSpec> abandoned;

  public JobSuspendedException(String jobId, List<TaskSpec> abandoned) {
    super("job " + jobId + " suspended with " + abandoned.size() + " attempts still running");
    this.abandoned = List.copyOf(abandoned);
  }

  /** Attempts that were still running when the run stopped waiting for them. */
  public List<TaskSpec> abandoned() {
    return abandoned;
  }
}
