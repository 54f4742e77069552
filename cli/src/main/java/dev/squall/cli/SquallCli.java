package dev.squall.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code squall} command line: {@code squall local} starts the whole stack on this machine,
 * {@code squall query} sends SQL to a Squall endpoint and prints the answer, {@code squall status},
 * {@code squall result} and {@code squall cancel} act on a submitted query by its id.
 */
@Command(
    name = "squall",
    mixinStandardHelpOptions = true,
    version = "squall 0.1.0",
    description = "Serverless SQL on AWS Lambda, S3 and Iceberg.",
    subcommands = {LocalCommand.class, QueryCommand.class, StatusCommand.class, ResultCommand.class, CancelCommand.class})
public final class SquallCli implements Runnable {
  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /**
   * Failures a user can act on (server unreachable, port taken, timeouts, bad values) are one line
   * on standard error naming the problem, not a stack trace; {@code SQUALL_DEBUG=1} shows the trace.
   * Exit 1, or {@link ExitCodes#THROTTLED} for a request throttled through every re-send.
   */
  private static int report(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    if (System.getenv("SQUALL_DEBUG") != null) {
      e.printStackTrace();
    }
    if (e instanceof ThrottledException) {
      cmd.getErr().println("squall " + cmd.getCommandName() + ": " + e.getMessage());
      return ExitCodes.THROTTLED;
    }
    String what = e instanceof java.net.ConnectException
        ? "cannot reach the Squall endpoint (is `squall local` running, and is --endpoint right?)"
        : e instanceof java.net.BindException
        ? "the port is taken (another `squall local`?); choose another with --port"
        : e instanceof java.net.http.HttpTimeoutException ? "no answer before --timeout" : null;
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    cmd.getErr().println("squall " + cmd.getCommandName() + ": " + (what == null ? message : what + " (" + message + ")"));
    return 1;
  }

  /** The command line as {@link #main} runs it: case-insensitive enum values, one-line errors. */
  static CommandLine commandLine() {
    return new CommandLine(new SquallCli())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExecutionExceptionHandler(SquallCli::report);
  }

  public static void main(String[] args) {
    int code = commandLine().execute(args);
    if (code != 0 || !LocalCommand.isServing()) {
      System.exit(code);
    }
  }
}
