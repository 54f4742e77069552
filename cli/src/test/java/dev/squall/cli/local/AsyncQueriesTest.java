package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.job.CoordinatorActions;
import dev.squall.coordinator.job.DriverHooks;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.jobstore.NewJob;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * Queries as stored jobs through the whole local stack: asynchronous submission and polling,
 * cancel while a stage runs, a coordinator that dies mid-job and is replaced, two coordinators
 * racing for one job, and a synchronous query that outlives its wait. Answers are checked against
 * DuckDB over the same data files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AsyncQueriesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  /** Two stages or more: scan with partial aggregation, then final aggregation and ORDER BY. */
  /** Two stages, one task each: the urgent orders, broadcast into the lineitem scan that aggregates. */
  private static final String Q = "select l_returnflag, l_linestatus, count(*) as n, sum(l_quantity) as q "
      + "from tpch.lineitem where l_orderkey in (select o_orderkey from tpch.orders where o_orderpriority = '1-URGENT') "
      + "group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus";

  /** One task invocation as the deployed task function saw it. */
  private record Invocation(String jobId, int stageId, int partition, int attempt, long startNanos) {}

  private final ConcurrentLinkedQueue<Invocation> invocations = new ConcurrentLinkedQueue<>();
  private volatile long taskDelayMillis;
  private volatile boolean killAfterFirstStage;
  private final AtomicInteger kills = new AtomicInteger();
  private volatile int killedAfterStage = -1;
  private TestStack stack;
  private Connection duck;

  /** Thrown by the coordinator hook: the coordinator invocation dies there. */
  private static final class CoordinatorCrash extends Error {
    CoordinatorCrash(String message) {
      super(message);
    }
  }

  private LambdaHandler recordAndDelay(LambdaHandler real) {
    return (payload, ctx) -> {
      TaskSpec spec = TaskPayloads.decodeSpec(payload);
      invocations.add(new Invocation(spec.getJobId(), spec.getStageId(), spec.getPartition(), spec.getAttempt(),
          System.nanoTime()));
      long delay = taskDelayMillis;
      if (delay > 0) {
        Thread.sleep(delay);
      }
      return real.handle(payload, ctx);
    };
  }

  private final DriverHooks hooks = new DriverHooks() {
    @Override
    public void stageFinished(String jobId, int stageId) {
      if (killAfterFirstStage && kills.get() == 0) {
        kills.incrementAndGet();
        killedAfterStage = stageId;
        throw new CoordinatorCrash("injected coordinator crash after stage " + stageId + " of job " + jobId);
      }
    }
  };

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 10_000, o -> o.withTaskHandlerWrapper(this::recordAndDelay)
        .withCoordinatorHooks(hooks)
        .withSweepInterval(Duration.ZERO)
        .withJobSettings(JobSettings.defaults().withSyncWait(Duration.ofSeconds(3)).withLease(Duration.ofSeconds(2))));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private List<Invocation> invocationsOf(String jobId) {
    return invocations.stream().filter(i -> i.jobId().equals(jobId)).toList();
  }

  private void assertMatchesDuckDb(byte[] arrow) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      assertThat(ResultRows.difference(ResultRows.fromArrow(arrow), ResultRows.fromJdbc(rs), true)).isNull();
    }
  }

  private List<String> objectsOf(String jobId) throws InterruptedException {
    return stack.objectsLeftBy(jobId, Duration.ofSeconds(5));
  }

  @Test
  void asyncQueryIsPolledToSucceededAndItsResultEqualsTheSynchronousAnswer() throws Exception {
    String id = stack.submitAsync(Q);
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    assertThat(status.get("stages").size()).isEqualTo(status.at("/summary/stages").asInt()).isGreaterThan(1);
    for (JsonNode stage : status.get("stages")) {
      assertThat(stage.get("tasksDone").asInt()).isEqualTo(stage.get("tasksTotal").asInt()).isPositive();
    }
    assertThat(status.at("/summary/tasks").asInt()).isPositive();

    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", ARROW);
    assertThat(result.statusCode()).isEqualTo(200);
    assertMatchesDuckDb(result.body());
    HttpResponse<byte[]> sync = stack.post(Q, Map.of(), ARROW);
    assertThat(sync.statusCode()).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(result.body()), ResultRows.fromArrow(sync.body()), true)).isNull();
    assertThat(objectsOf(id)).isEmpty();
  }

  @Test
  void resultOfARunningQueryIs409AndOfAnUnknownQuery404() throws Exception {
    taskDelayMillis = 300;
    try {
      String id = stack.submitAsync(Q);
      HttpResponse<byte[]> early = stack.send("GET", "/v1/queries/" + id + "/result", ARROW);
      assertThat(early.statusCode()).as(new String(early.body())).isEqualTo(409);
      assertThat(stack.awaitTerminal(id, Duration.ofMinutes(2)).get("state").asText()).isEqualTo("SUCCEEDED");
    } finally {
      taskDelayMillis = 0;
    }
    String unknown = UUID.randomUUID().toString();
    assertThat(stack.send("GET", "/v1/queries/" + unknown, "application/json").statusCode()).isEqualTo(404);
    assertThat(stack.send("DELETE", "/v1/queries/" + unknown, "application/json").statusCode()).isEqualTo(404);
  }

  @Test
  void cancelDuringARunningStageEndsCancelledQuicklyStartsNothingMoreAndLeavesNoShuffleObjects() throws Exception {
    taskDelayMillis = 400;
    String id;
    long cancelledAnswered;
    try {
      id = stack.submitAsync(Q);
      long until = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (invocationsOf(id).isEmpty() && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(invocationsOf(id)).as("a task of the job started").isNotEmpty();
      HttpResponse<byte[]> delete = stack.send("DELETE", "/v1/queries/" + id, "application/json");
      cancelledAnswered = System.nanoTime();
      assertThat(delete.statusCode()).as(new String(delete.body())).isEqualTo(202);
      assertThat(JSON.readTree(delete.body()).get("cancelRequested").asBoolean()).isTrue();
      JsonNode status = stack.awaitTerminal(id, Duration.ofSeconds(5));
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("CANCELLED");
      assertThat(Duration.ofNanos(System.nanoTime() - cancelledAnswered)).isLessThan(Duration.ofSeconds(5));
      assertThat(status.at("/error/code").asText()).isEqualTo("CANCELLED");
    } finally {
      taskDelayMillis = 0;
    }
    int seen = invocationsOf(id).size();
    Thread.sleep(1000);
    assertThat(invocationsOf(id)).as("no task starts once the job is CANCELLED").hasSize(seen);
    // The coordinator reads the cancel request every 250 ms: nothing starts well after the DELETE.
    for (Invocation i : invocationsOf(id)) {
      assertThat(Duration.ofNanos(i.startNanos() - cancelledAnswered)).isLessThan(Duration.ofMillis(750));
    }
    assertThat(objectsOf(id)).as("shuffle objects, plan and cancel marker are deleted").isEmpty();
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", "application/json");
    assertThat(result.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(result.body()).at("/error/code").asText()).isEqualTo("CANCELLED");
    HttpResponse<byte[]> again = stack.send("DELETE", "/v1/queries/" + id, "application/json");
    assertThat(again.statusCode()).isEqualTo(202);
  }

  @Test
  void coordinatorKilledMidJobIsReplacedAndFinishedStagesDoNotRunAgain() throws Exception {
    killAfterFirstStage = true;
    String id;
    try {
      id = stack.submitAsync(Q);
      // The crash leaves the lease to lapse (2 s); polling the status then has the job taken over.
      JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
      assertThat(kills.get()).isEqualTo(1);
      int stage = killedAfterStage;
      JsonNode finished = null;
      for (JsonNode s : status.at("/summary/stageSummaries")) {
        if (s.get("stageId").asInt() == stage) {
          finished = s;
        }
      }
      assertThat(finished).as("summary of stage " + stage).isNotNull();
      assertThat(finished.get("attempts").asInt()).as("attempts of the stage finished before the crash")
          .isEqualTo(finished.get("tasks").asInt());
      Set<String> tasksOfStage = new HashSet<>();
      for (Invocation i : invocationsOf(id)) {
        if (i.stageId() == stage) {
          assertThat(tasksOfStage.add(i.stageId() + "." + i.partition())).as("task %d.%d ran twice", i.stageId(), i.partition())
              .isTrue();
        }
      }
    } finally {
      killAfterFirstStage = false;
    }
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", ARROW);
    assertThat(result.statusCode()).isEqualTo(200);
    assertMatchesDuckDb(result.body());
    assertThat(objectsOf(id)).isEmpty();
  }

  @Test
  void twoCoordinatorsRacingForOneJobExactlyOneAdvancesIt() throws Exception {
    String id = UUID.randomUUID().toString();
    stack.deployment.jobStore().create(new NewJob(id, Q, Map.of()), Instant.now());
    AwsBasicCredentials keys = AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY);
    List<String> outcomes = new ArrayList<>();
    try (LambdaClient lambda = LambdaClient.builder().endpointOverride(stack.deployment.lambda().endpoint())
        .region(EmbeddedS3.REGION).credentialsProvider(StaticCredentialsProvider.create(keys)).build()) {
      List<CompletableFuture<String>> racers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        racers.add(CompletableFuture.supplyAsync(() -> lambda.invoke(b -> b
            .functionName(LocalDeployment.COORDINATOR_FUNCTION)
            .payload(SdkBytes.fromByteArray(CoordinatorActions.resume(id)))).payload().asString(StandardCharsets.UTF_8)));
      }
      for (CompletableFuture<String> r : racers) {
        outcomes.add(JSON.readTree(r.get()).get("outcome").asText());
      }
    }
    assertThat(outcomes).containsExactlyInAnyOrder("FINISHED", "NOT_OWNER");
    Set<String> tasks = new HashSet<>();
    for (Invocation i : invocationsOf(id)) {
      assertThat(tasks.add(i.stageId() + "." + i.partition())).as("task %d.%d ran twice", i.stageId(), i.partition()).isTrue();
    }
    JsonNode status = stack.status(id);
    assertThat(status.get("state").asText()).isEqualTo("SUCCEEDED");
    assertThat(status.at("/summary/attempts").asInt()).isEqualTo(status.at("/summary/tasks").asInt()).isEqualTo(tasks.size());
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", ARROW);
    assertMatchesDuckDb(result.body());
  }

  @Test
  void synchronousQueryOutlivingItsWaitAnswers202AndFinishesAsynchronously() throws Exception {
    // Two stages: 3.4 s, past the 3 s wait, and the second stage's attempt ends within the 2 s a
    // synchronous invocation then waits for running attempts before it hands the job over.
    taskDelayMillis = 1700;
    HttpResponse<byte[]> r;
    try {
      long start = System.nanoTime();
      r = stack.post(Q, Map.of(), ARROW);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    } finally {
      taskDelayMillis = 0;
    }
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(202);
    JsonNode accepted = JSON.readTree(r.body());
    String id = accepted.get("queryId").asText();
    assertThat(accepted.get("statusUrl").asText()).isEqualTo("/v1/queries/" + id);
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    HttpResponse<byte[]> result = stack.send("GET", accepted.get("resultUrl").asText(), ARROW);
    assertThat(result.statusCode()).isEqualTo(200);
    assertMatchesDuckDb(result.body());
    assertThat(objectsOf(id)).isEmpty();
  }
}
