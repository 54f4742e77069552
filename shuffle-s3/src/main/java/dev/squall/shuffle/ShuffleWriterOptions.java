package dev.squall.shuffle;

import dev.squall.shuffle.s3.ObjectUpload;
import dev.squall.shuffle.s3.RetryPolicy;

/**
 * Memory and request shape of a {@link ShuffleWriter}.
 *
 * @param spillThresholdBytes when the writer holds more than this (Arrow staging buffers plus
 *     encoded IPC bytes not yet sent), it ends the current run: every partition's stream is
 *     closed and appended to the object, and full parts are uploaded. Peak memory is about this
 *     plus {@code partSizeBytes} plus one input batch.
 * @param partSizeBytes smallest multipart part, at least 5 MiB (S3's minimum); outputs smaller
 *     than this go up in one PutObject
 * @param batchRows rows gathered per partition before they are encoded as one IPC record batch
 * @param retry backoff for PUT and UploadPart requests
 * @param inlineMaxBytes an object of at most this many bytes is kept in memory, not written
 *     ({@link MapOutput#inlineBytes}); 0: every object is written
 */
public record ShuffleWriterOptions(long spillThresholdBytes, long partSizeBytes, int batchRows, RetryPolicy retry,
    long inlineMaxBytes) {
  /** 64 MiB spill threshold, 8 MiB parts, 8192-row batches, default retries, nothing kept in memory. */
  public static final ShuffleWriterOptions DEFAULT =
      new ShuffleWriterOptions(64L << 20, 8L << 20, 8192, RetryPolicy.DEFAULT, 0);

  public ShuffleWriterOptions(long spillThresholdBytes, long partSizeBytes, int batchRows, RetryPolicy retry) {
    this(spillThresholdBytes, partSizeBytes, batchRows, retry, 0);
  }

  public ShuffleWriterOptions {
    if (spillThresholdBytes < 1) {
      throw new IllegalArgumentException("Invalid shuffle spill threshold: " + spillThresholdBytes);
    }
    if (partSizeBytes < ObjectUpload.MIN_PART_BYTES) {
      throw new IllegalArgumentException("Invalid shuffle part size " + partSizeBytes + ": S3 needs at least "
          + ObjectUpload.MIN_PART_BYTES);
    }
    if (batchRows < 1) {
      throw new IllegalArgumentException("Invalid shuffle batch rows: " + batchRows);
    }
    if (inlineMaxBytes < 0) {
      throw new IllegalArgumentException("Invalid inline output limit: " + inlineMaxBytes);
    }
  }

  /**
   * Options for a task whose Arrow memory budget is {@code memoryBudgetBytes}: a quarter of it
   * (between 4 MiB and 256 MiB) as spill threshold, the rest being left to the operators.
   */
  public static ShuffleWriterOptions forMemoryBudget(long memoryBudgetBytes) {
    if (memoryBudgetBytes <= 0) {
      return DEFAULT;
    }
    long spill = Math.max(4L << 20, Math.min(256L << 20, memoryBudgetBytes / 4));
    return new ShuffleWriterOptions(spill, DEFAULT.partSizeBytes, DEFAULT.batchRows, DEFAULT.retry);
  }

  public ShuffleWriterOptions withSpillThreshold(long bytes) {
    return new ShuffleWriterOptions(bytes, partSizeBytes, batchRows, retry, inlineMaxBytes);
  }

  public ShuffleWriterOptions withPartSize(long bytes) {
    return new ShuffleWriterOptions(spillThresholdBytes, bytes, batchRows, retry, inlineMaxBytes);
  }

  public ShuffleWriterOptions withBatchRows(int rows) {
    return new ShuffleWriterOptions(spillThresholdBytes, partSizeBytes, rows, retry, inlineMaxBytes);
  }

  /** These options, keeping an object of at most {@code bytes} in memory instead of writing it. */
  public ShuffleWriterOptions withInlineMaxBytes(long bytes) {
    return new ShuffleWriterOptions(spillThresholdBytes, partSizeBytes, batchRows, retry, bytes);
  }
}
