package dev.squall.coordinator.cost;

import dev.squall.jobstore.JobStore;
import dev.squall.shuffle.requests.CountingS3Client;
import dev.squall.shuffle.requests.S3RequestCounter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.S3Request;

/**
 * The coordinator's meters of the jobs it is driving in this process. Its S3 client and job store
 * are wrapped ({@link #counting(S3Client)}, {@link #counting(JobStore)}) so that each S3 request and
 * job-store call counts for the job it belongs to: an S3 request by the job id in its object key or
 * prefix (every object of a job is named under its id), a job-store call by the job id it names.
 * Requests of no job being driven (catalog reads, sweeps) are not counted.
 */
public final class JobMeters {
  private final Map<String, JobMeter> meters = new ConcurrentHashMap<>();

  /** Starts (or joins) metering {@code jobId}; each call is matched by one {@link #close}. */
  public JobMeter open(String jobId) {
    JobMeter meter = meters.computeIfAbsent(jobId, id -> new JobMeter());
    meter.users.incrementAndGet();
    return meter;
  }

  /** Stops metering {@code jobId} once every {@link #open} of it is closed. */
  public void close(String jobId) {
    meters.computeIfPresent(jobId, (id, m) -> m.users.decrementAndGet() <= 0 ? null : m);
  }

  /** {@code s3}, each request counted for the metered job its key names. */
  public S3Client counting(S3Client s3) {
    return CountingS3Client.wrap(s3, this::counterOf);
  }

  /** {@code store}, each call counted for the metered job it names. */
  public JobStore counting(JobStore store) {
    return new CountingJobStore(store, this);
  }

  /** The meter of the job named by {@code text} (a job id, object key, pool or holder), or null. */
  public JobMeter meterOf(String text) {
    if (text == null || meters.isEmpty()) {
      return null;
    }
    JobMeter exact = meters.get(text);
    if (exact != null) {
      return exact;
    }
    for (Map.Entry<String, JobMeter> e : meters.entrySet()) {
      if (text.contains(e.getKey())) {
        return e.getValue();
      }
    }
    return null;
  }

  private S3RequestCounter counterOf(S3Request request) {
    String name = request.getValueForField("Key", String.class)
        .or(() -> request.getValueForField("Prefix", String.class)).orElse(null);
    if (name == null && request instanceof DeleteObjectsRequest d && d.delete() != null
        && !d.delete().objects().isEmpty()) {
      name = d.delete().objects().get(0).key();
    }
    JobMeter meter = meterOf(name);
    return meter == null ? null : meter.s3();
  }
}
