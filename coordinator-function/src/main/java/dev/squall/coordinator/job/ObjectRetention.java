package dev.squall.coordinator.job;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Deletes stored answers ({@code results/}) and job objects ({@code jobs/}) older than the
 * retention, as the bucket's S3 lifecycle rule does on AWS; for deployments without one (the
 * local stack). The retention must exceed the job time limit, so that no running job's objects
 * are old enough to go.
 */
public final class ObjectRetention {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectRetention.class);
  private static final List<String> PREFIXES = List.of("results/", "jobs/");

  private final S3Client s3;
  private final String bucket;
  private final Duration retention;

  public ObjectRetention(S3Client s3, String bucket, Duration retention) {
    if (retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("Invalid object retention: " + retention);
    }
    this.s3 = s3;
    this.bucket = bucket;
    this.retention = retention;
  }

  /**
   * Deletes what was last written before {@code now} minus the retention.
   *
   * @return the number of objects deleted
   */
  public int deleteExpired(Instant now) {
    Instant cutoff = now.minus(retention);
    int deleted = 0;
    for (String prefix : PREFIXES) {
      List<ObjectIdentifier> batch = new ArrayList<>();
      for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
        if (o.lastModified().isBefore(cutoff)) {
          batch.add(ObjectIdentifier.builder().key(o.key()).build());
          if (batch.size() == 1000) {
            deleted += delete(batch);
          }
        }
      }
      deleted += delete(batch);
    }
    if (deleted > 0) {
      LOG.info("deleted {} answers and job objects older than {}", deleted, retention);
    }
    return deleted;
  }

  private int delete(List<ObjectIdentifier> batch) {
    if (batch.isEmpty()) {
      return 0;
    }
    List<ObjectIdentifier> keys = List.copyOf(batch);
    batch.clear();
    s3.deleteObjects(b -> b.bucket(bucket).delete(Delete.builder().objects(keys).quiet(true).build()));
    return keys.size();
  }
}
