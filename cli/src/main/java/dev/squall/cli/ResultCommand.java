package dev.squall.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code squall result [--format F] [--no-wait] [--quiet] ID}: waits for a query job to end
 * (progress bar as for {@code squall query}), then prints {@code GET /v1/queries/{id}/result}
 * exactly as {@code squall query} does. Ctrl-C only stops waiting: the query was submitted
 * elsewhere and keeps running. {@code --no-wait} fetches the result at once (exit 3 while the job
 * runs). Exit codes: see {@link ExitCodes}.
 */
@Command(name = "result", mixinStandardHelpOptions = true, description = "Print the answer of a submitted query.")
final class ResultCommand implements Callable<Integer> {
  @Mixin
  EndpointOption endpoint = new EndpointOption();

  @Option(names = "--format", defaultValue = "table", description = "table, csv, json or arrow (default: ${DEFAULT-VALUE}).")
  ResultFormat format;

  @Option(names = "--timeout", defaultValue = "600", description = "Seconds to wait for the query to end (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(names = "--no-wait", description = "Do not wait: fetch the result now (exit 3 if the query is still running).")
  boolean noWait;

  @Option(names = "--progress", description = "Draw the progress bar even when standard error is not a terminal.")
  boolean progress;

  @Option(names = {"-q", "--quiet", "--no-progress"}, description = "Print only the result and errors: no progress bar, query id, summary or cost line.")
  boolean quiet;

  @Mixin
  QueryIdArgument queryIdArgument = new QueryIdArgument();

  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public Integer call() throws Exception {
    if (!queryIdArgument.isValid(err)) {
      return ExitCodes.USAGE;
    }
    if (timeoutSeconds <= 0) {
      err.println("--timeout must be a positive number of seconds, got " + timeoutSeconds);
      return ExitCodes.USAGE;
    }
    QueryClient client = endpoint.client(Duration.ofSeconds(timeoutSeconds));
    String id = queryIdArgument.queryId;
    ProgressDisplay display = noWait ? new ProgressDisplay(err, false, 80) : ProgressDisplay.choose(err, quiet, progress);
    JobFollower follower = new JobFollower(client.withTimeout(QueryCommand.POLL_REQUEST_TIMEOUT, Duration.ofSeconds(10)),
        client, display, () -> false, out, err, quiet);
    if (noWait) {
      return follower.printResult(QueryClient.resultPath(id), format);
    }
    Instant now = Instant.now();
    return follower.follow(new Submission(id, JobState.QUEUED, QueryClient.statusPath(id), QueryClient.resultPath(id)),
        format, now, now.plusSeconds(timeoutSeconds));
  }
}
