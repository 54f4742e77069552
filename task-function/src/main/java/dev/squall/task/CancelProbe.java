package dev.squall.task;

import dev.squall.proto.v1.CancelMarker;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Whether a task should stop: its invocation is ending, or its job was cancelled, which the
 * coordinator signals by creating the job's cancel marker object in S3.
 *
 * <p>The marker is looked up (HEAD) off the task's thread: the first lookup starts when the probe
 * is made, the next ones at most once per {@link #INTERVAL_NANOS}, one at a time, started by a
 * check that finds the last one answered and the interval passed. A check never waits for S3; it
 * answers what the last completed lookup found, so a cancel is seen one lookup's round trip after
 * the marker appears (plus the interval). A failed lookup counts as "not cancelled".
 *
 * <p>Why not on the task's thread: operators check at every batch, and a synchronous HEAD every
 * 250 ms was a round trip of S3 latency added to the task's own time each time.
 *
 * <p>{@link #stop()} ends the lookups before the task counts its S3 requests, so that every HEAD
 * the task sent is in its count and none is sent after it.
 */
final class CancelProbe implements BooleanSupplier {
  static final long INTERVAL_NANOS = 250_000_000L;
  /** How long {@link #stop()} waits for a lookup under way; S3 answers a HEAD in milliseconds. */
  static final long STOP_WAIT_NANOS = 1_000_000_000L;

  private static final AtomicInteger THREADS = new AtomicInteger();
  /** Runs the lookups; daemon threads, idle ones expire. */
  private static final ExecutorService LOOKUPS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "squall-cancel-probe-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  private final S3Client s3;
  /** Null when the spec names no marker: only the invocation's end stops the task. */
  private final CancelMarker marker;
  private final BooleanSupplier invocationEnding;
  /** True while a lookup is under way. */
  private final AtomicBoolean lookingUp = new AtomicBoolean();
  /** When the next lookup may start (nanoTime); written by the thread that won {@link #lookingUp}. */
  private volatile long nextLookup;
  private volatile boolean cancelled;
  private volatile boolean stopped;

  private CancelProbe(S3Client s3, CancelMarker marker, BooleanSupplier invocationEnding) {
    this.s3 = s3;
    this.marker = marker;
    this.invocationEnding = invocationEnding;
  }

  /**
   * The probe for a spec, its first lookup already started; one that only asks
   * {@code invocationEnding} when the spec names no marker.
   */
  static CancelProbe of(S3Client s3, CancelMarker marker, BooleanSupplier invocationEnding) {
    boolean none = marker.getBucket().isEmpty() || marker.getObjectKey().isEmpty();
    CancelProbe probe = new CancelProbe(s3, none ? null : marker, invocationEnding);
    probe.startLookup(System.nanoTime());
    return probe;
  }

  /**
   * Starts no more lookups and waits (at most {@link #STOP_WAIT_NANOS}) for the one under way;
   * later checks answer what was last found.
   */
  void stop() {
    stopped = true;
    long until = System.nanoTime() + STOP_WAIT_NANOS;
    while (lookingUp.get() && System.nanoTime() - until < 0) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public boolean getAsBoolean() {
    if (cancelled || invocationEnding.getAsBoolean()) {
      return true;
    }
    long now = System.nanoTime();
    if (now - nextLookup >= 0) {
      startLookup(now);
    }
    return cancelled;
  }

  /** Starts a lookup unless one is under way. */
  private void startLookup(long now) {
    if (marker == null || stopped || !lookingUp.compareAndSet(false, true)) {
      return;
    }
    nextLookup = now + INTERVAL_NANOS;
    try {
      LOOKUPS.execute(this::lookUp);
    } catch (RuntimeException e) {
      lookingUp.set(false);
    }
  }

  private void lookUp() {
    try {
      s3.headObject(b -> b.bucket(marker.getBucket()).key(marker.getObjectKey()));
      cancelled = true;
    } catch (NoSuchKeyException e) {
      // not cancelled
    } catch (S3Exception e) {
      // Any answer but 404 leaves the verdict as it was.
    } catch (SdkException e) {
      // unreachable: not cancelled as far as we know
    } finally {
      lookingUp.set(false);
    }
  }
}
