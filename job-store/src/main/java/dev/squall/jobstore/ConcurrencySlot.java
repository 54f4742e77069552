package dev.squall.jobstore;

import java.time.Instant;
import java.util.Objects;

/**
 * One held place in a pool of concurrency slots (see {@link JobStore#acquireSlot}): slot
 * {@code index} of {@code pool}, held by {@code holder} until {@code expiresAt} unless released.
 *
 * @param pool the pool's name (for example {@code "account"} or {@code "job/<job id>"})
 * @param index the slot's number, 0 to the pool's capacity minus one
 * @param holder who holds it (for a task attempt: job, stage, partition and attempt)
 * @param expiresAt when the slot is free again if its holder never releases it (a crashed coordinator)
 */
public record ConcurrencySlot(String pool, int index, String holder, Instant expiresAt) {
  public ConcurrencySlot {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }

  /** Whether the slot is still held at {@code now} (it lapses at {@code expiresAt}). */
  public boolean isLiveAt(Instant now) {
    return expiresAt.isAfter(now);
  }
}
