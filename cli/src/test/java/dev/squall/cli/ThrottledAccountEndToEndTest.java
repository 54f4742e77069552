package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.cli.local.ResultRows;
import dev.squall.cli.local.ScaleEmulation;
import dev.squall.cli.local.TestStack;
import dev.squall.local.lambda.ScaleModel;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code squall query} against a local stack whose emulated account runs two Lambda invocations at
 * once: the coordinator driving a job and one task take both, so the gateway's invocation of the
 * coordinator for the CLI's status polls (and a second submission) is throttled with 429. The CLI
 * sends a throttled request again with backoff, so the query still answers what DuckDB answers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThrottledAccountEndToEndTest {
  private static final String Q = "select l_returnflag, count(*) as n, sum(l_quantity) as q "
      + "from tpch.lineitem group by l_returnflag order by l_returnflag";

  private TestStack stack;

  @BeforeAll
  void start() throws Exception {
    ScaleEmulation twoAtOnce = ScaleEmulation.OFF.withLambda(ScaleModel.OFF, 2);
    stack = TestStack.startWith(0.01, 20_000, o -> o.withTaskConcurrency(1).withScale(twoAtOnce));
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void throttledRequestsAreSentAgainUntilTheQueryAnswers() throws Exception {
    String endpoint = "--endpoint=" + stack.deployment.gatewayEndpoint();
    CliRun run = CliRun.of("query", endpoint, "--format", "arrow", Q);
    assertThat(run.exitCode()).as(run.err()).isEqualTo(0);
    try (Statement st = stack.duckDb().createStatement(); ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      assertThat(ResultRows.difference(ResultRows.fromArrow(run.out()), ResultRows.fromJdbc(rs), true)).isNull();
    }
  }
}
