package dev.squall.cli;

/**
 * The exit codes of {@code squall query}, {@code result}, {@code status} and {@code cancel}.
 */
final class ExitCodes {
  /** The query succeeded and its result was printed (or the command did what it was asked). */
  static final int OK = 0;
  /** The query failed or was cancelled elsewhere, or the service answered an error (printed to standard error). */
  static final int FAILED = 1;
  /** Bad command-line values (picocli's own usage errors are 2 as well). */
  static final int USAGE = 2;
  /** The query had not finished within {@code --timeout}, or {@code --no-wait} found it running; it keeps running. */
  static final int NOT_FINISHED = 3;
  /**
   * The service throttled a request (HTTP 429) every time the CLI sent it (the first time and
   * {@link QueryClient#THROTTLE_RETRIES} re-sends): the account's Lambda concurrency or the API's
   * rate limit is used up. A throttled submission never ran; try again later.
   */
  static final int THROTTLED = 4;
  /**
   * The query was accepted (it has an id and keeps running), but requests about it (its status,
   * its result) were throttled through every re-send; {@code squall status <id>} reaches it later.
   */
  static final int QUERY_THROTTLED = 5;
  /** Ctrl-C: the query was cancelled (128 + SIGINT, as shells report an interrupted command). */
  static final int INTERRUPTED = 130;

  private ExitCodes() {}

  /** The exit code for a job that reached {@code state} without this process cancelling it. */
  static int forState(JobState state) {
    return switch (state) {
      case SUCCEEDED -> OK;
      case FAILED, CANCELLED -> FAILED;
      case QUEUED, RUNNING, FINALIZING -> NOT_FINISHED;
    };
  }
}
