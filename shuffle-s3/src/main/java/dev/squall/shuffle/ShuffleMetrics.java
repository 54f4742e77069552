package dev.squall.shuffle;

import dev.squall.proto.v1.TaskMetrics;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shuffle counters of one task attempt; safe to update from fetch threads.
 *
 * <p>Bytes are object bytes as stored in S3 (compressed IPC plus footer); rows are data rows.
 * PUT requests count every write-class request the writer sends: PutObject, or
 * CreateMultipartUpload + UploadPart × k + CompleteMultipartUpload (S3 bills them alike), retries
 * included. GET requests count ranged GetObject calls, retries included.
 */
public final class ShuffleMetrics {
  private final AtomicLong bytesWritten = new AtomicLong();
  private final AtomicLong rowsWritten = new AtomicLong();
  private final AtomicLong objectsWritten = new AtomicLong();
  private final AtomicLong putRequests = new AtomicLong();
  private final AtomicLong bytesRead = new AtomicLong();
  private final AtomicLong rowsRead = new AtomicLong();
  private final AtomicLong getRequests = new AtomicLong();

  public long bytesWritten() {
    return bytesWritten.get();
  }

  public long rowsWritten() {
    return rowsWritten.get();
  }

  public long objectsWritten() {
    return objectsWritten.get();
  }

  public long putRequests() {
    return putRequests.get();
  }

  public long bytesRead() {
    return bytesRead.get();
  }

  public long rowsRead() {
    return rowsRead.get();
  }

  public long getRequests() {
    return getRequests.get();
  }

  void addBytesWritten(long n) {
    bytesWritten.addAndGet(n);
  }

  void addRowsWritten(long n) {
    rowsWritten.addAndGet(n);
  }

  void addObjectWritten() {
    objectsWritten.incrementAndGet();
  }

  /** Counts one write-class S3 request (used by the upload machinery). */
  public void countPut() {
    putRequests.incrementAndGet();
  }

  /** Counts one GET request (used by the fetch machinery). */
  public void countGet() {
    getRequests.incrementAndGet();
  }

  /** Adds bytes received by a successful GET. */
  public void addBytesRead(long n) {
    bytesRead.addAndGet(n);
  }

  void addRowsRead(long n) {
    rowsRead.addAndGet(n);
  }

  /**
   * Adds these counters to a task's metrics (rows_read, rows_written, bytes_shuffle_written,
   * bytes_shuffle_read, s3_put_requests, s3_get_requests, objects_written), keeping what the
   * builder already holds from other sources (scans, the engine).
   */
  public TaskMetrics.Builder addTo(TaskMetrics.Builder metrics) {
    return metrics
        .setRowsRead(metrics.getRowsRead() + rowsRead())
        .setRowsWritten(metrics.getRowsWritten() + rowsWritten())
        .setBytesShuffleWritten(metrics.getBytesShuffleWritten() + bytesWritten())
        .setBytesShuffleRead(metrics.getBytesShuffleRead() + bytesRead())
        .setS3PutRequests(metrics.getS3PutRequests() + putRequests())
        .setS3GetRequests(metrics.getS3GetRequests() + getRequests())
        .setObjectsWritten(metrics.getObjectsWritten() + objectsWritten());
  }

  @Override
  public String toString() {
    return "ShuffleMetrics{written=" + bytesWritten + " B/" + rowsWritten + " rows/" + objectsWritten
        + " objects/" + putRequests + " PUTs, read=" + bytesRead + " B/" + rowsRead + " rows/"
        + getRequests + " GETs}";
  }
}
