package dev.squall.coordinator.cost;

import dev.squall.shuffle.requests.S3RequestCounter;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** What the coordinator itself spent on one job in this process: S3 requests and job-store calls. */
public final class JobMeter {
  private final S3RequestCounter s3 = new S3RequestCounter();
  private final AtomicLong storeReads = new AtomicLong();
  private final AtomicLong storeWrites = new AtomicLong();
  final AtomicInteger users = new AtomicInteger();

  /** The coordinator's S3 requests for the job. */
  public S3RequestCounter s3() {
    return s3;
  }

  public long storeReads() {
    return storeReads.get();
  }

  public long storeWrites() {
    return storeWrites.get();
  }

  void countRead() {
    storeReads.incrementAndGet();
  }

  void countWrite() {
    storeWrites.incrementAndGet();
  }
}
