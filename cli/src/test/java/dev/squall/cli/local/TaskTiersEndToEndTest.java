package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.scheduler.TaskTiers;
import dev.squall.engine.spill.SpillSettings;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Task-size tiers through the whole local stack (TPC-H SF 0.01, spilling off): two emulated task
 * functions, a tiny one of {@value #SMALL} MB (a task budget of about 9.6 MB) and one of {@value
 * #LARGE} MB. A window over the whole of lineitem joined with orders (wide rows, one task) is
 * estimated past the small tier's budget and runs on the large tier from the start, while the scans
 * run on the small one; pinned to the small tier ({@code task_memory_tier_mb}), the window stage runs
 * out of memory there and succeeds on its retry on the large tier; capped at the small tier ({@code
 * max_task_memory_tier_mb}), it fails for memory as without tiers. Answers equal DuckDB's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskTiersEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  static final int SMALL = 16;
  static final int LARGE = 1024;
  /** Wide rows of lineitem and orders held by one window task; five rows answered. */
  private static final String WINDOW = "select l_orderkey, l_linenumber, l_comment, o_comment, l_shipinstruct, o_clerk, rn"
      + " from (select l_orderkey, l_linenumber, l_comment, o_comment, l_shipinstruct, o_clerk, l_extendedprice,"
      + " o_totalprice, l_quantity, l_discount, l_tax, o_orderpriority, l_shipmode,"
      + " row_number() over (order by l_comment, l_orderkey, l_linenumber) as rn"
      + " from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey) t"
      + " where rn <= 5 and l_extendedprice + o_totalprice + l_quantity + l_discount + l_tax > 0"
      + " and o_orderpriority <> '' and l_shipmode <> ''";
  private static final long SMALL_BUDGET = TaskTiers.Tier.budgetBytes(SMALL);

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 20_000, o -> o.withTaskMemoryTiers(List.of(SMALL, LARGE))
        .withSpill(SpillSettings.DISABLED).withSweepInterval(Duration.ZERO));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  /** Runs {@code sql} with {@code properties}, checks its answer against DuckDB's, returns its summary. */
  private JsonNode runAsDuckDb(String sql, Map<String, String> properties) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, properties, ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()),
        ResultRows.fromDuckDb(duck, sql.replace("tpch.", "")), false)).as("differs from DuckDB").isNull();
    return JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
  }

  /** Attempts of a stage by tier (MB). */
  private static Map<Integer, Integer> tiers(JsonNode stage) {
    Map<Integer, Integer> byTier = new HashMap<>();
    stage.path("attemptsByTierMb").fields().forEachRemaining(f -> byTier.put(Integer.parseInt(f.getKey()),
        f.getValue().asInt()));
    return byTier;
  }

  /** The stage with the largest estimated task memory: the window over every joined row. */
  private static JsonNode windowStage(JsonNode summary) {
    JsonNode widest = null;
    for (JsonNode s : summary.get("stageSummaries")) {
      if (widest == null || s.path("estimatedTaskMemoryBytes").asLong() > widest.path("estimatedTaskMemoryBytes").asLong()) {
        widest = s;
      }
    }
    return widest;
  }

  @Test
  void aStageEstimatedPastTheSmallTierRunsOnTheLargeOneFromTheStartAndTheScansOnTheSmallOne() throws Exception {
    JsonNode summary = runAsDuckDb(WINDOW, Map.of());
    JsonNode window = windowStage(summary);
    assertThat(window.path("estimatedTaskMemoryBytes").asLong()).as(summary.toString()).isGreaterThan(SMALL_BUDGET);
    assertThat(tiers(window)).as(summary.toString()).isEqualTo(Map.of(LARGE, 1));
    int smallScans = 0;
    for (JsonNode s : summary.get("stageSummaries")) {
      assertThat(s.has("attemptsByTierMb")).as("every stage shows its tiers: %s", s).isTrue();
      // The window's stage may scan too: one task runs the scan of lineitem under the window.
      if (s.path("scans").asBoolean() && s.path("stageId").asInt() != window.path("stageId").asInt()) {
        smallScans++;
        assertThat(s.path("estimatedTaskMemoryBytes").asLong()).as("scan stage %s", s).isLessThanOrEqualTo(SMALL_BUDGET);
        assertThat(tiers(s)).as("scan stage %s starts on the small tier", s).containsKey(SMALL);
      }
    }
    assertThat(smallScans).as("scan stages besides the window's: %s", summary).isPositive();
  }

  @Test
  void aStagePinnedToTheSmallTierRunsOutOfMemoryThereAndSucceedsOnTheLargeTier() throws Exception {
    JsonNode summary = runAsDuckDb(WINDOW, Map.of("task_memory_tier_mb", Integer.toString(SMALL)));
    JsonNode window = windowStage(summary);
    assertThat(tiers(window)).as(summary.toString()).isEqualTo(Map.of(SMALL, 1, LARGE, 1));
    assertThat(window.path("attempts").asInt()).isEqualTo(2);
    // The failed attempt's GB-seconds count at the small function's memory (Lambda's 128 MB floor).
    assertThat(summary.at("/cost/taskGbSeconds").asDouble()).isPositive();
  }

  @Test
  void explainAnalyzeShowsEachStagesEstimateAndTiers() throws Exception {
    HttpResponse<byte[]> r = stack.post("EXPLAIN ANALYZE " + WINDOW, Map.of("task_memory_tier_mb",
        Integer.toString(SMALL)), ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    String plan = ResultRows.fromArrow(r.body()).get(0).get(0).toString();
    assertThat(plan).containsPattern("  tiers: estimated task memory=\\d+B attempts " + SMALL + "MB=1 " + LARGE + "MB=1\n");
  }

  @Test
  void cappedAtTheSmallTierTheStageFailsForMemoryAsWithoutTiers() throws Exception {
    HttpResponse<byte[]> r = stack.post(WINDOW, Map.of("task_memory_tier_mb", Integer.toString(SMALL),
        "max_task_memory_tier_mb", Integer.toString(SMALL)), ARROW);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(503);
    assertThat(new String(r.body())).contains("INSUFFICIENT_RESOURCES")
        .contains("16 MB task-size tier, the largest this query may use").contains("max_task_memory_tier_mb");
  }
}
