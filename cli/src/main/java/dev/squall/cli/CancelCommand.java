package dev.squall.cli;

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
 * Exit 0 when the cancel was recorded (and, with --wait, the job is CANCELLED); 1 when the job
 * had already finished (409), is unknown, or ended otherwise; 3 when --wait ran out.
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
    QueryClient client = endpoint.client(Duration.ofSeconds(30));
    HttpResponse<byte[]> r = client.cancel(queryId);
    if (r.statusCode() == 409) {
      err.println("query " + queryId + " had already finished; nothing to cancel");
      return ExitCodes.FAILED;
    }
    if (r.statusCode() != 202 && r.statusCode() != 200) {
      AnswerPrinter.printError(r.statusCode(), r.body(), err);
      return ExitCodes.FAILED;
    }
    JobStatus status = JobStatus.parse(r.body());
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
}
