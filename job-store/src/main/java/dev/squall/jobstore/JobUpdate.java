package dev.squall.jobstore;

import java.util.List;

/**
 * Fields to set on a job together with a transition or progress update; a null field is left as
 * it is.
 *
 * @param progress replaces the per-stage progress
 * @param error sets the error
 * @param resultLocation sets where the result is
 * @param summary sets the summary bytes
 */
public record JobUpdate(List<StageProgress> progress, JobError error, String resultLocation, byte[] summary) {
  /** Changes nothing beyond what the call itself does. */
  public static final JobUpdate NONE = new JobUpdate(null, null, null, null);

  public static JobUpdate progress(List<StageProgress> progress) {
    return new JobUpdate(progress, null, null, null);
  }

  public static JobUpdate error(JobError error) {
    return new JobUpdate(null, error, null, null);
  }

  public JobUpdate withResultLocation(String location) {
    return new JobUpdate(progress, error, location, summary);
  }

  public JobUpdate withSummary(byte[] bytes) {
    return new JobUpdate(progress, error, resultLocation, bytes);
  }

  public JobUpdate withProgress(List<StageProgress> p) {
    return new JobUpdate(p, error, resultLocation, summary);
  }
}
