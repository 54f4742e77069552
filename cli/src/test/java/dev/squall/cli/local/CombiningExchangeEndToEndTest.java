package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.local.s3.S3RequestLog;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The combining exchange through the whole local stack: TPC-H SF 0.01 lineitem in 200 data files,
 * so that its scan runs as M = 200 map tasks, hash-partitioned into R = 200 reduce tasks. The S3
 * requests of the shuffle are counted by the embedded S3 itself (its request log, by object key);
 * every answer is checked against DuckDB over the same data files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CombiningExchangeEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final int MAPS = 200;
  private static final int PARTITIONS = 200;
  /** lineitem at SF 0.01 has 60,175 rows: 301 rows a file makes 200 files, one map task each. */
  private static final long ROWS_PER_FILE = 301;
  private static final String QUERY = "SELECT l_partkey, count(*) AS n, sum(l_quantity) AS q FROM lineitem"
      + " GROUP BY l_partkey";
  /** A shuffle object's key: {@code <jobPrefix>/<hh>/s<stage>/m<task>/a<attempt>.arrows}. */
  private static final Pattern SHUFFLE_KEY = Pattern.compile("/s(\\d+)/m\\d+/a\\d+\\.arrows$");

  private TestStack stack;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, ROWS_PER_FILE, o -> o.withSweepInterval(Duration.ZERO)
        .withScale(ScaleEmulation.OFF.withMinSplitBytes(1)));
  }

  @AfterEach
  void noFaultsLeft() throws Exception {
    stack.installFaults("{\"rules\": []}");
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  /**
   * Without adaptive coalescing, so that the R reduce partitions run as R tasks: a task of coalesced
   * partitions reads each map output with one GET, which is not the exchange measured here.
   */
  private static Map<String, String> properties(String combine) {
    return Map.of("default_schema", "tpch", "target_split_size_bytes", "1", "target_bytes_per_task", "1",
        "max_tasks_per_stage", Integer.toString(PARTITIONS), "shuffle_combine", combine,
        "adaptive_target_partition_bytes", "0");
  }

  /** What one run did: its summary and the embedded S3's requests on shuffle objects, by stage id. */
  private record Run(JsonNode summary, Map<Integer, Long> shuffleRequests) {
    JsonNode stage(int id) {
      return StreamSupport.stream(summary.path("stageSummaries").spliterator(), false)
          .filter(s -> s.path("stageId").asInt() == id).findFirst().orElseThrow();
    }

    int stageWithTasks(int tasks) {
      return StreamSupport.stream(summary.path("stageSummaries").spliterator(), false)
          .filter(s -> s.path("tasks").asInt() == tasks && !s.path("outputEdge").asText().isEmpty())
          .mapToInt(s -> s.path("stageId").asInt()).findFirst().orElseThrow();
    }

    long requestsOf(int... stages) {
      long n = 0;
      for (int s : stages) {
        n += shuffleRequests.getOrDefault(s, 0L);
      }
      return n;
    }
  }

  /** Runs the query, checks its answer against DuckDB's, and counts its shuffle requests. */
  private Run run(String combine) throws Exception {
    S3RequestLog log = stack.deployment.s3().requestLog();
    log.clear();
    HttpResponse<byte[]> response = stack.post(QUERY, properties(combine), ARROW);
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(response.body()),
        ResultRows.fromDuckDb(stack.duckDb(), QUERY), false)).isNull();
    Map<Integer, Long> byStage = new HashMap<>();
    for (S3RequestLog.Entry e : log.entries(e -> e.kind().equals("PUT") || e.kind().equals("GET"))) {
      Matcher m = SHUFFLE_KEY.matcher(e.key());
      if (m.find()) {
        byStage.merge(Integer.parseInt(m.group(1)), 1L, Long::sum);
      }
    }
    return new Run(JSON.readTree(response.headers().firstValue("x-squall-summary").orElseThrow()), byStage);
  }

  @Test
  void combiningCutsTheShuffleRequestsToAboutMTimesRootROfTheDirectExchangesMPlusMTimesR() throws Exception {
    Run direct = run("off");
    int maps = direct.stageWithTasks(MAPS);
    assertThat(direct.summary().path("stageSummaries")).hasSize(2);
    long directRequests = direct.requestsOf(maps);

    Run combined = run("on");
    assertThat(combined.summary().path("stageSummaries")).hasSize(3);
    int group = (int) Math.ceil(2 * Math.sqrt(PARTITIONS));
    int combiners = (MAPS + group - 1) / group;
    int combiner = combined.stageWithTasks(combiners);
    long combinedRequests = combined.requestsOf(maps, combiner);
    System.out.printf("shuffle of M=%d into R=%d: direct %d S3 requests (bound M + M*R = %d), combining %d"
        + " (bound M*sqrt(R) = %.0f)%n", MAPS, PARTITIONS, directRequests, MAPS + MAPS * PARTITIONS, combinedRequests,
        MAPS * Math.sqrt(PARTITIONS));

    // Map PUTs, one GET of each map output, combiner PUTs, one GET per combiner and partition; a few
    // hedged or retried GETs aside.
    assertThat(combinedRequests).isLessThanOrEqualTo((long) (MAPS * Math.sqrt(PARTITIONS)));
    assertThat(combinedRequests).isGreaterThanOrEqualTo(2L * MAPS + combiners);
    assertThat(directRequests).isGreaterThan(5 * combinedRequests).isLessThanOrEqualTo(MAPS + (long) MAPS * PARTITIONS);
    // The combiner stage's requests are reported with the other stages'.
    JsonNode s3 = combined.stage(combiner).path("s3");
    assertThat(s3.path("get").asLong()).isGreaterThanOrEqualTo(MAPS);
    assertThat(s3.path("put").asLong()).isGreaterThanOrEqualTo(combiners);
  }

  @Test
  void aCombinerAttemptThatCrashesRunsAgainAndTheAnswerIsUnchanged() throws Exception {
    // Stage ids: the scan is 0, the root 1, the combiner between them the next free id.
    stack.installFaults("{\"rules\": [{\"target\": \"task\", \"stage\": 2, \"partition\": 3, \"action\": \"crash\"}]}");
    Run combined = run("on");
    assertThat(stack.deployment.faults().plan().fired()).isEqualTo(1);
    JsonNode combiner = combined.stage(2);
    assertThat(combiner.path("attempts").asInt()).isEqualTo(combiner.path("tasks").asInt() + 1);
  }

  @Test
  void explainPromisesTheLeafTasksThatRun() throws Exception {
    // A 1-byte target split would make the estimate from bytes thousands of tasks; a split never
    // goes below a row group, so the scan runs one task per data file.
    Map<String, String> properties = new HashMap<>(properties("off"));
    properties.put("max_tasks_per_stage", "1000");
    HttpResponse<byte[]> response = stack.post("EXPLAIN " + QUERY, properties, "application/json");
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    assertThat(new String(response.body())).contains("Stage 0: tasks=" + MAPS + " ");
  }

  @Test
  void explainShowsTheCombinerStage() throws Exception {
    HttpResponse<byte[]> response = stack.post("EXPLAIN " + QUERY, properties("on"), "application/json");
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(200);
    assertThat(new String(response.body())).contains("ShuffleCombine input=0 <- stage 0").contains("combined in groups of");
  }
}
