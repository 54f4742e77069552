package dev.squall.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * One in-process run of {@code squall args...} as {@link SquallCli#main} runs it (without the
 * final System.exit), with standard output kept as bytes (Arrow output is binary) and standard
 * error as text.
 *
 * @param exitCode the command's exit code
 * @param out what the command wrote to standard output
 * @param err what the command and picocli wrote to standard error
 */
record CliRun(int exitCode, byte[] out, String err) {
  static CliRun of(String... args) {
    return withThrottleBaseDelay(QueryClient.THROTTLE_BASE_DELAY, args);
  }

  /**
   * As {@link #of}, with the client's first re-send after a 429 within {@code delay} (doubling per
   * re-send up to {@link QueryClient#THROTTLE_MAX_DELAY}), so that a throttled request gives up fast.
   */
  static CliRun withThrottleBaseDelay(java.time.Duration delay, String... args) {
    ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    StringWriter picocliErr = new StringWriter();
    PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    CommandLine cli = SquallCli.commandLine();
    cli.setErr(new PrintWriter(picocliErr, true));
    cli.setOut(new PrintWriter(new StringWriter(), true));
    QueryCommand query = cli.getSubcommands().get("query").getCommand();
    query.out = out;
    query.err = err;
    query.endpoint.throttleBaseDelay = delay;
    StatusCommand status = cli.getSubcommands().get("status").getCommand();
    status.out = out;
    status.err = err;
    status.endpoint.throttleBaseDelay = delay;
    ResultCommand result = cli.getSubcommands().get("result").getCommand();
    result.out = out;
    result.err = err;
    result.endpoint.throttleBaseDelay = delay;
    CancelCommand cancel = cli.getSubcommands().get("cancel").getCommand();
    cancel.out = out;
    cancel.err = err;
    cancel.endpoint.throttleBaseDelay = delay;
    int code = cli.execute(args);
    return new CliRun(code, outBytes.toByteArray(), errBytes.toString(StandardCharsets.UTF_8) + picocliErr);
  }

  /** Standard output as UTF-8 text. */
  String outText() {
    return new String(out, StandardCharsets.UTF_8);
  }
}
