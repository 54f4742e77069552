package dev.squall.task;

import dev.squall.proto.v1.CancelMarker;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Whether a task should stop: its invocation is ending, or its job was cancelled, which the
 * coordinator signals by creating the job's cancel marker object in S3. The marker is looked up
 * (HEAD) at most once per {@link #INTERVAL_NANOS}, the first time at the first check, so a task
 * started after the cancel stops before its first batch. A failed lookup counts as "not cancelled".
 */
final class CancelProbe implements BooleanSupplier {
  static final long INTERVAL_NANOS = 250_000_000L;

  private final S3Client s3;
  private final CancelMarker marker;
  private final BooleanSupplier invocationEnding;
  private long nextCheck = System.nanoTime();
  private boolean cancelled;

  private CancelProbe(S3Client s3, CancelMarker marker, BooleanSupplier invocationEnding) {
    this.s3 = s3;
    this.marker = marker;
    this.invocationEnding = invocationEnding;
  }

  /** The probe for a spec; just {@code invocationEnding} when the spec names no marker. */
  static BooleanSupplier of(S3Client s3, CancelMarker marker, BooleanSupplier invocationEnding) {
    if (marker.getBucket().isEmpty() || marker.getObjectKey().isEmpty()) {
      return invocationEnding;
    }
    return new CancelProbe(s3, marker, invocationEnding);
  }

  @Override
  public boolean getAsBoolean() {
    if (cancelled || invocationEnding.getAsBoolean()) {
      return true;
    }
    long now = System.nanoTime();
    if (now - nextCheck < 0) {
      return false;
    }
    nextCheck = now + INTERVAL_NANOS;
    try {
      s3.headObject(b -> b.bucket(marker.getBucket()).key(marker.getObjectKey()));
      cancelled = true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      cancelled = e.statusCode() != 404 ? cancelled : false;
    } catch (SdkException e) {
      return false;
    }
    return cancelled;
  }
}
