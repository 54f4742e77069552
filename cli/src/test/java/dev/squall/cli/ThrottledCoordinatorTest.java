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
 * the gateway's JSON body is not shown.
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
  void aThrottledStatusRequestEndsTheSameWay() {
    CliRun run = CliRun.withThrottleBaseDelay(Duration.ofMillis(2), "status", "--endpoint=" + gateway.endpoint(),
        "0b7e7a0c-3f2e-4c59-9a57-2f0d5c1c9e11");
    assertThrottled(run, "status");
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
