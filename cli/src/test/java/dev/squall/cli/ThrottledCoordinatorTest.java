package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.cli.local.LocalDeployment;
import dev.squall.local.gateway.Gateway;
import dev.squall.local.lambda.FunctionDefinition;
import dev.squall.local.lambda.LambdaEmulator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CLI against a coordinator that is throttled on every call: the Lambda emulator with the
 * coordinator function at reserved concurrency 0 (which throttles every invocation, as on AWS)
 * behind the local API gateway, which answers each throttled call 429 {@code {"message":"Too Many
 * Requests"}}. After its re-sends the CLI says in its own words that the account's concurrency is
 * used up, how many times and over how long it tried, and exits with {@link ExitCodes#THROTTLED};
 * the gateway's JSON body is not shown. Once a query was accepted, a throttled status poll names
 * the query as still running and exits with {@link ExitCodes#QUERY_THROTTLED}; a throttled {@code
 * squall status <id>} names the query too.
 */
class ThrottledCoordinatorTest {
  private final AtomicInteger coordinatorRuns = new AtomicInteger();
  private LambdaEmulator lambda;
  private Gateway gateway;

  @BeforeEach
  void start() throws Exception {
    FunctionDefinition coordinator = FunctionDefinition.of(LocalDeployment.COORDINATOR_FUNCTION, (payload, ctx) -> {
      coordinatorRuns.incrementAndGet();
      return "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }).withReservedConcurrency(0);
    lambda = LambdaEmulator.start(0, List.of(coordinator));
    gateway = Gateway.start(0, lambda.endpoint(), LocalDeployment.COORDINATOR_FUNCTION, Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (lambda != null) {
      lambda.close();
    }
  }

  @Test
  void aQueryThrottledThroughEveryResendEndsWithTheCliOwnMessage() {
    CliRun run = CliRun.withThrottleBaseDelay(Duration.ofMillis(2), "query", "--endpoint=" + gateway.endpoint(),
        "select 1");
    assertThrottled(run, "query");
  }

  @Test
  void aQueryWhoseStatusPollsAreThrottledIsNamedAsStillRunning() throws Exception {
    // The coordinator accepts the submission, and from then on Lambda throttles every invocation
    // of it (its reserved concurrency set to 0 while it answers), so every status poll gets 429.
    String queryId = "5d1c2b7e-8f1a-4b7e-9c3d-0a1b2c3d4e5f";
    FunctionDefinition[] accepting = new FunctionDefinition[1];
    accepting[0] = FunctionDefinition.of(LocalDeployment.COORDINATOR_FUNCTION, (payload, ctx) -> {
      coordinatorRuns.incrementAndGet();
      lambda.register(accepting[0].withReservedConcurrency(0));
      String body = "{\"queryId\":\"" + queryId + "\",\"state\":\"QUEUED\",\"statusUrl\":\"/v1/queries/" + queryId
          + "\",\"resultUrl\":\"/v1/queries/" + queryId + "/result\"}";
      return ("{\"statusCode\":202,\"headers\":{\"content-type\":\"application/json\"},\"body\":"
          + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(body) + "}")
          .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    });
    lambda.register(accepting[0]);

    CliRun run = CliRun.withThrottleBaseDelay(Duration.ofMillis(2), "query", "--endpoint=" + gateway.endpoint(),
        "select 1");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.QUERY_THROTTLED);
    assertThat(run.err()).matches("query " + queryId + " is still running; status requests are throttled \\(HTTP 429 after "
        + (QueryClient.THROTTLE_RETRIES + 1) + " attempts over \\d+ s\\); check later with `squall status " + queryId + "`\n");
    assertThat(run.err()).doesNotContain("account's Lambda concurrency is used up");
    assertThat(coordinatorRuns.get()).isEqualTo(1);
  }

  @Test
  void aThrottledStatusCommandNamesItsQuery() {
    String queryId = "0b7e7a0c-3f2e-4c59-9a57-2f0d5c1c9e11";
    CliRun run = CliRun.withThrottleBaseDelay(Duration.ofMillis(2), "status", "--endpoint=" + gateway.endpoint(), queryId);
    assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.THROTTLED);
    assertThat(run.err()).matches("query " + queryId + ": status requests are throttled \\(HTTP 429 after "
        + (QueryClient.THROTTLE_RETRIES + 1) + " attempts over \\d+ s\\); the query is not affected; try `squall status "
        + queryId + "` again later\n");
    assertThat(run.outText()).isEmpty();
    assertThat(lambda.invokeCounts().snapshot().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(QueryClient.THROTTLE_RETRIES + 1);
    assertThat(coordinatorRuns.get()).isZero();
  }

  private void assertThrottled(CliRun run, String command) {
    int attempts = QueryClient.THROTTLE_RETRIES + 1;
    assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.THROTTLED);
    assertThat(run.err()).matches("squall " + command + ": the account's Lambda concurrency is used up \\(HTTP 429 after "
        + attempts + " attempts over \\d+ s\\); try again later or lower concurrency\n");
    assertThat(run.outText()).isEmpty();
    // Every attempt reached Lambda and was throttled there; the function never ran.
    assertThat(lambda.invokeCounts().snapshot().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(attempts);
    assertThat(coordinatorRuns.get()).isZero();
  }
}
