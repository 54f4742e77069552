package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.local.tpch.TpchQueries;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.shuffle.ShuffleKeys;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Pipelined scheduling through the whole local stack (TPC-H SF 0.01, DuckDB as the oracle over the
 * same data files): consumer tasks start while their producers run (their specs carry pipelined
 * shuffle inputs and name no winners) and the answers equal DuckDB's; a producer attempt that
 * crashes after writing its output leaves an object no consumer may read (it is overwritten with
 * garbage) and the answer is still right with exactly one extra attempt; a producer failing for
 * good fails the job with its own error, with no task left running and no object left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PipelinedSchedulingEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final Map<String, String> PIPELINED = Map.of("default_schema", "tpch", "broadcast_threshold_bytes",
      "1", "scheduling", "pipelined");

  /** Jobs with a task whose spec read a pipelined shuffle input. */
  private final Set<String> pipelinedJobs = ConcurrentHashMap.newKeySet();
  /** Task invocations running now. */
  private final AtomicInteger running = new AtomicInteger();
  /** "": none; "slow": stage 0 tasks take 300 ms more; "crash-after-output": attempt 0 of task 0.0 writes, then crashes; "always": task 0.0 always fails. */
  private volatile String mode = "";
  private final AtomicInteger injected = new AtomicInteger();
  private TestStack stack;
  private Connection duck;

  private LambdaHandler inject(LambdaHandler real) {
    return (payload, ctx) -> {
      running.incrementAndGet();
      try {
        TaskSpec spec = TaskPayloads.decodeSpec(payload);
        if (spec.getInputsList().stream().anyMatch(i -> i.hasShuffle() && i.getShuffle().hasPipelined())) {
          pipelinedJobs.add(spec.getJobId());
        }
        boolean first = spec.getStageId() == 0 && spec.getPartition() == 0;
        if (mode.equals("always") && first) {
          injected.incrementAndGet();
          Thread.sleep(300); // consumers have started and wait for this producer
          throw new IllegalStateException("injected permanent failure of task 0.0");
        }
        if (!mode.isEmpty() && spec.getStageId() == 0) {
          Thread.sleep(300); // producers run long enough for consumers to start while they run
        }
        byte[] answer = real.handle(payload, ctx);
        if (mode.equals("crash-after-output") && first && spec.getAttempt() == 0) {
          injected.incrementAndGet();
          // The attempt's output exists but it never won: make reading it fail loudly.
          String key = ShuffleKeys.mapOutputKey(spec.getOutput().getShuffle().getJobPrefix(), 0, 0, 0);
          try (S3Client s3 = stack.deployment.s3().newClient()) {
            s3.putObject(b -> b.bucket(spec.getOutput().getShuffle().getBucket()).key(key),
                RequestBody.fromBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
          }
          throw new IllegalStateException("injected crash of task 0.0 attempt 0 after its output was written");
        }
        return answer;
      } finally {
        running.decrementAndGet();
      }
    };
  }

  @BeforeAll
  void start() throws Exception {
    // Slots for every task of the graphs at once (pipelining needs them; 8 is the local default).
    stack = TestStack.startWith(0.01, 5_000, o -> o.withTaskHandlerWrapper(this::inject).withTaskConcurrency(48)
        .withSweepInterval(Duration.ZERO));
    duck = stack.duckDb();
  }

  @AfterEach
  void noFaults() {
    mode = "";
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  /** Runs TPC-H query {@code n}, checks the answer against DuckDB's, and returns the summary. */
  private JsonNode runAsDuckDb(int n, Map<String, String> properties) throws Exception {
    String sql = TpchQueries.text(n);
    HttpResponse<byte[]> r = stack.post(sql, properties, ARROW);
    assertThat(r.statusCode()).as("Q%d: %s", n, new String(r.body())).isEqualTo(200);
    List<List<Object>> expected;
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(TpchDialect.forDuckDb(sql))) {
      expected = ResultRows.fromJdbc(rs);
    }
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()), expected, TpchDialect.ordered(sql)))
        .as("Q%d differs from DuckDB", n).isNull();
    return JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
  }

  @ParameterizedTest(name = "Q{0}")
  @ValueSource(ints = {3, 5, 18, 21})
  void pipelinedQueriesAnswerAsDuckDb(int n) throws Exception {
    int before = pipelinedJobs.size();
    JsonNode summary = runAsDuckDb(n, PIPELINED);

    assertThat(summary.get("scheduling").asText()).isEqualTo("pipelined");
    assertThat(pipelinedJobs).as("a consumer started before its producers finished").hasSize(before + 1);
    assertThat(summary.get("attempts").asInt()).isEqualTo(summary.get("tasks").asInt());
  }

  @Test
  void stagedSchedulingStartsNoConsumerEarly() throws Exception {
    int before = pipelinedJobs.size();
    JsonNode summary = runAsDuckDb(3, Map.of("default_schema", "tpch", "broadcast_threshold_bytes", "1",
        "scheduling", "staged"));

    assertThat(summary.get("scheduling").asText()).isEqualTo("staged");
    assertThat(pipelinedJobs).hasSize(before);
  }

  @Test
  void aGraphLargerThanTheJobsConcurrencyCapRunsStageByStageAndFinishes() throws Exception {
    Map<String, String> capped = new java.util.HashMap<>(PIPELINED);
    capped.put("max_concurrent_tasks", "2");
    JsonNode summary = runAsDuckDb(3, capped);

    assertThat(summary.get("scheduling").asText()).isEqualTo("staged");
    assertThat(summary.get("tasks").asInt()).isGreaterThan(2);
  }

  @Test
  void aProducerCrashingAfterItsOutputIsRetriedAndConsumersReadOnlyTheWinner() throws Exception {
    mode = "crash-after-output";
    int before = injected.get();
    JsonNode summary = runAsDuckDb(3, PIPELINED);

    assertThat(injected.get() - before).isEqualTo(1);
    assertThat(summary.get("scheduling").asText()).isEqualTo("pipelined");
    // Had a consumer read the crashed attempt's (garbled) output, it would have failed and run again.
    assertThat(summary.get("attempts").asInt()).isEqualTo(summary.get("tasks").asInt() + 1);
  }

  @Test
  void aProducerFailingForGoodFailsTheJobWithItsErrorAndStopsWaitingConsumers() throws Exception {
    mode = "always";
    HttpResponse<byte[]> r = stack.post(TpchQueries.text(3), PIPELINED, "application/json");
    mode = "";

    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(502);
    JsonNode error = JSON.readTree(r.body()).get("error");
    assertThat(error.get("code").asText()).isEqualTo("EXTERNAL");
    assertThat(error.get("message").asText()).contains("injected permanent failure of task 0.0");
    assertThat(running.get()).as("task invocations still running").isZero();
    assertThat(stack.shuffleObjectsLeft(Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void anUnknownSchedulingModeIsRefused() throws Exception {
    HttpResponse<byte[]> r = stack.post("select 1", Map.of("scheduling", "eager"), "application/json");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new String(r.body())).contains("scheduling").contains("auto, pipelined, staged");
  }
}
