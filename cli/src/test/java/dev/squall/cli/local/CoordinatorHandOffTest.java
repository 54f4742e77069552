package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.job.CoordinatorActions;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.NewJob;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.local.s3.EmbeddedS3;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * Jobs that outlive one coordinator invocation: the coordinator function here has a 12 s limit and
 * hands its job over 9 s before it, so each invocation works about 3 s and a slow job needs
 * several; and a job abandoned by a dead coordinator is resumed by the sweep alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CoordinatorHandOffTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String Q = "select o_orderpriority, count(*) as n, sum(o_totalprice) as p "
      + "from tpch.orders group by o_orderpriority order by o_orderpriority";
  private static final Map<String, String> SMALL_TASKS = Map.of("target_split_size_bytes", "65536");

  private volatile long taskDelayMillis;
  private TestStack stack;
  private Connection duck;

  private LambdaHandler delayed(LambdaHandler real) {
    return (payload, ctx) -> {
      long delay = taskDelayMillis;
      if (delay > 0) {
        Thread.sleep(delay);
      }
      return real.handle(payload, ctx);
    };
  }

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 2_000, o -> o.withTaskHandlerWrapper(this::delayed)
        .withTaskConcurrency(2)
        .withCoordinatorTimeout(Duration.ofSeconds(12))
        .withSweepInterval(Duration.ZERO)
        .withJobSettings(JobSettings.defaults().withLease(Duration.ofSeconds(2)).withHandOffMargin(Duration.ofSeconds(9))));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private void assertMatchesDuckDb(String id) throws Exception {
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", "application/vnd.apache.arrow.stream");
    assertThat(result.statusCode()).as(new String(result.body())).isEqualTo(200);
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      assertThat(ResultRows.difference(ResultRows.fromArrow(result.body()), ResultRows.fromJdbc(rs), true)).isNull();
    }
  }

  private JobRecord awaitTerminalInStore(String id, Duration timeout) throws InterruptedException {
    JobStore store = stack.deployment.jobStore();
    long until = System.nanoTime() + timeout.toNanos();
    JobRecord job = store.get(id).orElseThrow();
    while (!job.state().isTerminal() && System.nanoTime() < until) {
      Thread.sleep(100);
      job = store.get(id).orElseThrow();
    }
    return job;
  }

  @Test
  void invocationNearingItsTimeLimitHandsTheJobToTheNextAndTheAnswerIsRight() throws Exception {
    // Eight tasks two at a time, 1.5 s each: at least 6 s of work for invocations of about 3 s.
    taskDelayMillis = 1500;
    String id;
    JobRecord done;
    try {
      id = stack.submitAsync(Q, SMALL_TASKS);
      // Only hand-overs move the job: the status is read from the store, which resumes nothing.
      done = awaitTerminalInStore(id, Duration.ofMinutes(3));
    } finally {
      taskDelayMillis = 0;
    }
    assertThat(done.state()).as(String.valueOf(done.error())).isEqualTo(JobState.SUCCEEDED);
    assertThat(done.leaseEpoch()).as("invocations that held the job").isGreaterThanOrEqualTo(3);
    assertMatchesDuckDb(id);
    assertThat(stack.objectsLeftBy(id, Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void sweepResumesAJobWhoseCoordinatorDied() throws Exception {
    String id = UUID.randomUUID().toString();
    JobStore store = stack.deployment.jobStore();
    store.create(new NewJob(id, Q, Map.of()), Instant.now());
    // A coordinator took the job and died without a word: its lease lapses after 1 s.
    assertThat(store.acquire(id, "dead-coordinator", Instant.now(), Duration.ofSeconds(1))).isPresent();
    Thread.sleep(3_500);
    AwsBasicCredentials keys = AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY);
    try (LambdaClient lambda = LambdaClient.builder().endpointOverride(stack.deployment.lambda().endpoint())
        .region(EmbeddedS3.REGION).credentialsProvider(StaticCredentialsProvider.create(keys)).build()) {
      String report = lambda.invoke(b -> b.functionName(LocalDeployment.COORDINATOR_FUNCTION)
          .payload(SdkBytes.fromByteArray(CoordinatorActions.sweep()))).payload().asString(StandardCharsets.UTF_8);
      JsonNode node = JSON.readTree(report);
      assertThat(node.get("resumed").asInt()).as(report).isGreaterThanOrEqualTo(1);
    }
    JobRecord done = awaitTerminalInStore(id, Duration.ofMinutes(2));
    assertThat(done.state()).as(String.valueOf(done.error())).isEqualTo(JobState.SUCCEEDED);
    assertThat(done.leaseEpoch()).isEqualTo(2);
    assertMatchesDuckDb(id);
  }
}
