package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.cli.local.ResultRows;
import dev.squall.cli.local.ScaleEmulation;
import dev.squall.cli.local.TestStack;
import dev.squall.local.lambda.ScaleModel;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code squall query} against a local stack whose emulated account runs two unreserved Lambda
 * invocations at once, three queries submitted together (as {@code squall local --tpch 0.01
 * --account-concurrency 2} and three CLIs). The coordinator has its own reserved concurrency, so
 * the invocations driving the queries never take the account's two: tasks wait for one of the two
 * task slots in the job store instead of being throttled, and every query answers what DuckDB
 * answers over the same files (or, were it refused at submission, says so with the throttling
 * message) within seconds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThrottledAccountEndToEndTest {
  private static final List<String> QUERIES = List.of(
      "select l_returnflag, count(*) as n, sum(l_quantity) as q from tpch.lineitem group by l_returnflag order by l_returnflag",
      "select o_orderpriority, count(*) as n from tpch.orders group by o_orderpriority order by o_orderpriority",
      "select n_name, count(*) as n from tpch.customer join tpch.nation on c_nationkey = n_nationkey "
          + "group by n_name order by n_name");

  private TestStack stack;

  @BeforeAll
  void start() throws Exception {
    ScaleEmulation twoAtOnce = ScaleEmulation.OFF.withLambda(ScaleModel.OFF, 2);
    // A query whose tasks were throttled would fail (or time out) well within the test's time.
    stack = TestStack.startWith(0.01, 20_000, o -> o.withScale(twoAtOnce).withJobTimeout(Duration.ofSeconds(90)));
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void threeQueriesAtOnceEachAnswerOrAreRefusedAtSubmission() throws Exception {
    String endpoint = "--endpoint=" + stack.deployment.gatewayEndpoint();
    List<CompletableFuture<CliRun>> runs = new ArrayList<>();
    for (String q : QUERIES) {
      runs.add(CompletableFuture.supplyAsync(() -> CliRun.of("query", endpoint, "--format", "arrow", "--timeout", "120", q)));
    }
    int answered = 0;
    for (int i = 0; i < QUERIES.size(); i++) {
      CliRun run = runs.get(i).get();
      if (run.exitCode() == ExitCodes.THROTTLED) {
        assertThat(run.err()).contains("the account's Lambda concurrency is used up (HTTP 429 after");
        continue;
      }
      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      try (Statement st = stack.duckDb().createStatement();
          ResultSet rs = st.executeQuery(QUERIES.get(i).replace("tpch.", ""))) {
        assertThat(ResultRows.difference(ResultRows.fromArrow(run.out()), ResultRows.fromJdbc(rs), true)).isNull();
      }
      answered++;
    }
    // Three queries are well within the coordinator's running-query cap: none is refused.
    assertThat(answered).isEqualTo(QUERIES.size());
  }
}
