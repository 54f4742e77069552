package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Task failures injected at the Lambda boundary (the deployed task handler throws, as a crashed
 * function would): a task that fails its first attempt is retried and the answer stays right; a task
 * that always fails fails the job with its own error and leaves no shuffle objects.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskFaultsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String Q = "select l_returnflag, count(*) as n, sum(l_extendedprice) as s from tpch.lineitem "
      + "group by l_returnflag order by l_returnflag";

  /** Jobs in which task 0.0 failed for good. */
  private final Set<String> failAlways = ConcurrentHashMap.newKeySet();
  private final AtomicInteger injected = new AtomicInteger();
  /** "once": attempt 0 of task 0.0 crashes; "always": every attempt of task 0.0 crashes; "": no faults. */
  private volatile String nextJobMode = "";
  private TestStack stack;
  private Connection duck;

  private LambdaHandler inject(LambdaHandler real) {
    return (payload, ctx) -> {
      TaskSpec spec = TaskPayloads.decodeSpec(payload);
      String mode = nextJobMode;
      if (mode.equals("once") && spec.getStageId() == 0 && spec.getPartition() == 0 && spec.getAttempt() == 0) {
        injected.incrementAndGet();
        throw new IllegalStateException("injected crash of task 0.0 attempt 0");
      }
      if (mode.equals("always") && spec.getStageId() == 0 && spec.getPartition() == 0) {
        injected.incrementAndGet();
        failAlways.add(spec.getJobId());
        throw new IllegalStateException("injected permanent failure of task 0.0");
      }
      return real.handle(payload, ctx);
    };
  }

  @BeforeAll
  void start() throws Exception {
    UnaryOperator<LambdaHandler> wrapper = this::inject;
    stack = TestStack.start(0.01, 10_000, wrapper);
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private static final Map<String, String> SMALL_TASKS = Map.of("target_split_size_bytes", "65536", "target_bytes_per_task", "65536");

  @Test
  void taskFailingItsFirstAttemptIsRetriedAndTheAnswerIsRight() throws Exception {
    nextJobMode = "once";
    int before = injected.get();
    HttpResponse<byte[]> r = stack.post(Q, SMALL_TASKS, "application/vnd.apache.arrow.stream");
    nextJobMode = "";
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    assertThat(injected.get() - before).isEqualTo(1);
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()), ResultRows.fromJdbc(rs), true)).isNull();
    }
    JsonNode summary = JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
    assertThat(summary.get("attempts").asInt()).isEqualTo(summary.get("tasks").asInt() + 1);
    assertThat(stack.shuffleObjectsLeft(Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void taskThatAlwaysFailsFailsTheJobWithItsErrorAndLeavesNoShuffleObjects() throws Exception {
    nextJobMode = "always";
    HttpResponse<byte[]> r = stack.post(Q, SMALL_TASKS, "application/json");
    nextJobMode = "";
    assertThat(r.statusCode()).isEqualTo(502);
    JsonNode error = JSON.readTree(r.body()).get("error");
    assertThat(error.get("code").asText()).isEqualTo("EXTERNAL");
    assertThat(error.get("message").asText())
        .contains("task 0.0 (attempt 3)")
        .contains("injected permanent failure of task 0.0");
    assertThat(stack.shuffleObjectsLeft(Duration.ofSeconds(5))).isEmpty();
    // The stack keeps serving.
    HttpResponse<byte[]> ok = stack.post("select count(*) from tpch.nation", Map.of(), "application/json");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(ok.body()).at("/rows/0/0").asLong()).isEqualTo(25);
  }
}
