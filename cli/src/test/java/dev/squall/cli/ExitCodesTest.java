package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Exit codes and messages of the commands where no query runs: bad command-line values, an
 * endpoint that is gone, and Ctrl-C's cancel when the endpoint is gone or hangs (it must return,
 * so the JVM can exit). Commands against a running stack are in {@link AsyncQueryEndToEndTest}.
 */
class ExitCodesTest {
  private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
  private final StringBuilder errText = new StringBuilder();

  /** Runs {@code squall args...}, keeping standard error for {@link #err()}. */
  private int run(String... args) {
    CliRun r = CliRun.of(args);
    errText.append(r.err());
    return r.exitCode();
  }

  private String err() {
    return errBytes.toString(StandardCharsets.UTF_8) + errText;
  }

  /** An endpoint on a port where nothing listens (bound, then released). */
  private static URI goneEndpoint() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return URI.create("http://127.0.0.1:" + s.getLocalPort());
    }
  }

  @Test
  void jobStatesMapToExitCodes() {
    assertThat(ExitCodes.forState(JobState.SUCCEEDED)).isEqualTo(0);
    assertThat(ExitCodes.forState(JobState.FAILED)).isEqualTo(1);
    assertThat(ExitCodes.forState(JobState.CANCELLED)).isEqualTo(1);
    assertThat(ExitCodes.forState(JobState.RUNNING)).isEqualTo(3);
    assertThat(ExitCodes.forState(JobState.QUEUED)).isEqualTo(3);
    assertThat(ExitCodes.forState(JobState.FINALIZING)).isEqualTo(3);
    assertThat(ExitCodes.INTERRUPTED).isEqualTo(128 + 2);
  }

  @Test
  void pollingBacksOffFromAQuarterSecondToOneSecond() {
    List<Long> waits = new ArrayList<>();
    Duration d = PollSchedule.FIRST;
    for (int i = 0; i < 6; i++) {
      waits.add(d.toMillis());
      d = PollSchedule.next(d);
    }
    assertThat(waits).containsExactly(250L, 375L, 562L, 843L, 1000L, 1000L);
  }

  @Test
  void malformedQueryIdIsAUsageError() {
    assertThat(run("status", "../../etc")).isEqualTo(ExitCodes.USAGE);
    assertThat(err()).contains("\"../../etc\" is not a query id");
    assertThat(run("result", "a b")).isEqualTo(ExitCodes.USAGE);
    assertThat(run("cancel", "")).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void nonPositiveTimeoutIsAUsageError() {
    assertThat(run("query", "--timeout", "0", "select 1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err()).contains("--timeout must be a positive number of seconds, got 0");
    assertThat(run("cancel", "--wait", "--timeout", "-1", "abc")).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void queryPropertyWithoutAValueIsAUsageErrorNamingTheForm() {
    assertThat(run("query", "-P", "default_schema", "select 1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err()).contains("-P/--property takes NAME=VALUE (e.g. -P default_schema=tpch), got 'default_schema'")
        .doesNotContain("option option");
    assertThat(run("query", "--property", "=tpch", "select 1")).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void queryPropertyGivenTwiceIsAUsageErrorNamingBothValues() {
    assertThat(run("query", "-P", "default_schema=tpch", "-P", "default_schema=foo", "select 1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err()).contains("-P/--property default_schema is given twice ('tpch' and 'foo')");
  }

  @Test
  void endpointThatIsNotAnHttpUrlIsAUsageErrorNamingIt() {
    for (String bad : List.of("notaurl", "ftp://host/x", "http://")) {
      assertThat(run("query", "--endpoint", bad, "select 1")).as(bad).isEqualTo(ExitCodes.USAGE);
      assertThat(err()).contains("'" + bad + "' is not an http:// or https:// URL");
    }
    assertThat(run("status", "--endpoint", "notaurl", "abc")).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void syncAndDetachTogetherAreAUsageError() {
    assertThat(run("query", "--sync", "--detach", "select 1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err()).contains("--sync and --detach exclude each other");
  }

  @Test
  void unknownOptionIsAUsageError() {
    assertThat(run("query", "--no-such-flag", "select 1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err()).contains("--no-such-flag");
  }

  @Test
  void goneEndpointIsOneLineNamingTheProblem() throws Exception {
    String endpoint = goneEndpoint().toString();
    assertThat(run("status", "--endpoint", endpoint, "abc")).isEqualTo(ExitCodes.FAILED);
    assertThat(err()).contains("squall status: cannot reach the Squall endpoint");
    assertThat(run("query", "--endpoint", endpoint, "select 1")).isEqualTo(ExitCodes.FAILED);
    assertThat(err()).contains("squall query: cannot reach the Squall endpoint");
  }

  @Test
  void interruptCancelReturnsWhenTheEndpointIsGone() throws Exception {
    QueryClient client = new QueryClient(goneEndpoint(), Duration.ofSeconds(30));
    PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    CancelOnInterrupt cancel = new CancelOnInterrupt(client, "q-gone", new ProgressDisplay(err, false, 80), err);
    int code = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> cancel.cancelAndWait(CancelOnInterrupt.BUDGET));
    assertThat(code).isEqualTo(ExitCodes.INTERRUPTED);
    assertThat(cancel.triggered()).isTrue();
    assertThat(err()).contains("query q-gone: could not reach the endpoint to cancel it").contains("may still be running");
    // A second Ctrl-C does nothing more.
    assertThat(cancel.cancelAndWait(CancelOnInterrupt.BUDGET)).isEqualTo(ExitCodes.INTERRUPTED);
    assertThat(err().lines().filter(l -> l.contains("q-gone"))).hasSize(1);
  }

  @Test
  void interruptCancelReturnsWhenTheEndpointNeverAnswers() throws Exception {
    // A listener that accepts connections and never answers: a hung endpoint.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> held = new ArrayList<>();
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            held.add(silent.accept());
          }
        } catch (Exception closed) {
          // The test is over.
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      QueryClient client = new QueryClient(URI.create("http://127.0.0.1:" + silent.getLocalPort()), Duration.ofMinutes(5));
      PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
      CancelOnInterrupt cancel = new CancelOnInterrupt(client, "q-hung", new ProgressDisplay(err, false, 80), err);
      int code = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> cancel.cancelAndWait(CancelOnInterrupt.BUDGET));
      assertThat(code).isEqualTo(ExitCodes.INTERRUPTED);
      assertThat(err()).contains("query q-hung: could not reach the endpoint to cancel it");
    }
  }

  @Test
  void cancelOutcomeLineSaysWhatHappened() {
    JobStatus cancelled = new JobStatus("q1", JobState.CANCELLED, true, null, null, null, List.of(), null, null);
    JobStatus succeeded = new JobStatus("q1", JobState.SUCCEEDED, true, null, null, null, List.of(), null, null);
    JobStatus running = new JobStatus("q1", JobState.RUNNING, true, null, null, null, List.of(), null, null);
    assertThat(CancelOnInterrupt.outcome("q1", cancelled, Duration.ofSeconds(10))).isEqualTo("query q1 cancelled");
    assertThat(CancelOnInterrupt.outcome("q1", succeeded, Duration.ofSeconds(10)))
        .isEqualTo("query q1 was not cancelled: it had already ended as SUCCEEDED");
    assertThat(CancelOnInterrupt.outcome("q1", running, Duration.ofSeconds(10)))
        .isEqualTo("query q1: cancel requested, but it was still RUNNING after 10 s (see `squall status q1`)");
  }

  @Test
  void endpointPathIsKeptInFrontOfApiPaths() {
    assertThat(new QueryClient(URI.create("https://api.example.com/prod/"), Duration.ofSeconds(1)).resolve("/v1/queries/x"))
        .isEqualTo(URI.create("https://api.example.com/prod/v1/queries/x"));
    assertThat(new QueryClient(URI.create("http://127.0.0.1:8080"), Duration.ofSeconds(1)).resolve("/v1/queries"))
        .isEqualTo(URI.create("http://127.0.0.1:8080/v1/queries"));
  }

  @Test
  void statusIsDescribedLineByLine() {
    JobStatus s = new JobStatus("q9", JobState.FAILED, false, java.time.Instant.parse("2026-11-29T20:00:00Z"), null,
        java.time.Instant.parse("2026-11-29T20:00:02Z"), List.of(new JobStatus.StageProgress(0, 3, 4)),
        new JobStatus.JobError("USER_ERROR", "division by zero", 0, 0), null);
    assertThat(StatusCommand.describe(s)).isEqualTo("""
        query q9: FAILED
        created:  2026-11-29T20:00:00Z
        finished: 2026-11-29T20:00:02Z
        stage 0: 3/4 tasks
        error: USER_ERROR: division by zero""");
  }
}
