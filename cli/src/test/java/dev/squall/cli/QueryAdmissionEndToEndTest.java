package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.cli.local.ResultRows;
import dev.squall.cli.local.ScaleEmulation;
import dev.squall.cli.local.TestStack;
import dev.squall.local.lambda.ScaleModel;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A local stack whose coordinator has reserved concurrency 2 (one running query, one request
 * beside it) and whose account has two unreserved invocations for tasks, with the first query's
 * tasks held at a gate: while it runs, another submission is refused at once with 429 (the CLI's
 * throttling message, exit 4; no job is created), and the running query's status still answers.
 * Once the gate opens the running query answers what DuckDB answers, and its ended job gives its
 * place back, so the next submission is admitted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryAdmissionEndToEndTest {
  private static final String Q = "select o_orderstatus, count(*) as n, sum(o_totalprice) as p "
      + "from tpch.orders group by o_orderstatus order by o_orderstatus";

  private final CountDownLatch gate = new CountDownLatch(1);
  private TestStack stack;

  @BeforeAll
  void start() throws Exception {
    ScaleEmulation twoAtOnce = ScaleEmulation.OFF.withLambda(ScaleModel.OFF, 2);
    stack = TestStack.startWith(0.01, 20_000, o -> o.withScale(twoAtOnce).withCoordinatorConcurrency(2)
        .withJobTimeout(Duration.ofSeconds(90))
        .withTaskHandlerWrapper(h -> (payload, ctx) -> {
          if (!gate.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never opened the gate");
          }
          return h.handle(payload, ctx);
        }));
  }

  @AfterAll
  void stop() throws Exception {
    gate.countDown();
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void aSubmissionBeyondTheRunningQueriesIsRefusedWhileStatusStillAnswers() throws Exception {
    String endpoint = "--endpoint=" + stack.deployment.gatewayEndpoint();
    CliRun first = CliRun.of("query", endpoint, "--detach", Q);
    assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCodes.OK);
    String id = first.outText().strip();

    CliRun refused = CliRun.withThrottleBaseDelay(Duration.ofMillis(2), "query", endpoint, "select 1");
    assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCodes.THROTTLED);
    assertThat(refused.err()).startsWith("squall query: the account's Lambda concurrency is used up (HTTP 429 after");
    assertThat(stack.deployment.jobStore().unfinished(10)).extracting(j -> j.jobId()).containsExactly(id);

    // The running query holds one of the coordinator's two invocations; a status request gets the other.
    CliRun status = CliRun.withThrottleBaseDelay(Duration.ofMillis(2), "status", endpoint, id);
    assertThat(status.exitCode()).as(status.err()).isEqualTo(ExitCodes.NOT_FINISHED);
    assertThat(status.outText()).startsWith("query " + id + ": ");

    gate.countDown();
    CliRun result = CliRun.of("result", endpoint, "--format", "arrow", "--timeout", "60", id);
    assertThat(result.exitCode()).as(result.err()).isEqualTo(ExitCodes.OK);
    try (Statement st = stack.duckDb().createStatement(); ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      assertThat(ResultRows.difference(ResultRows.fromArrow(result.out()), ResultRows.fromJdbc(rs), true)).isNull();
    }

    CliRun next = CliRun.of("query", endpoint, "--format", "csv", "select 1 as one");
    assertThat(next.exitCode()).as(next.err()).isEqualTo(ExitCodes.OK);
  }
}
