package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.scheduler.TaskSpecFactory;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A root task returns a small answer in its own result instead of writing it to S3 (at most {@link
 * TaskSpecFactory#RESULT_INLINE_MAX_BYTES}); a larger answer still goes through its result object.
 * Both answer as DuckDB does over the same data files, through the whole local stack.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InlineResultsEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ARROW = "application/vnd.apache.arrow.stream";
  private static final String SMALL = "select l_returnflag, l_linestatus, count(*) as c, sum(l_quantity) as q"
      + " from tpch.lineitem group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus";
  /** About 5,000 rows of a comment each: several times the inline limit. */
  private static final String LARGE = "select l_orderkey, l_linenumber, l_comment from tpch.lineitem"
      + " order by l_orderkey, l_linenumber limit 5000";

  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.start(0.01, 10_000, UnaryOperator.identity());
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  /** Runs the query, checks its answer against DuckDB's and returns the root stage's S3 PUTs. */
  private long rootPuts(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), ARROW);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()),
        ResultRows.fromDuckDb(duck, sql.replace("tpch.", "")), false)).as("differs from DuckDB").isNull();
    JsonNode summary = JSON.readTree(r.headers().firstValue("x-squall-summary").orElseThrow());
    JsonNode root = StreamSupport.stream(summary.path("stageSummaries").spliterator(), false)
        .filter(s -> s.path("outputEdge").asText().isEmpty()).findFirst().orElseThrow();
    return root.path("s3").path("put").asLong(-1);
  }

  @Test
  void aSmallAnswerComesBackInTheRootTasksResultWithoutAPut() throws Exception {
    assertThat(rootPuts(SMALL)).isZero();
  }

  @Test
  void anAnswerPastTheLimitIsWrittenToItsResultObject() throws Exception {
    assertThat(rootPuts(LARGE)).isGreaterThanOrEqualTo(1);
  }
}
