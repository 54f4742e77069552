package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A result over the inline cap (all of lineitem, ~60k rows) comes back as a presigned S3 URL, whose
 * Arrow IPC stream holds exactly DuckDB's answer; the same query as Arrow gets the URL as JSON too,
 * since the bytes could not fit Lambda's 6 MB response.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LargeResultTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String Q = "select * from tpch.lineitem";
  private TestStack stack;
  private Connection duck;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.start(0.01, 100_000, UnaryOperator.identity());
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    duck.close();
    stack.close();
  }

  @Test
  void resultOverInlineCapIsServedThroughPresignedUrl() throws Exception {
    HttpResponse<byte[]> r = stack.post(Q, Map.of(), "application/json");
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    JsonNode answer = JSON.readTree(r.body());
    assertThat(answer.get("rows")).isEmpty();
    assertThat(answer.get("resultUrls")).hasSize(1);
    assertThat(answer.at("/summary/rows").asLong()).isEqualTo(60_175);
    String url = answer.get("resultUrls").get(0).asText();
    assertThat(url).contains("X-Amz-Signature=").doesNotContain("squall-local-secret");

    HttpResponse<byte[]> object = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(object.statusCode()).isEqualTo(200);
    assertThat(object.body().length).isGreaterThan(4 << 20);
    List<List<Object>> rows = ResultRows.fromArrow(object.body());
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      assertThat(ResultRows.difference(rows, ResultRows.fromJdbc(rs), false)).isNull();
    }

    HttpResponse<byte[]> arrow = stack.post(Q, Map.of(), "application/vnd.apache.arrow.stream");
    assertThat(arrow.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(arrow.body()).get("resultUrls")).hasSize(1);
  }
}
