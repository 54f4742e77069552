package dev.squall.coordinator.job;

import java.time.Duration;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Keeps finished jobs' answers as Arrow IPC streams at {@code s3://<bucket>/results/<jobId>.arrows}
 * (expired by the bucket's lifecycle rule), and hands out presigned GET URLs for answers too large
 * to return inline.
 */
public final class ResultStore {
  public static final String CONTENT_TYPE = "application/vnd.apache.arrow.stream";

  private final S3Client s3;
  private final S3Presigner presigner;
  private final String bucket;
  private final Duration urlTtl;

  public ResultStore(S3Client s3, S3Presigner presigner, String bucket, Duration urlTtl) {
    this.s3 = s3;
    this.presigner = presigner;
    this.bucket = bucket;
    this.urlTtl = urlTtl;
  }

  static String key(String jobId) {
    return "results/" + jobId + ".arrows";
  }

  /**
   * Stores an answer; returns its location for the job store: the key in the result bucket (the
   * job record names no bucket).
   */
  public String put(String jobId, byte[] arrowIpc) {
    s3.putObject(b -> b.bucket(bucket).key(key(jobId)).contentType(CONTENT_TYPE), RequestBody.fromBytes(arrowIpc));
    return key(jobId);
  }

  /** Size in bytes of a stored answer. */
  public long size(String jobId) {
    return s3.headObject(b -> b.bucket(bucket).key(key(jobId))).contentLength();
  }

  /** A stored answer's bytes. */
  public byte[] get(String jobId) {
    return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key(jobId))).asByteArray();
  }

  /** A presigned GET URL of a stored answer. */
  public String url(String jobId) {
    return presigner.presignGetObject(p -> p.signatureDuration(urlTtl)
        .getObjectRequest(g -> g.bucket(bucket).key(key(jobId)))).url().toString();
  }
}
