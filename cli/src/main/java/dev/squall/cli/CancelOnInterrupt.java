package dev.squall.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Cancels a running query when the user presses Ctrl-C: a JVM shutdown hook (SIGINT and SIGTERM
 * run the hooks) sends {@code DELETE /v1/queries/{id}}, polls the status until the job is
 * terminal or {@link #BUDGET} has passed, and prints {@code query <id> cancelled} (or what
 * happened instead) on standard error. The JVM then exits with 130 for SIGINT. Requests use short
 * timeouts, so a gone endpoint cannot hold the JVM longer than the budget plus one request.
 * {@link #close()} removes the hook once the job has ended on its own.
 */
final class CancelOnInterrupt implements AutoCloseable {
  /** How long the hook waits for the job to reach CANCELLED. */
  static final Duration BUDGET = Duration.ofSeconds(10);
  /** Connect and request timeout of the hook's HTTP requests. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

  private final QueryClient client;
  private final String queryId;
  private final ProgressDisplay display;
  private final PrintStream err;
  private final AtomicBoolean triggered = new AtomicBoolean();
  private final Thread hook;

  CancelOnInterrupt(QueryClient client, String queryId, ProgressDisplay display, PrintStream err) {
    this.client = client.withTimeout(REQUEST_TIMEOUT, REQUEST_TIMEOUT);
    this.queryId = queryId;
    this.display = display;
    this.err = err;
    this.hook = new Thread(() -> cancelAndWait(BUDGET), "squall-cancel-" + queryId);
  }

  /** Installs the hook for {@code queryId}; close the result when the job has ended. */
  static CancelOnInterrupt install(QueryClient client, String queryId, ProgressDisplay display, PrintStream err) {
    CancelOnInterrupt c = new CancelOnInterrupt(client, queryId, display, err);
    Runtime.getRuntime().addShutdownHook(c.hook);
    return c;
  }

  /** Whether the cancel has started (the poller then stops printing). */
  boolean triggered() {
    return triggered.get();
  }

  /**
   * Requests the cancel and waits for its outcome, printing one line about it. Runs at most once;
   * later calls return at once. Never throws.
   *
   * @param budget how long to wait for a terminal state
   * @return {@link ExitCodes#INTERRUPTED}
   */
  int cancelAndWait(Duration budget) {
    if (!triggered.compareAndSet(false, true)) {
      return ExitCodes.INTERRUPTED;
    }
    display.close();
    Instant deadline = Instant.now().plus(budget);
    try {
      HttpResponse<byte[]> r = client.cancel(queryId);
      if (r.statusCode() == 409) {
        err.println("query " + queryId + " was not cancelled: it had already finished");
        return ExitCodes.INTERRUPTED;
      }
      if (r.statusCode() != 202 && r.statusCode() != 200) {
        err.println("query " + queryId + ": the cancel request failed, it may still be running");
        AnswerPrinter.printError(r.statusCode(), r.body(), err);
        return ExitCodes.INTERRUPTED;
      }
      JobStatus status = JobStatus.parse(r.body());
      Duration wait = PollSchedule.FIRST;
      while (!status.state().isTerminal() && Instant.now().isBefore(deadline)) {
        Thread.sleep(Math.max(0, Math.min(wait.toMillis(), Duration.between(Instant.now(), deadline).toMillis())));
        wait = PollSchedule.next(wait);
        HttpResponse<byte[]> s = client.status(QueryClient.statusPath(queryId));
        if (s.statusCode() == 200) {
          status = JobStatus.parse(s.body());
        }
      }
      err.println(outcome(queryId, status, budget));
    } catch (IOException e) {
      err.println("query " + queryId + ": could not reach the endpoint to cancel it (" + e.getMessage()
          + "); it may still be running");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("query " + queryId + ": interrupted while cancelling; it may still be running");
    } catch (RuntimeException e) {
      err.println("query " + queryId + ": cancelling failed: " + e);
    }
    err.flush();
    return ExitCodes.INTERRUPTED;
  }

  /** The line printed after the wait: {@code query <id> cancelled}, or why not. */
  static String outcome(String queryId, JobStatus status, Duration budget) {
    return switch (status.state()) {
      case CANCELLED -> "query " + queryId + " cancelled";
      case SUCCEEDED, FAILED -> "query " + queryId + " was not cancelled: it had already ended as " + status.state();
      default -> "query " + queryId + ": cancel requested, but it was still " + status.state() + " after "
          + budget.toSeconds() + " s (see `squall status " + queryId + "`)";
    };
  }

  /** Removes the hook (the job has ended, or following it failed); harmless during shutdown. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run; nothing to undo.
    }
  }
}
