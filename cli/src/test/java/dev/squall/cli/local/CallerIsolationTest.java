package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.local.gateway.Gateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Per-caller isolation through the local gateway: two identities in the authorizer context (the
 * local gateway's identity header), each seeing only its own queries. Another caller's GET status,
 * GET result and DELETE answer 404 NOT_FOUND exactly as for an unknown id, and do not touch the
 * job; the owner's answer is checked against DuckDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CallerIsolationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ALICE = "arn:aws:sts::000000000000:assumed-role/analyst/alice";
  private static final String BOB = "arn:aws:sts::000000000000:assumed-role/analyst/bob";
  private static final String Q = "select n_regionkey, count(*) as n from tpch.nation group by n_regionkey order by n_regionkey";

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private TestStack stack;

  @BeforeAll
  void start() throws Exception {
    stack = TestStack.startWith(0.01, 10_000, o -> o.withSweepInterval(Duration.ZERO));
  }

  @AfterAll
  void stop() throws Exception {
    if (stack != null) {
      stack.close();
    }
  }

  private HttpResponse<byte[]> send(String identity, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(stack.deployment.gatewayEndpoint() + path))
        .timeout(Duration.ofMinutes(5))
        .header("Accept", "application/json")
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (identity != null) {
      b.header(Gateway.IDENTITY_HEADER, identity);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private JsonNode awaitSucceeded(String identity, String id) throws Exception {
    long until = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (true) {
      JsonNode status = JSON.readTree(send(identity, "GET", "/v1/queries/" + id, null).body());
      String state = status.path("state").asText();
      if (state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED") || System.nanoTime() > until) {
        assertThat(state).as("state of %s: %s", id, status).isEqualTo("SUCCEEDED");
        return status;
      }
      Thread.sleep(100);
    }
  }

  private static void assertNotFound(HttpResponse<byte[]> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(r.body()).at("/error/code").asText()).isEqualTo("NOT_FOUND");
  }

  private List<List<Object>> expected() throws Exception {
    try (Connection duck = stack.duckDb(); Statement st = duck.createStatement();
        ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      return ResultRows.fromJdbc(rs);
    }
  }

  /** The JSON answer's rows, numbers as BigDecimal like ResultRows' normal form. */
  private static List<List<Object>> rows(JsonNode answer) {
    List<List<Object>> rows = new java.util.ArrayList<>();
    answer.get("rows").forEach(row -> {
      List<Object> values = new java.util.ArrayList<>();
      row.forEach(v -> values.add(ResultRows.normalize(v.decimalValue())));
      rows.add(values);
    });
    return rows;
  }

  private void assertMatchesDuckDb(JsonNode answer) throws Exception {
    assertThat(ResultRows.difference(rows(answer), expected(), true)).isNull();
  }

  @Test
  void anotherCallersQueryReadsAsUnknownAndCannotBeCancelled() throws Exception {
    HttpResponse<byte[]> submitted = send(ALICE, "POST", "/v1/queries", "{\"sql\":\"" + Q + "\",\"mode\":\"async\"}");
    assertThat(submitted.statusCode()).isEqualTo(202);
    String id = JSON.readTree(submitted.body()).get("queryId").asText();

    for (String other : new String[] {BOB, null}) {
      assertNotFound(send(other, "GET", "/v1/queries/" + id, null));
      assertNotFound(send(other, "GET", "/v1/queries/" + id + "/result", null));
      assertNotFound(send(other, "DELETE", "/v1/queries/" + id, null));
    }
    // The same answer as for an id nobody used, so a query id reveals nothing across callers.
    HttpResponse<byte[]> unknown = send(BOB, "GET", "/v1/queries/00000000-0000-4000-8000-000000000000", null);
    assertNotFound(unknown);

    JsonNode status = awaitSucceeded(ALICE, id);
    assertThat(status.path("cancelRequested").asBoolean()).isFalse();
    HttpResponse<byte[]> result = send(ALICE, "GET", "/v1/queries/" + id + "/result", null);
    assertThat(result.statusCode()).isEqualTo(200);
    assertMatchesDuckDb(JSON.readTree(result.body()));
    assertNotFound(send(BOB, "GET", "/v1/queries/" + id + "/result", null));
  }

  @Test
  void eachCallerReadsAndCancelsItsOwnQueries() throws Exception {
    HttpResponse<byte[]> sync = send(BOB, "POST", "/v1/queries", "{\"sql\":\"" + Q + "\"}");
    assertThat(sync.statusCode()).isEqualTo(200);
    JsonNode answer = JSON.readTree(sync.body());
    assertMatchesDuckDb(answer);
    String bobs = answer.get("queryId").asText();
    assertThat(send(BOB, "GET", "/v1/queries/" + bobs, null).statusCode()).isEqualTo(200);
    assertNotFound(send(ALICE, "GET", "/v1/queries/" + bobs, null));

    HttpResponse<byte[]> submitted = send(ALICE, "POST", "/v1/queries", "{\"sql\":\"" + Q + "\",\"mode\":\"async\"}");
    String alices = JSON.readTree(submitted.body()).get("queryId").asText();
    HttpResponse<byte[]> cancel = send(ALICE, "DELETE", "/v1/queries/" + alices, null);
    // Her own cancel reaches her query: accepted while it runs, or 409 once it has finished.
    assertThat(cancel.statusCode()).isIn(202, 409);
  }
}
