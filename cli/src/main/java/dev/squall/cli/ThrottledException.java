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

  int attempts() {
    return attempts;
  }

  Duration elapsed() {
    return elapsed;
  }
}
