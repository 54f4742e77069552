package dev.squall.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code squall status [--json] ID}: prints a query job's status ({@code GET /v1/queries/{id}}) as
 * text ({@link #describe}) or as the service's JSON. The exit code says the state, so that scripts
 * need not parse it ({@link ExitCodes#forState}): 0 SUCCEEDED, 1 FAILED or CANCELLED (and an unknown id or an
 * error answer), 3 still QUEUED, RUNNING or FINALIZING, 4 when its status requests were throttled
 * through every re-send (the message names the query).
 */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show the state and progress of a query.")
final class StatusCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Mixin
  EndpointOption endpoint = new EndpointOption();

  @Option(names = "--json", description = "Print the status JSON as the service answers it.")
  boolean json;

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
    QueryClient client = endpoint.client(Duration.ofSeconds(30));
    HttpResponse<byte[]> r;
    try {
      r = client.status(QueryClient.statusPath(queryId));
    } catch (ThrottledException e) {
      err.println(e.forQueryId(queryId, "status", "squall status " + queryId));
      return ExitCodes.THROTTLED;
    }
    if (r.statusCode() != 200) {
      AnswerPrinter.printError(r.statusCode(), r.body(), err);
      return ExitCodes.FAILED;
    }
    JobStatus status = JobStatus.parse(r.body());
    out.println(json ? JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(r.body())) : describe(status));
    return ExitCodes.forState(status.state());
  }

  /**
   * The status as lines of text: {@code query <id>: <STATE>[, cancel requested]}, the timestamps
   * known, {@code stage <n>: <done>/<total> tasks} per stage, then the error or the summary.
   */
  static String describe(JobStatus s) {
    StringBuilder b = new StringBuilder("query ").append(s.queryId()).append(": ").append(s.state());
    if (s.cancelRequested()) {
      b.append(", cancel requested");
    }
    if (s.createdAt() != null) {
      b.append("\ncreated:  ").append(s.createdAt());
    }
    if (s.updatedAt() != null) {
      b.append("\nupdated:  ").append(s.updatedAt());
    }
    if (s.finishedAt() != null) {
      b.append("\nfinished: ").append(s.finishedAt());
    }
    for (JobStatus.StageProgress stage : s.stages()) {
      b.append("\nstage ").append(stage.stageId()).append(": ").append(stage.tasksDone()).append('/')
          .append(stage.tasksTotal()).append(" tasks");
    }
    if (s.error() != null) {
      b.append("\nerror: ").append(s.error().oneLine());
    }
    if (s.summary() != null) {
      b.append("\nsummary: ").append(s.summary());
    }
    return b.toString();
  }
}
