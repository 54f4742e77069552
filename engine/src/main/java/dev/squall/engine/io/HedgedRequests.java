package dev.squall.engine.io;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hedged requests, after Dean and Barroso, "The Tail at Scale" (CACM 56(2), 2013): a request that
 * has not answered once the {@link HedgeSettings#percentile()}-th percentile of recent latencies
 * has passed (kept within the settings' floor and cap) is sent a second time; the first answer
 * wins and the other request is cancelled (its thread interrupted, its answer ignored). Fewer than
 * {@code 1 + budget × requests} requests are ever hedged (a hedge is sent only while the hedges so
 * far are below {@code budget × requests}), so a store that is slow for every request is not sent
 * twice the load. Meant for idempotent reads (ranged GETs of immutable
 * objects).
 *
 * <p>Latencies of the last {@value #WINDOW} answered requests are kept; until
 * {@value #MIN_SAMPLES} are known, a request is hedged after the cap. Requests run on a shared pool
 * of daemon threads; the caller waits. Thread-safe; one instance per kind of read (its latencies
 * are one distribution).
 */
public final class HedgedRequests {
  /** Latencies kept. */
  public static final int WINDOW = 128;
  /** Latencies needed before the percentile is used. */
  public static final int MIN_SAMPLES = 10;
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "squall-hedged-read-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  /** A request that may be sent twice. */
  @FunctionalInterface
  public interface Request<T> {
    T send() throws IOException;
  }

  private final HedgeSettings settings;
  private final long[] latencies = new long[WINDOW];
  private int samples;
  private int next;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong hedged = new AtomicLong();
  private final AtomicLong hedgesWon = new AtomicLong();

  public HedgedRequests(HedgeSettings settings) {
    this.settings = settings;
  }

  /** One answer (or failure) of one of the two requests. */
  private record Outcome<T>(int copy, T value, Throwable failure, long nanos) {}

  /**
   * Sends {@code request}, and again once it is overdue; returns the first answer.
   *
   * @throws IOException the request's failure when every copy sent failed (the first copy's)
   * @throws InterruptedIOException when the caller is interrupted while waiting
   */
  public <T> T call(Request<T> request) throws IOException {
    if (!settings.enabled()) {
      return request.send();
    }
    long count = requests.incrementAndGet();
    BlockingQueue<Outcome<T>> outcomes = new ArrayBlockingQueue<>(2);
    Future<?> primary = POOL.submit(() -> sendInto(request, 0, outcomes));
    Future<?> hedge = null;
    try {
      Outcome<T> first = outcomes.poll(hedgeDelayNanos(), TimeUnit.NANOSECONDS);
      if (first == null && takeHedge(count)) {
        hedge = POOL.submit(() -> sendInto(request, 1, outcomes));
      }
      if (first == null) {
        first = outcomes.take();
      }
      Outcome<T> winner = first;
      if (first.failure() != null && hedge != null) {
        Outcome<T> second = outcomes.take();
        winner = second.failure() == null ? second : first;
      }
      if (winner.failure() != null) {
        throw rethrow(winner.failure());
      }
      record(winner.nanos());
      if (winner.copy() == 1) {
        hedgesWon.incrementAndGet();
      }
      return winner.value();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for a read");
    } finally {
      primary.cancel(true);
      if (hedge != null) {
        hedge.cancel(true);
      }
    }
  }

  /** As {@link #call}, for requests that throw no checked exception. */
  public <T> T callUnchecked(Request<T> request) {
    try {
      return call(request);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Counts a hedge if the budget allows one: hedges stay below {@code 1 + budget × requests}. */
  private boolean takeHedge(long requestsSoFar) {
    while (true) {
      long h = hedged.get();
      if (h >= settings.budget() * requestsSoFar) {
        return false;
      }
      if (hedged.compareAndSet(h, h + 1)) {
        return true;
      }
    }
  }

  private static <T> void sendInto(Request<T> request, int copy, BlockingQueue<Outcome<T>> outcomes) {
    long start = System.nanoTime();
    Outcome<T> outcome;
    try {
      outcome = new Outcome<>(copy, request.send(), null, System.nanoTime() - start);
    } catch (Throwable t) {
      outcome = new Outcome<>(copy, null, t, System.nanoTime() - start);
    }
    outcomes.offer(outcome);
  }

  private static IOException rethrow(Throwable t) {
    if (t instanceof IOException io) {
      return io;
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IOException(t);
  }

  /** How long a request waits before it is sent again: the percentile of recent latencies, within floor and cap. */
  public synchronized long hedgeDelayNanos() {
    long floor = settings.minDelay().toNanos();
    long cap = settings.maxDelay().toNanos();
    if (samples < MIN_SAMPLES) {
      return cap;
    }
    long[] sorted = Arrays.copyOf(latencies, samples);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(settings.percentile() / 100 * samples) - 1;
    return Math.max(floor, Math.min(cap, sorted[Math.max(0, Math.min(samples - 1, rank))]));
  }

  private synchronized void record(long nanos) {
    latencies[next] = nanos;
    next = (next + 1) % WINDOW;
    samples = Math.min(WINDOW, samples + 1);
  }

  /** Requests made through {@link #call}. */
  public long requests() {
    return requests.get();
  }

  /** Requests that were sent a second time. */
  public long hedged() {
    return hedged.get();
  }

  /** Hedged requests whose second copy answered first. */
  public long hedgesWon() {
    return hedgesWon.get();
  }
}
