package dev.squall.cli;

import java.net.URI;
import java.time.Duration;

/**
 * Run in a child JVM by {@link CtrlCTest}: arms Ctrl-C's cancel ({@link CancelOnInterrupt}) for
 * query {@code args[1]} at endpoint {@code args[0]} exactly as {@code squall query} does while it
 * follows a job, prints {@code armed} on standard error and waits to be interrupted; exits 0 if
 * nothing comes within a minute.
 */
final class InterruptProbe {
  private InterruptProbe() {}

  public static void main(String[] args) throws Exception {
    ProgressDisplay display = new ProgressDisplay(System.err, false, 80);
    CancelOnInterrupt.install(new QueryClient(URI.create(args[0]), Duration.ofMinutes(10)), args[1], display, System.err);
    System.err.println("armed");
    Thread.sleep(60_000);
    System.exit(0);
  }
}
