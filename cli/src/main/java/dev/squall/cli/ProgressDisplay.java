package dev.squall.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;

/**
 * Draws {@link ProgressLine}s on one terminal line of standard error, each overwriting the last
 * with a carriage return, and erases the line before anything else is printed. A disabled display
 * (standard error is not a terminal, or {@code --quiet}) draws nothing. Safe to use from the
 * polling thread and a shutdown hook at once.
 */
final class ProgressDisplay {
  private final PrintStream err;
  private final int width;
  private boolean enabled;
  private int drawn;

  /** @param width terminal columns */
  ProgressDisplay(PrintStream err, boolean enabled, int width) {
    this.err = err;
    this.enabled = enabled;
    this.width = width;
  }

  /**
   * The display the options ask for: none with {@code quiet}; drawn with {@code force}; otherwise
   * drawn only when {@code err} is the process's standard error and that is a terminal.
   */
  static ProgressDisplay choose(PrintStream err, boolean quiet, boolean force) {
    boolean enabled = !quiet && (force || err == System.err && stderrIsTerminal());
    return new ProgressDisplay(err, enabled, terminalWidth());
  }

  /** Replaces the line with the job's progress. */
  synchronized void show(JobStatus status, Duration elapsed) {
    if (!enabled) {
      return;
    }
    String line = ProgressLine.render(status, elapsed, width);
    err.print("\r" + line + " ".repeat(Math.max(0, drawn - line.length())));
    err.flush();
    drawn = line.length();
  }

  /** Erases the line and draws nothing more. */
  synchronized void close() {
    if (enabled && drawn > 0) {
      err.print("\r" + " ".repeat(drawn) + "\r");
      err.flush();
    }
    enabled = false;
  }

  /** Columns from {@code $COLUMNS} (shells export it on request only), else 80. */
  static int terminalWidth() {
    try {
      int columns = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "80").trim());
      return columns >= 20 ? columns : 80;
    } catch (NumberFormatException e) {
      return 80;
    }
  }

  /**
   * Whether file descriptor 2 is a terminal. Java has no isatty; {@link System#console()} looks at
   * standard input and output only, which misses {@code squall query … > out.csv}. So a
   * {@code test -t 2} that inherits our standard error decides (POSIX); on Windows, and if no
   * shell can run, the console is the answer. {@code TERM=dumb} means no.
   */
  static boolean stderrIsTerminal() {
    if ("dumb".equals(System.getenv("TERM"))) {
      return false;
    }
    if (System.getProperty("os.name", "").startsWith("Windows")) {
      return System.console() != null;
    }
    try {
      Process p = new ProcessBuilder("sh", "-c", "test -t 2").redirectError(ProcessBuilder.Redirect.INHERIT).start();
      return p.waitFor() == 0;
    } catch (IOException e) {
      return System.console() != null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
