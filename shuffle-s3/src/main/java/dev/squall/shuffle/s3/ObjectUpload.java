package dev.squall.shuffle.s3;

import dev.squall.shuffle.ShuffleMetrics;
import dev.squall.shuffle.format.ByteSink;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Writes one S3 object from bytes appended in order, in bounded memory: a single PutObject when
 * everything fits below the part size, otherwise a multipart upload whose parts are each at
 * least {@code partSize} bytes (S3 requires 5 MiB for every part but the last) and whose last
 * part takes the rest. At most 10,000 parts (an S3 limit), so objects up to
 * {@code partSize × 10,000}.
 */
public final class ObjectUpload {
  /** S3's smallest part size for every part but the last. */
  public static final long MIN_PART_BYTES = 5L * 1024 * 1024;
  private static final String CONTENT_TYPE = "application/vnd.apache.arrow.stream";

  private final S3Client s3;
  private final String bucket;
  private final String key;
  private final long partSize;
  private final RetryPolicy retry;
  private final ShuffleMetrics metrics;
  private final ByteSink pending;
  private final List<CompletedPart> parts = new ArrayList<>();
  private String uploadId;
  private long uploaded;
  private boolean finished;

  public ObjectUpload(S3Client s3, String bucket, String key, long partSize, RetryPolicy retry, ShuffleMetrics metrics) {
    if (partSize < MIN_PART_BYTES) {
      throw new IllegalArgumentException("Multipart part size " + partSize + " is below S3's minimum of " + MIN_PART_BYTES);
    }
    this.s3 = s3;
    this.bucket = bucket;
    this.key = key;
    this.partSize = partSize;
    this.retry = retry;
    this.metrics = metrics;
    this.pending = new ByteSink(64 * 1024);
  }

  /** Bytes appended so far: the offset at which the next append lands. */
  public long position() {
    return uploaded + pending.size();
  }

  /** Bytes held in memory, not yet sent. */
  public long bufferedBytes() {
    return pending.size();
  }

  /** Appends bytes; sends a part when at least {@code partSize} bytes are pending. */
  public void append(ByteSink bytes) {
    bytes.copyTo(pending);
    if (pending.size() >= partSize) {
      sendPart();
    }
  }

  /** Appends bytes; sends a part when at least {@code partSize} bytes are pending. */
  public void append(byte[] bytes) {
    append(bytes, 0, bytes.length);
  }

  /** Appends {@code length} bytes of {@code bytes} from {@code offset}; sends a part when at least {@code partSize} bytes are pending. */
  public void append(byte[] bytes, int offset, int length) {
    pending.write(bytes, offset, length);
    if (pending.size() >= partSize) {
      sendPart();
    }
  }

  /** Whether a multipart upload was started (the object is larger than one part). */
  public boolean isMultipart() {
    return uploadId != null;
  }

  /**
   * Ends the upload without sending anything when the whole object is at most {@code maxBytes}
   * and still in memory (no part sent): the caller hands the bytes on itself.
   *
   * @return the object's bytes, or null (nothing changed) when it is larger or a part was sent
   */
  public byte[] keepIfAtMost(long maxBytes) {
    if (finished || uploadId != null || pending.size() > maxBytes) {
      return null;
    }
    byte[] bytes = pending.toByteArray();
    uploaded = bytes.length;
    pending.reset();
    finished = true;
    return bytes;
  }

  /**
   * Sends what is pending and makes the object visible.
   *
   * @return the object's size in bytes
   */
  public long complete() {
    if (finished) {
      throw new IllegalStateException("Upload of s3://" + bucket + "/" + key + " is already finished");
    }
    if (uploadId == null) {
      long length = pending.size();
      retry.run(() -> s3.putObject(b -> b.bucket(bucket).key(key).contentLength(length)
          .contentType(CONTENT_TYPE), pendingBody()), metrics::countPut);
      uploaded = length;
      pending.reset();
    } else {
      if (pending.size() > 0) {
        sendPart();
      }
      retry.run(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts))), metrics::countPut);
    }
    finished = true;
    return uploaded;
  }

  /** Abandons the upload (aborting a started multipart upload); safe to call more than once. */
  public void abort() {
    if (finished) {
      return;
    }
    finished = true;
    pending.reset();
    if (uploadId != null) {
      String id = uploadId;
      retry.run(() -> s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id)), metrics::countPut);
    }
  }

  /** The pending bytes as a request body, re-readable for signing and retries, without a copy. */
  private RequestBody pendingBody() {
    return RequestBody.fromContentProvider(pending::newInputStream, pending.size(), CONTENT_TYPE);
  }

  private void sendPart() {
    if (uploadId == null) {
      uploadId = retry.run(() -> s3.createMultipartUpload(b -> b.bucket(bucket).key(key)
          .contentType(CONTENT_TYPE)), metrics::countPut).uploadId();
    }
    int partNumber = parts.size() + 1;
    if (partNumber > 10_000) {
      throw new IllegalStateException("Shuffle object s3://" + bucket + "/" + key
          + " needs more than 10,000 parts; raise the part size");
    }
    long length = pending.size();
    String etag = retry.run(() -> s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId)
        .partNumber(partNumber).contentLength(length), pendingBody()), metrics::countPut).eTag();
    parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
    uploaded += length;
    pending.reset();
  }
}
