package dev.squall.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.Locale;

/**
 * A request the service answered 429 (Too Many Requests) every time the CLI sent it: API Gateway or
 * Lambda throttled the coordinator, which therefore never ran it. The message is what the user is
 * told; {@code squall} exits with {@link ExitCodes#THROTTLED}.
 */
final class ThrottledException extends IOException {
  private final int attempts;
  private final Duration elapsed;

  /**
   * @param attempts how many times the request was sent, the first included
   * @param elapsed from the first send to the last answer
   */
  ThrottledException(int attempts, Duration elapsed) {
    super(String.format(Locale.ROOT, "the account's Lambda concurrency is used up (HTTP 429 after %d attempts over %d s);"
        + " try again later or lower concurrency", attempts, Math.round(elapsed.toMillis() / 1000.0)));
    this.attempts = attempts;
    this.elapsed = elapsed;
  }

  /**
   * What the user is told when a request about an accepted query was throttled through every
   * re-send: the query exists and keeps running, only {@code requests} ("status", "result") could
   * not be read; {@code squall} then exits with {@link ExitCodes#QUERY_THROTTLED}.
   */
  String forAcceptedQuery(String queryId, String requests) {
    return String.format(Locale.ROOT, "query %s is still running; %s requests are throttled (HTTP 429 after %d attempts"
        + " over %d s); check later with `squall status %s`", queryId, requests, attempts, seconds(), queryId);
  }

  /**
   * What the user is told when {@code squall status|cancel <id>} was throttled through every
   * re-send: the message names the query, and says the throttling did not touch it.
   */
  String forQueryId(String queryId, String requests, String retry) {
    return String.format(Locale.ROOT, "query %s: %s requests are throttled (HTTP 429 after %d attempts over %d s); the"
        + " query is not affected; try `%s` again later", queryId, requests, attempts, seconds(), retry);
  }

  private long seconds() {
    return Math.round(elapsed.toMillis() / 1000.0);
  }

  int attempts() {
    return attempts;
  }

  Duration elapsed() {
    return elapsed;
  }
}
