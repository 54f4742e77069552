package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.scheduler.FanOutSettings;
import dev.squall.local.lambda.InvokeCounts;
import dev.squall.local.lambda.ScaleModel;
import dev.squall.local.s3.S3RequestModel;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A stage of 1,000 tasks through two-level invocation on the local stack under the scale model:
 * Lambda's scaling rate (1,000 new environments per function every 10 s), cold starts, invocation
 * latency and an account concurrency limit, and S3's per-prefix request rates. The tasks do little work:
 * an aggregation of TPC-H SF 0.01 lineitem whose final stage is forced to 1,000 tasks (1 byte per
 * task). The answer is DuckDB's over the same data files, every task ran, and the coordinator's own
 * Invoke requests (counted by the emulator per signing identity) stay about √1000 while the task
 * function's role sends the 1,000 task invocations.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FanOutEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final int TASKS = 1000;
  private static final String QUERY = "SELECT l_orderkey % 97 AS k, count(*) AS n, sum(l_quantity) AS q"
      + " FROM lineitem GROUP BY l_orderkey % 97";
  /** The wide stage reads a hash edge: it keeps its planned tasks (no adaptive coalescing). */
  private static final Map<String, String> PROPERTIES = Map.of("default_schema", "tpch",
      "target_bytes_per_task", "1", "max_tasks_per_stage", Integer.toString(TASKS),
      "adaptive_target_partition_bytes", "0");

  private TestStack stack;

  @BeforeAll
  void start() throws Exception {
    ScaleModel lambda = ScaleModel.lambdaLike(Duration.ofMillis(100), Duration.ofMillis(5));
    ScaleEmulation scale = ScaleEmulation.OFF
        .withLambda(lambda, 1100)
        .withS3(new S3RequestModel(Duration.ZERO, 3500, 5500))
        .withFanOut(new FanOutSettings(100, FanOutSettings.DEFAULT_MAX_INVOKERS))
        .withMinSplitBytes(1);
    stack = TestStack.startWith(0.01, 30_000, o -> o.withSweepInterval(Duration.ZERO)
        .withTaskConcurrency(TASKS).withScale(scale));
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void thousandTaskStageStartsThroughInvokersAndAnswersAsDuckDb() throws Exception {
    InvokeCounts counts = stack.deployment.lambda().invokeCounts();
    counts.clear();
    HttpResponse<byte[]> response = stack.post(QUERY, PROPERTIES, ARROW);
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(response.body()),
        ResultRows.fromDuckDb(stack.duckDb(), QUERY), false)).isNull();

    JsonNode summary = JSON.readTree(response.headers().firstValue("x-squall-summary").orElseThrow());
    JsonNode wide = StreamSupport.stream(summary.path("stageSummaries").spliterator(), false)
        .filter(s -> s.path("tasks").asInt() == TASKS).findFirst().orElse(null);
    assertThat(wide).as("a stage of %d tasks in %s", TASKS, summary).isNotNull();
    assertThat(wide.path("attempts").asInt()).isGreaterThanOrEqualTo(TASKS);

    String task = LocalDeployment.TASK_FUNCTION;
    long byCoordinator = counts.of(LocalDeployment.COORDINATOR_ROLE_KEYS.accessKeyId(), task);
    long byTaskRole = counts.of(LocalDeployment.TASK_ROLE_KEYS.accessKeyId(), task);
    int invokers = (int) Math.ceil(Math.sqrt(TASKS));
    int otherTasks = summary.path("tasks").asInt() - TASKS;
    // The coordinator invokes the small stages' tasks itself and the wide stage through ~√N invokers;
    // throttled Invokes that were sent again count too, hence the slack.
    assertThat(byCoordinator).as(counts.snapshot().toString()).isBetween((long) invokers, 2L * invokers + otherTasks);
    assertThat(byTaskRole).as(counts.snapshot().toString()).isGreaterThanOrEqualTo(TASKS);
    // Every environment was created within the modeled account limit.
    assertThat(stack.deployment.lambda().environmentsCreated(task)).isBetween(1, 1100);

    JsonNode cost = summary.path("cost");
    // A share split only when its tasks had to wait for concurrency slots.
    assertThat(cost.path("invokerInvocations").asLong()).isBetween((long) invokers, 2L * invokers);
    assertThat(cost.path("invokerGbSeconds").asDouble()).isPositive();
    assertThat(cost.path("invocations").asLong()).isGreaterThanOrEqualTo(summary.path("attempts").asLong() + invokers);
  }
}
