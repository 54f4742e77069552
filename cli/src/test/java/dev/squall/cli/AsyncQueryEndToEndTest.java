package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.cli.local.ResultRows;
import dev.squall.cli.local.TestStack;
import dev.squall.local.lambda.LambdaHandler;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code squall query}, {@code status}, {@code result} and {@code cancel} against the real local
 * stack (gateway, coordinator and task functions, S3Proxy, Iceberg) with TPC-H SF 0.01, answers
 * checked against DuckDB over the same data files. Ctrl-C is a real SIGINT to a child JVM running
 * {@code squall query}. Tasks can be slowed down (a wrapper around the task function that sleeps
 * before each task) so that a query is still running when it is cancelled.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AsyncQueryEndToEndTest {
  /** Two stages, one task each: the urgent orders, broadcast into the lineitem scan that aggregates. */
  private static final String Q = "select l_returnflag, l_linestatus, count(*) as n, sum(l_extendedprice) as s "
      + "from tpch.lineitem where l_orderkey in (select o_orderkey from tpch.orders where o_orderpriority = '1-URGENT') "
      + "group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus";
  private static final Pattern CANCELLED_LINE = Pattern.compile("query (\\S+) cancelled");

  /** Milliseconds each task sleeps before it runs; 0 = full speed. */
  private final AtomicInteger taskDelayMillis = new AtomicInteger();
  private final AtomicInteger tasksStarted = new AtomicInteger();
  private TestStack stack;
  private Connection duck;
  private String endpoint;

  private LambdaHandler slowable(LambdaHandler real) {
    return (payload, ctx) -> {
      tasksStarted.incrementAndGet();
      int delay = taskDelayMillis.get();
      if (delay > 0) {
        Thread.sleep(delay);
      }
      return real.handle(payload, ctx);
    };
  }

  @BeforeAll
  void start() throws Exception {
    // Small data files, so that lineitem's scan stage has several tasks.
    stack = TestStack.start(0.01, 10_000, this::slowable);
    duck = stack.duckDb();
    endpoint = stack.deployment.gatewayEndpoint().toString();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  /** {@code squall <command> --endpoint=<the stack's gateway> <rest...>}, in process. */
  private CliRun squall(String command, String... rest) {
    List<String> args = new ArrayList<>();
    args.add(command);
    args.add("--endpoint=" + endpoint);
    args.addAll(List.of(rest));
    return CliRun.of(args.toArray(String[]::new));
  }

  private List<List<Object>> duckDbAnswer(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql.replace("tpch.", ""))) {
      return ResultRows.fromJdbc(rs);
    }
  }

  private JobStatus status(String queryId) throws Exception {
    var r = new QueryClient(URI.create(endpoint), Duration.ofSeconds(30)).status(QueryClient.statusPath(queryId));
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return JobStatus.parse(r.body());
  }

  private JobStatus awaitState(String queryId, Duration within, java.util.function.Predicate<JobStatus> done) throws Exception {
    Instant deadline = Instant.now().plus(within);
    JobStatus s = status(queryId);
    while (!done.test(s) && Instant.now().isBefore(deadline)) {
      Thread.sleep(100);
      s = status(queryId);
    }
    return s;
  }

  @Test
  void analyzePrintsTheAnnotatedPlanAndTheCostLine() throws Exception {
    CliRun analyzed = squall("query", "--analyze", Q);
    assertThat(analyzed.exitCode()).as(analyzed.err()).isEqualTo(0);
    // The plan as plain text: the root stage wrote as many rows as the query answers.
    assertThat(analyzed.outText()).containsPattern("(?m)^Stage \\d+ \\[root\\]: ")
        .containsPattern("(?m)^  actual: .* rows in=\\d+ out=" + duckDbAnswer(Q).size() + " ")
        .contains("[rows in=").containsPattern("(?m)^Cost: \\$");
    // Every answer is followed by its cost line.
    assertThat(analyzed.err()).containsPattern("cost: \\$0\\.\\d{6} \\(aws-us-east-1-[0-9-]+\\): [0-9.]+ GB-s tasks");
  }

  @Test
  void queryPrintsWhatDuckDbAnswers() throws Exception {
    CliRun arrow = squall("query", "--format", "arrow", Q);
    assertThat(arrow.exitCode()).as(arrow.err()).isEqualTo(0);
    assertThat(ResultRows.difference(ResultRows.fromArrow(arrow.out()), duckDbAnswer(Q), true)).isNull();
    assertThat(arrow.err()).contains("query id: ").contains("summary: ");

    CliRun async = squall("query", "--format", "csv", Q);
    CliRun sync = squall("query", "--sync", "--format", "csv", Q);
    assertThat(async.exitCode()).isEqualTo(0);
    assertThat(sync.exitCode()).isEqualTo(0);
    assertThat(async.outText()).isEqualTo(sync.outText()).startsWith("l_returnflag,l_linestatus,n,s\n");
    assertThat(async.outText().lines()).hasSize(1 + duckDbAnswer(Q).size());
  }

  @Test
  void quietQueryPrintsOnlyTheResult() throws Exception {
    for (String mode : List.of("--timeout=600", "--sync")) {
      CliRun quiet = squall("query", "-q", mode, "--format", "arrow", Q);
      assertThat(quiet.exitCode()).as(quiet.err()).isEqualTo(0);
      assertThat(ResultRows.difference(ResultRows.fromArrow(quiet.out()), duckDbAnswer(Q), true)).isNull();
      assertThat(quiet.err()).as(mode).isEmpty();
    }
    CliRun csv = squall("query", "--quiet", "--format", "csv", Q);
    assertThat(csv.err()).isEmpty();
    assertThat(csv.outText().lines()).hasSize(1 + duckDbAnswer(Q).size());
    // Errors are still printed.
    CliRun failed = squall("query", "-q", "select n_nam from tpch.nation");
    assertThat(failed.exitCode()).isEqualTo(ExitCodes.FAILED);
    assertThat(failed.err()).startsWith("error 400: ");
  }

  @Test
  void statusOfAFailedQueryExitsNonZero() throws Exception {
    // Fails while running (a bad cast in a task), not when submitted.
    CliRun submitted = squall("query", "--detach", "select cast(n_name as integer) from tpch.nation");
    assertThat(submitted.exitCode()).as(submitted.err()).isEqualTo(0);
    String id = submitted.outText().strip();
    awaitState(id, Duration.ofSeconds(30), s -> s.state().isTerminal());
    CliRun status = squall("status", id);
    assertThat(status.outText()).startsWith("query " + id + ": FAILED");
    assertThat(status.exitCode()).isEqualTo(ExitCodes.FAILED);
    assertThat(squall("status", "--json", id).exitCode()).isEqualTo(ExitCodes.FAILED);
  }

  @Test
  void sqlStartingWithACommentIsReadFromAFile() throws Exception {
    Path file = java.nio.file.Files.createTempFile("squall-query", ".sql");
    try {
      java.nio.file.Files.writeString(file, "-- the query of this test, as TPC-H query files start\n" + Q + ";\n");
      CliRun r = squall("query", "--format", "arrow", "--file", file.toString());
      assertThat(r.exitCode()).as(r.err()).isEqualTo(0);
      assertThat(ResultRows.difference(ResultRows.fromArrow(r.out()), duckDbAnswer(Q), true)).isNull();
    } finally {
      java.nio.file.Files.delete(file);
    }
    CliRun neither = squall("query");
    assertThat(neither.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(neither.err()).contains("--file");
  }

  @Test
  void failedQueryPrintsOneErrorLineWithPosition() {
    CliRun r = squall("query", "select n_nam from tpch.nation");
    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.out()).isEmpty();
    List<String> lines = r.err().lines().toList();
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).startsWith("error 400: line 1:8: ").containsIgnoringCase("n_nam").doesNotContain("{");
  }

  @Test
  void progressBarShowsTasksUntilTheJobSucceeds() throws Exception {
    taskDelayMillis.set(300);
    try {
      CliRun r = squall("query", "--progress", "--format", "arrow", Q);
      assertThat(r.exitCode()).as(r.err()).isEqualTo(0);
      assertThat(ResultRows.difference(ResultRows.fromArrow(r.out()), duckDbAnswer(Q), true)).isNull();
      // Redrawn lines, the last before the result being the finished job with every task done.
      String[] drawn = r.err().split("\r");
      assertThat(drawn.length).isGreaterThan(2);
      assertThat(r.err()).containsPattern("(QUEUED|RUNNING) \\[[#.]{20}] \\d+/\\d+ tasks");
      Matcher last = Pattern.compile("SUCCEEDED \\[#{20}] (\\d+)/(\\d+) tasks").matcher(r.err());
      assertThat(last.find()).as(r.err()).isTrue();
      assertThat(last.group(1)).isEqualTo(last.group(2));
      assertThat(Long.parseLong(last.group(2))).isGreaterThan(1);
    } finally {
      taskDelayMillis.set(0);
    }
  }

  @Test
  void detachedQueryIsPolledToSucceededAndItsResultEqualsTheSynchronousAnswer() throws Exception {
    CliRun submitted = squall("query", "--detach", Q);
    assertThat(submitted.exitCode()).as(submitted.err()).isEqualTo(0);
    String id = submitted.outText().strip();
    assertThat(id).matches("[A-Za-z0-9._-]+");

    CliRun result = squall("result", "--format", "csv", id);
    assertThat(result.exitCode()).as(result.err()).isEqualTo(0);
    CliRun sync = squall("query", "--sync", "--format", "csv", Q);
    assertThat(result.outText()).isEqualTo(sync.outText());

    CliRun json = squall("result", "--format", "json", "--no-wait", id);
    assertThat(json.exitCode()).isEqualTo(0);
    assertThat(json.outText()).contains("\"queryId\" : \"" + id + "\"");

    CliRun status = squall("status", id);
    assertThat(status.exitCode()).isEqualTo(0);
    assertThat(status.outText()).startsWith("query " + id + ": SUCCEEDED").contains("summary: ");
    JobStatus parsed = JobStatus.parse(squall("status", "--json", id).out());
    assertThat(parsed.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(parsed.tasksDone()).isEqualTo(parsed.tasksTotal()).isPositive();
    assertThat(parsed.summary().path("tasks").asLong()).isEqualTo(parsed.tasksTotal());

    CliRun cancelFinished = squall("cancel", id);
    assertThat(cancelFinished.exitCode()).isEqualTo(ExitCodes.FAILED);
    assertThat(cancelFinished.err()).isEqualTo("query " + id + " already finished: SUCCEEDED; nothing to cancel\n");
    assertThat(cancelFinished.outText()).isEmpty();
  }

  /** A result over the inline cap is served by URL; --format json follows it instead of printing "rows": []. */
  @Test
  void jsonFormatFollowsThePresignedResultUrl() throws Exception {
    String q = "select * from tpch.lineitem";
    CliRun r = squall("query", "--sync", "--format", "json", q);
    assertThat(r.exitCode()).as(r.err()).isEqualTo(0);
    com.fasterxml.jackson.databind.JsonNode answer = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    assertThat(answer.has("resultUrls")).isFalse();
    assertThat(answer.get("columns")).hasSize(16);
    long sum = 0;
    for (com.fasterxml.jackson.databind.JsonNode row : answer.get("rows")) {
      sum += row.get(0).asLong();
    }
    List<List<Object>> expected = duckDbAnswer("select count(*), sum(l_orderkey) from tpch.lineitem");
    assertThat((long) answer.get("rows").size()).isEqualTo(((Number) expected.get(0).get(0)).longValue());
    assertThat(sum).isEqualTo(((Number) expected.get(0).get(1)).longValue());
  }

  @Test
  void ddlAndMetadataStatementsRunAsJobs() {
    CliRun create = squall("query", "--progress", "create schema cli_s");
    assertThat(create.exitCode()).as(create.err()).isEqualTo(0);
    assertThat(create.outText()).contains("CREATE SCHEMA cli_s");
    CliRun show = squall("query", "--format", "csv", "show schemas like 'cli%'");
    assertThat(show.outText()).isEqualTo("Schema\ncli_s\n");
    CliRun drop = squall("query", "drop schema cli_s");
    assertThat(drop.exitCode()).as(drop.err()).isEqualTo(0);
    CliRun refused = squall("query", "alter table tpch.nation set properties format_version = 2");
    assertThat(refused.exitCode()).isEqualTo(ExitCodes.FAILED);
    assertThat(refused.err()).startsWith("error 400: line 1:25: Unsupported SQL");
  }

  @Test
  void unknownQueryIdIsNotFound() {
    CliRun r = squall("status", "00000000-0000-0000-0000-000000000000");
    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err()).startsWith("error 404: ");
  }

  @Test
  void cancelCommandStopsARunningQuery() throws Exception {
    taskDelayMillis.set(2_000);
    try {
      CliRun submitted = squall("query", "--detach", Q);
      String id = submitted.outText().strip();
      awaitState(id, Duration.ofSeconds(30), s -> s.state() == JobState.RUNNING);
      CliRun cancel = squall("cancel", "--wait", "--timeout", "30", id);
      assertThat(cancel.exitCode()).as(cancel.err()).isEqualTo(0);
      assertThat(cancel.outText()).contains("cancel requested for query " + id).contains("query " + id + " cancelled");
      assertThat(status(id).state()).isEqualTo(JobState.CANCELLED);
      CliRun statusOfCancelled = squall("status", id);
      assertThat(statusOfCancelled.outText()).startsWith("query " + id + ": CANCELLED");
      assertThat(statusOfCancelled.exitCode()).isEqualTo(ExitCodes.FAILED);
      CliRun result = squall("result", id);
      assertThat(result.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(result.err()).startsWith("error ");
      // A second cancel finds the query finished, as for a query that succeeded.
      CliRun again = squall("cancel", id);
      assertThat(again.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(again.err()).isEqualTo("query " + id + " already finished: CANCELLED; nothing to cancel\n");
      assertThat(again.outText()).isEmpty();
    } finally {
      taskDelayMillis.set(0);
    }
  }

  @Test
  void ctrlCCancelsTheQueryAndExitsWith130() throws Exception {
    taskDelayMillis.set(2_000);
    Process child = null;
    try {
      // A real `squall query` in its own JVM, interrupted by a real SIGINT as a terminal's Ctrl-C sends it.
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      child = new ProcessBuilder(java, "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "-cp", System.getProperty("java.class.path"), SquallCli.class.getName(),
          "query", "--endpoint", endpoint, "--progress", Q).start();
      child.getOutputStream().close();
      StringBuffer err = new StringBuffer();
      Thread reader = CtrlCTest.drain(child.getErrorStream(), err);
      Instant deadline = Instant.now().plusSeconds(60);
      while (!err.toString().contains("RUNNING") && child.isAlive() && Instant.now().isBefore(deadline)) {
        Thread.sleep(50);
      }
      assertThat(err.toString()).as("progress before the interrupt").contains("RUNNING");
      new ProcessBuilder("kill", "-INT", Long.toString(child.pid())).inheritIO().start().waitFor();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("squall query exits after Ctrl-C; stderr: %s", err).isTrue();
      reader.join(5_000);
      assertThat(child.exitValue()).as(err.toString()).isEqualTo(ExitCodes.INTERRUPTED);
      Matcher m = CANCELLED_LINE.matcher(err);
      assertThat(m.find()).as(err.toString()).isTrue();
      String id = m.group(1);
      JobStatus s = status(id);
      assertThat(s.state()).isEqualTo(JobState.CANCELLED);
      assertThat(s.cancelRequested()).isTrue();
      assertThat(s.tasksDone()).isLessThan(s.tasksTotal());
      // Once CANCELLED, no task starts any more.
      int startedWhenCancelled = tasksStarted.get();
      Thread.sleep(3 * taskDelayMillis.get() / 2);
      assertThat(tasksStarted.get()).isEqualTo(startedWhenCancelled);
      assertThat(awaitShuffleEmpty(Duration.ofSeconds(10))).isEmpty();
    } finally {
      taskDelayMillis.set(0);
      if (child != null && child.isAlive()) {
        child.destroyForcibly();
      }
    }
  }

  private List<String> awaitShuffleEmpty(Duration within) throws InterruptedException {
    Instant deadline = Instant.now().plus(within);
    List<String> left = stack.shuffleObjects();
    while (!left.isEmpty() && Instant.now().isBefore(deadline)) {
      Thread.sleep(200);
      left = stack.shuffleObjects();
    }
    return left;
  }
}
