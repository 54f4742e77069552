package dev.squall.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code squall cancel [--wait] ID}: {@code DELETE /v1/queries/{id}}. Prints
 * {@code cancel requested for query <id> (<STATE>)}; with {@code --wait}, polls until the job is
 * terminal (at most {@code --timeout}) and prints {@code query <id> cancelled} or how it ended.
 * A query that had already finished, in any final state (SUCCEEDED, FAILED, CANCELLED), is answered
 * {@code query <id> already finished: <STATE>; nothing to cancel} on standard error.
 * Exit 0 when the cancel was recorded (and, with --wait, the job is CANCELLED); 1 when the job
 * had already finished, is unknown, or ended otherwise; 3 when --wait ran out; 4 when its requests
 * were throttled through every re-send (the message names the query).
 */
@Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a running query.")
final class CancelCommand implements Callable<Integer> {
  @Mixin
  EndpointOption endpoint = new EndpointOption();

  @Option(names = "--wait", description = "Wait until the query has stopped.")
  boolean await;

  @Option(names = "--timeout", defaultValue = "60", description = "Seconds --wait waits (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Mixin
  QueryIdArgument id = new QueryIdArgument();

  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public Integer call() throws Exception {
    if (!id.isValid(err)) {
      return ExitCodes.USAGE;
    }
    String queryId = id.queryId;
    if (timeoutSeconds <= 0) {
      err.println("--timeout must be a positive number of seconds, got " + timeoutSeconds);
      return ExitCodes.USAGE;
    }
    try {
      return cancel(endpoint.client(Duration.ofSeconds(30)), queryId);
    } catch (ThrottledException e) {
      err.println(e.forQueryId(queryId, "cancel and status", "squall cancel " + queryId));
      return ExitCodes.THROTTLED;
    }
  }

  private int cancel(QueryClient client, String queryId) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = client.cancel(queryId);
    if (r.statusCode() == 409) {
      return alreadyFinished(queryId, finalState(client, queryId));
    }
    if (r.statusCode() != 202 && r.statusCode() != 200) {
      AnswerPrinter.printError(r.statusCode(), r.body(), err);
      return ExitCodes.FAILED;
    }
    JobStatus status = JobStatus.parse(r.body());
    if (status.state().isTerminal()) {
      // A cancel request leaves the job running until its coordinator stops it: a final state here
      // was reached before this request (the service answers a cancelled query's cancel with 202).
      return alreadyFinished(queryId, status.state().name());
    }
    out.println("cancel requested for query " + queryId + " (" + status.state() + ")");
    if (!await) {
      return ExitCodes.OK;
    }
    Instant now = Instant.now();
    JobFollower follower = new JobFollower(client, client, new ProgressDisplay(err, false, 80), () -> false, out, err, false);
    try {
      JobStatus last = follower.await(QueryClient.statusPath(queryId), now, now.plusSeconds(timeoutSeconds));
      out.println(CancelOnInterrupt.outcome(queryId, last, Duration.ofSeconds(timeoutSeconds)));
      return last.state() == JobState.CANCELLED ? ExitCodes.OK : ExitCodes.forState(last.state());
    } catch (JobFollower.StatusRefused e) {
      return ExitCodes.FAILED;
    }
  }

  /** Says the query had finished before the cancel, the same way whatever its final state. */
  private int alreadyFinished(String queryId, String state) {
    err.println("query " + queryId + " already finished" + (state == null ? "" : ": " + state) + "; nothing to cancel");
    return ExitCodes.FAILED;
  }

  /**
   * The state of a query the service refused to cancel as finished (409), from its status; null when
   * the status cannot be read.
   */
  private static String finalState(QueryClient client, String queryId) throws IOException, InterruptedException {
    HttpResponse<byte[]> s = client.status(QueryClient.statusPath(queryId));
    return s.statusCode() == 200 ? JobStatus.parse(s.body()).state().name() : null;
  }
}
