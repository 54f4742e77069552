package dev.squall.shuffle;

import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Deletes a job's shuffle data when the job ends: every object under {@code <jobPrefix>/},
 * listed page by page (ListObjectsV2) and removed with one DeleteObjects request per page
 * (at most 1,000 keys, S3's limit).
 */
public final class ShuffleCleaner {
  private final S3Client s3;
  private final int pageSize;

  /** A cleaner with S3's largest page and batch, 1,000 keys. */
  public ShuffleCleaner(S3Client s3) {
    this(s3, 1000);
  }

  /** A cleaner that lists and deletes {@code pageSize} keys at a time (1 to 1,000). */
  public ShuffleCleaner(S3Client s3, int pageSize) {
    if (pageSize < 1 || pageSize > 1000) {
      throw new IllegalArgumentException("Invalid delete page size " + pageSize + ": must be 1 to 1000");
    }
    this.s3 = s3;
    this.pageSize = pageSize;
  }

  /**
   * Deletes every object of a job's shuffle.
   *
   * @return the number of objects deleted
   * @throws IllegalArgumentException on an empty or malformed job prefix (it would widen the
   *     deletion beyond the job)
   * @throws IllegalStateException naming the keys S3 refused to delete
   */
  public long deleteJob(String bucket, String jobPrefix) {
    String root = ShuffleKeys.jobRoot(jobPrefix);
    long deleted = 0;
    String token = null;
    do {
      String continuation = token;
      ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(bucket).prefix(root).maxKeys(pageSize)
          .continuationToken(continuation));
      List<ObjectIdentifier> keys = new ArrayList<>();
      for (S3Object object : page.contents()) {
        keys.add(ObjectIdentifier.builder().key(object.key()).build());
      }
      if (!keys.isEmpty()) {
        DeleteObjectsResponse response = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(keys).quiet(true)));
        if (response.hasErrors() && !response.errors().isEmpty()) {
          throw new IllegalStateException("Deleting shuffle data of s3://" + bucket + "/" + root + " failed for "
              + response.errors().size() + " keys, first " + response.errors().get(0).key() + ": "
              + response.errors().get(0).code() + " " + response.errors().get(0).message());
        }
        deleted += keys.size();
      }
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
    return deleted;
  }
}
