package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad requests through the whole HTTP path: each gets a clear 4xx that names the problem (with
 * line and column for SQL), no task runs for it, and the stack keeps serving afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_TYPE = "application/json";
  private TestStack stack;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.start(0.01, 100_000, UnaryOperator.identity());
  }

  @AfterAll
  void stop() throws Exception {
    stack.close();
  }

  @AfterEach
  void stackKeepsServing() throws Exception {
    HttpResponse<byte[]> ok = stack.post("select count(*) from tpch.region", Map.of(), JSON_TYPE);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(ok.body()).at("/rows/0/0").asLong()).isEqualTo(5);
    assertThat(stack.shuffleObjectsLeft(Duration.ofSeconds(5))).isEmpty();
  }

  private JsonNode error(HttpResponse<byte[]> r, int status) throws Exception {
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(status);
    return JSON.readTree(r.body()).get("error");
  }

  @Test
  void constantOverflowIsAnErrorAndConstantDecimalCastsRoundAsDuckDbDoes() throws Exception {
    // Constant folding must not wrap around: the engine evaluates exact arithmetic and fails.
    JsonNode e = error(stack.post("select 9223372036854775807 + 1", Map.of(), JSON_TYPE), 400);
    assertThat(e.get("message").asText()).containsIgnoringCase("overflow");
    String sql = "select cast(3.456 as decimal(15,2)) as a, cast(-3.455 as decimal(15,2)) as b, 7 * 6 as c";
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), "application/vnd.apache.arrow.stream");
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    try (java.sql.Connection duck = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement st = duck.createStatement(); java.sql.ResultSet rs = st.executeQuery(sql)) {
      assertThat(ResultRows.difference(ResultRows.fromArrow(r.body()), ResultRows.fromJdbc(rs), true)).isNull();
    }
  }

  @Test
  void syntaxErrorNamesLineAndColumn() throws Exception {
    // The select list ends in a comma, so FROM on line 2, column 1 is where parsing fails.
    JsonNode e = error(stack.post("select n_name,\nfrom tpch.nation", Map.of(), JSON_TYPE), 400);
    assertThat(e.get("code").asText()).isEqualTo("USER_ERROR");
    assertThat(e.get("message").asText()).containsIgnoringCase("from");
    assertThat(e.get("line").asInt()).isEqualTo(2);
    assertThat(e.get("column").asInt()).isEqualTo(1);
  }

  @Test
  void unknownTableIsNamed() throws Exception {
    JsonNode e = error(stack.post("select * from tpch.nations", Map.of(), JSON_TYPE), 400);
    assertThat(e.get("message").asText()).containsIgnoringCase("nations");
    assertThat(e.get("line").asInt()).isEqualTo(1);
    assertThat(e.get("column").asInt()).isEqualTo(15);
  }

  @Test
  void unknownColumnIsNamed() throws Exception {
    JsonNode e = error(stack.post("select n_nam from tpch.nation", Map.of(), JSON_TYPE), 400);
    assertThat(e.get("message").asText()).containsIgnoringCase("n_nam");
    assertThat(e.get("line").asInt()).isEqualTo(1);
    assertThat(e.get("column").asInt()).isEqualTo(8);
  }

  @Test
  void unsupportedConstructIsNamedAndTheWholeQueryRefused() throws Exception {
    JsonNode e = error(stack.post("select n_name,\n  stddev(n_nationkey) over (order by n_regionkey) from tpch.nation", Map.of(), JSON_TYPE), 400);
    assertThat(e.get("message").asText()).contains("window function STDDEV");
    assertThat(e.get("line").asInt()).isEqualTo(2);
  }

  @Test
  void emptyBodyIsRefused() throws Exception {
    JsonNode e = error(stack.postRaw(new byte[0], JSON_TYPE), 400);
    assertThat(e.get("message").asText()).contains("request body is empty");
  }

  @Test
  void brokenJsonBodyIsRefused() throws Exception {
    JsonNode e = error(stack.postRaw("{\"sql\": ".getBytes(StandardCharsets.UTF_8), JSON_TYPE), 400);
    assertThat(e.get("message").asText()).contains("not valid JSON");
  }

  @Test
  void oneMegabyteSqlIsRefused() throws Exception {
    String sql = "select 1 from tpch.region where r_name in (" + "'x', ".repeat(1 << 18) + "'y')";
    assertThat(sql.length()).isGreaterThan(1 << 20);
    JsonNode e = error(stack.post(sql, Map.of(), JSON_TYPE), 413);
    assertThat(e.get("message").asText()).contains("SQL text is").contains("the limit is");
  }

  @Test
  void longInListPlansAndAnswers() throws Exception {
    StringBuilder list = new StringBuilder();
    for (int i = 0; i <= 1000; i++) {
      list.append(i == 0 ? "" : ", ").append(i);
    }
    HttpResponse<byte[]> r = stack.post("select count(*) from tpch.nation where n_nationkey in (" + list + ")", Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    assertThat(JSON.readTree(r.body()).at("/rows/0/0").asLong()).isEqualTo(25);
  }

  @Test
  void unicodeStringLiteralsPlanAndComeBackIntact() throws Exception {
    HttpResponse<byte[]> r = stack.post("select 'héllo ☃ ’' as s, count(*) as n from tpch.region where r_comment like '%’%'",
        Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    assertThat(JSON.readTree(r.body()).at("/rows/0/0").asText()).isEqualTo("héllo ☃ ’");
    assertThat(JSON.readTree(r.body()).at("/rows/0/1").asLong()).isZero();
  }

  @Test
  void trailingSemicolonIsAccepted() throws Exception {
    HttpResponse<byte[]> r = stack.post("select count(*) from tpch.nation;  ", Map.of(), JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    assertThat(JSON.readTree(r.body()).at("/rows/0/0").asLong()).isEqualTo(25);
  }

  @Test
  void unknownQueryPropertyIsRefused() throws Exception {
    JsonNode e = error(stack.post("select 1", Map.of("no_such_setting", "1"), JSON_TYPE), 400);
    assertThat(e.get("code").asText()).isEqualTo("USER_ERROR");
    // As every failed query's message does, it ends with a reference to the coordinator's log.
    assertThat(e.get("message").asText()).contains("no_such_setting").containsPattern("\\(reference [0-9a-f]{12}\\)$");
  }

  @Test
  void propertiesOutsideTheirRangeAreRefusedNamingTheRange() throws Exception {
    JsonNode wrapped = error(stack.post("select 1", Map.of("max_tasks_per_stage", "4294967297"), JSON_TYPE), 400);
    assertThat(wrapped.get("code").asText()).isEqualTo("USER_ERROR");
    assertThat(wrapped.get("message").asText()).contains("max_tasks_per_stage").contains("from 1 to 10000")
        .contains("4294967297").containsPattern("\\(reference [0-9a-f]{12}\\)$");
    JsonNode broadcast = error(stack.post("select 1", Map.of("broadcast_threshold_bytes", "9999999999999"), JSON_TYPE), 400);
    assertThat(broadcast.get("message").asText()).contains("broadcast_threshold_bytes").contains("from 0 to 536870912");
    JsonNode split = error(stack.post("select 1", Map.of("target_split_size_bytes", "1"), JSON_TYPE), 400);
    assertThat(split.get("message").asText()).contains("target_split_size_bytes").contains("from 65536");
  }

  @Test
  void anUnknownDefaultSchemaIsRefused() throws Exception {
    JsonNode e = error(stack.post("select 1", Map.of("default_schema", "nope"), JSON_TYPE), 400);
    assertThat(e.get("message").asText()).contains("default_schema").contains("nope");
  }

  @Test
  void aPlanNeedingMoreTasksThanTheJobMayStartIsRefusedBeforeAnyTaskStarts() throws Exception {
    // Orders broadcast into the lineitem scan (not scanned in its task): two stages, a task each.
    JsonNode total = error(stack.post("select sum(l_quantity) from tpch.lineitem join tpch.orders on l_orderkey = o_orderkey",
        Map.of("max_total_tasks", "1", "replicated_scan_max_bytes", "0"), JSON_TYPE), 400);
    assertThat(total.get("message").asText()).contains("max_total_tasks = 1").contains("range 1 to 100000");
  }

  @Test
  void aFailingCastKeepsTheCellValueOutOfTheLogsAndTheErrorNamesTheType() throws Exception {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    // slf4j-simple looks System.err up at every line, so the stack's logs (task and coordinator
    // functions run in this JVM) land here too.
    System.setErr(new java.io.PrintStream(new java.io.OutputStream() {
      @Override
      public void write(int b) {
        err.write(b);
        captured.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        err.write(b, off, len);
        captured.write(b, off, len);
      }
    }, true, StandardCharsets.UTF_8));
    JsonNode e;
    try {
      e = error(stack.post("select cast(r_name as integer) as n from tpch.region", Map.of(), JSON_TYPE), 400);
    } finally {
      System.setErr(err);
    }
    assertThat(e.get("code").asText()).isEqualTo("USER_ERROR");
    assertThat(e.get("message").asText()).contains("cannot cast").contains("INTEGER")
        .as("which task met the row is not the user's concern").doesNotContain("task ").doesNotContain("attempt");
    String logs = captured.toString(StandardCharsets.UTF_8);
    assertThat(logs).as("the failure is logged").contains("USER_ERROR").containsPattern("task \\d+\\.\\d+ \\(attempt");
    for (String name : new String[] {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}) {
      assertThat(logs).doesNotContain(name);
      assertThat(e.toString()).doesNotContain(name);
    }
  }
}
