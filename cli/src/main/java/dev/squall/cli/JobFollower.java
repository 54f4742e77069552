package dev.squall.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * Follows an asynchronous query job: polls {@code GET /v1/queries/{id}} on the
 * {@link PollSchedule}, drawing each status on a {@link ProgressDisplay}, until the job ends, the
 * deadline passes or {@code stopped} turns true (Ctrl-C's cancel has taken over); then fetches
 * {@code GET /v1/queries/{id}/result} and prints it with {@link AnswerPrinter}, as the synchronous
 * answer would have been printed.
 */
final class JobFollower {
  /** Consecutive failed polls (connection errors, 5xx) tolerated before giving up. */
  static final int MAX_FAILED_POLLS = 3;

  private final QueryClient polls;
  private final QueryClient results;
  private final ProgressDisplay display;
  private final BooleanSupplier stopped;
  private final PrintStream out;
  private final PrintStream err;
  private final boolean quiet;

  /**
   * @param polls client for status requests (short request timeout)
   * @param results client for the result request (the user's --timeout)
   * @param stopped when true, following ends without printing anything more
   * @param quiet print only the result and errors (no query id, summary or cost line)
   */
  JobFollower(QueryClient polls, QueryClient results, ProgressDisplay display, BooleanSupplier stopped,
      PrintStream out, PrintStream err, boolean quiet) {
    this.quiet = quiet;
    this.polls = polls;
    this.results = results;
    this.display = display;
    this.stopped = stopped;
    this.out = out;
    this.err = err;
  }

  /** A status poll that the service refused; its answer has been printed to standard error. */
  static final class StatusRefused extends Exception {
    StatusRefused(int status) {
      super("HTTP " + status);
    }
  }

  /**
   * Polls until the job is terminal or {@code deadline} passes.
   *
   * @param since when the query was submitted (for the elapsed time shown)
   * @return the last status seen (terminal unless the deadline passed), or null when
   *     {@code stopped} turned true
   * @throws IOException also when the deadline passed before any status was read
   * @throws StatusRefused when the service answered a status poll with a 4xx (printed)
   * @throws IOException when {@link #MAX_FAILED_POLLS} polls in a row failed
   * @throws ThrottledException when a poll was throttled through all its re-sends
   */
  JobStatus await(String statusPath, Instant since, Instant deadline) throws IOException, InterruptedException, StatusRefused {
    Duration wait = PollSchedule.FIRST;
    int failures = 0;
    JobStatus last = null;
    while (!stopped.getAsBoolean()) {
      HttpResponse<byte[]> r = null;
      try {
        r = polls.status(statusPath);
      } catch (ThrottledException e) {
        // Already sent again with backoff for about half a minute: polling on would only add to it.
        display.close();
        throw e;
      } catch (IOException e) {
        // Connection refused, reset or timed out: the endpoint may be restarting; try again.
        if (++failures >= MAX_FAILED_POLLS) {
          throw e;
        }
      }
      if (r != null && r.statusCode() == 200) {
        last = JobStatus.parse(r.body());
        failures = 0;
        if (stopped.getAsBoolean()) {
          return null;
        }
        display.show(last, Duration.between(since, Instant.now()));
        if (last.state().isTerminal()) {
          return last;
        }
      } else if (r != null && r.statusCode() == 404 && last == null && ++failures < MAX_FAILED_POLLS) {
        // A job just submitted may not be visible yet to every reader of the job store; ask again.
      } else if (r != null && r.statusCode() < 500) {
        display.close();
        AnswerPrinter.printError(r.statusCode(), r.body(), err);
        throw new StatusRefused(r.statusCode());
      } else if (r != null && ++failures >= MAX_FAILED_POLLS) {
        throw new IOException("polling the status of " + statusPath + " failed " + failures + " times in a row, last with HTTP "
            + r.statusCode() + ": " + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8).strip());
      }
      Instant now = Instant.now();
      if (!now.isBefore(deadline)) {
        if (last == null) {
          throw new IOException("no status of " + statusPath + " before the deadline");
        }
        return last;
      }
      Thread.sleep(Math.min(wait.toMillis(), Duration.between(now, deadline).toMillis()));
      wait = PollSchedule.next(wait);
    }
    return null;
  }

  /**
   * Follows a submitted job to its end and prints its result (or error).
   *
   * @return an {@link ExitCodes} value: OK, FAILED, NOT_FINISHED at the deadline, INTERRUPTED when
   *     stopped, QUERY_THROTTLED when its status or result requests were throttled through every
   *     re-send (the message names the query)
   */
  int follow(Submission job, ResultFormat format, Instant since, Instant deadline) throws IOException, InterruptedException {
    JobStatus last;
    try {
      last = await(job.statusUrl(), since, deadline);
    } catch (StatusRefused e) {
      return ExitCodes.FAILED;
    } catch (ThrottledException e) {
      err.println(e.forAcceptedQuery(job.queryId(), "status"));
      return ExitCodes.QUERY_THROTTLED;
    } finally {
      if (!stopped.getAsBoolean()) {
        display.close();
      }
    }
    if (last == null) {
      return ExitCodes.INTERRUPTED;
    }
    if (!last.state().isTerminal()) {
      err.println("query " + job.queryId() + " is still " + last.state() + " after --timeout; it keeps running: "
          + "`squall result " + job.queryId() + "` prints its answer, `squall cancel " + job.queryId() + "` stops it");
      return ExitCodes.NOT_FINISHED;
    }
    try {
      return printResult(job.resultUrl(), format);
    } catch (ThrottledException e) {
      err.println(e.forAcceptedQuery(job.queryId(), "result"));
      return ExitCodes.QUERY_THROTTLED;
    }
  }

  /**
   * Fetches a finished job's result and prints it; 409 with code NOT_FINISHED gives NOT_FINISHED,
   * any other error (a cancelled query's 409 CANCELLED among them) FAILED.
   */
  int printResult(String resultPath, ResultFormat format) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = results.result(resultPath, format == ResultFormat.JSON ? QueryClient.JSON_TYPE : QueryClient.ARROW_STREAM);
    if (r.statusCode() == 409) {
      AnswerPrinter.printError(r.statusCode(), r.body(), err);
      return new String(r.body(), java.nio.charset.StandardCharsets.UTF_8).contains("\"NOT_FINISHED\"")
          ? ExitCodes.NOT_FINISHED : ExitCodes.FAILED;
    }
    return AnswerPrinter.print(r, format, out, err, quiet) ? ExitCodes.OK : ExitCodes.FAILED;
  }
}
