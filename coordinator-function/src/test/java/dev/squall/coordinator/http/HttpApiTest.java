package dev.squall.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.coordinator.api.Caller;
import dev.squall.coordinator.api.QueryAnswer;
import dev.squall.coordinator.api.QueryService;
import dev.squall.coordinator.api.QueryStatus;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.api.Submission;
import dev.squall.proto.v1.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The HTTP layer's handling of requests that never reach a query, and of query errors. */
class HttpApiTest {
  private final ObjectMapper mapper = new ObjectMapper();
  /** A query service whose submissions go to {@code submit}; every other operation is unexpected. */
  private static QueryService submitting(java.util.function.Function<String, Submission> submit) {
    return new QueryService() {
      @Override
      public Submission submit(Caller caller, String queryId, String sql, Map<String, String> properties, boolean async) {
        return submit.apply(sql);
      }

      @Override
      public QueryStatus status(Caller caller, String queryId) {
        throw new AssertionError("status must not be read for this request");
      }

      @Override
      public QueryAnswer result(Caller caller, String queryId) {
        throw new AssertionError("result must not be read for this request");
      }

      @Override
      public QueryStatus cancel(Caller caller, String queryId) {
        throw new AssertionError("nothing may be cancelled by this request");
      }
    };
  }

  private final QueryService mustNotRun = submitting(sql -> {
    throw new AssertionError("query must not run for this request");
  });

  private ObjectNode event(String method, String path, String body, boolean base64) {
    ObjectNode e = mapper.createObjectNode();
    e.put("version", "2.0").put("rawPath", path);
    e.putObject("headers").put("content-type", "application/json");
    e.putObject("requestContext").putObject("http").put("method", method).put("path", path);
    if (body != null) {
      e.put("body", base64 ? Base64.getEncoder().encodeToString(body.getBytes(StandardCharsets.UTF_8)) : body);
      e.put("isBase64Encoded", base64);
    }
    return e;
  }

  private JsonNode call(HttpApi api, ObjectNode event) throws Exception {
    return mapper.readTree(api.handle(mapper.writeValueAsBytes(event)));
  }

  private static JsonNode body(JsonNode response) throws Exception {
    return new ObjectMapper().readTree(response.get("body").asText());
  }

  @Test
  void emptyBodyIsRefusedWith400() throws Exception {
    JsonNode r = call(new HttpApi(mustNotRun), event("POST", "/v1/queries", null, false));
    assertThat(r.get("statusCode").asInt()).isEqualTo(400);
    assertThat(body(r).at("/error/message").asText()).contains("request body is empty");
    assertThat(body(r).at("/error/code").asText()).isEqualTo("USER_ERROR");
  }

  @Test
  void brokenJsonBodyIsRefusedNamingWhere() throws Exception {
    JsonNode r = call(new HttpApi(mustNotRun), event("POST", "/v1/queries", "{\"sql\": \"select 1\"", false));
    assertThat(r.get("statusCode").asInt()).isEqualTo(400);
    assertThat(body(r).at("/error/message").asText()).contains("not valid JSON").contains("line 1");
  }

  @Test
  void bodyWithoutSqlIsRefused() throws Exception {
    JsonNode r = call(new HttpApi(mustNotRun), event("POST", "/v1/queries", "{\"query\": \"select 1\"}", true));
    assertThat(r.get("statusCode").asInt()).isEqualTo(400);
    assertThat(body(r).at("/error/message").asText()).contains("\"sql\"");
  }

  @Test
  void oneMegabyteSqlIsRefusedWith413() throws Exception {
    String sql = "select 1 " + "-".repeat(1 << 20);
    String json = mapper.writeValueAsString(mapper.createObjectNode().put("sql", sql));
    JsonNode r = call(new HttpApi(mustNotRun), event("POST", "/v1/queries", json, false));
    assertThat(r.get("statusCode").asInt()).isEqualTo(413);
    assertThat(body(r).at("/error/message").asText()).contains("SQL text is").contains("the limit is");
  }

  @Test
  void sqlErrorCarriesLineAndColumn() throws Exception {
    QueryService failing = submitting(sql -> {
      throw new SquallException(ErrorCode.USER_ERROR, "Encountered \"form\"", 2, 7, null);
    });
    JsonNode r = call(new HttpApi(failing), event("POST", "/v1/queries", "{\"sql\":\"select 1\\nfrom form\"}", false));
    assertThat(r.get("statusCode").asInt()).isEqualTo(400);
    JsonNode error = body(r).get("error");
    assertThat(error.get("line").asInt()).isEqualTo(2);
    assertThat(error.get("column").asInt()).isEqualTo(7);
    assertThat(body(r).get("queryId").asText()).isNotEmpty();
  }

  @Test
  void malformedEventIsRefusedWith400() throws Exception {
    JsonNode r = mapper.readTree(new HttpApi(mustNotRun).handle("{\"not\": \"an event\"}".getBytes(StandardCharsets.UTF_8)));
    assertThat(r.get("statusCode").asInt()).isEqualTo(400);
    assertThat(body(r).at("/error/message").asText()).contains("malformed API Gateway event");
  }

  @Test
  void unknownPathIs404AndWrongMethodIs405() throws Exception {
    HttpApi api = new HttpApi(mustNotRun);
    assertThat(call(api, event("GET", "/v2/nothing", null, false)).get("statusCode").asInt()).isEqualTo(404);
    assertThat(call(api, event("GET", "/v1/queries", null, false)).get("statusCode").asInt()).isEqualTo(405);
    assertThat(call(api, event("GET", "/v1/health", null, false)).get("statusCode").asInt()).isEqualTo(200);
  }

  @Test
  void unknownModeIsRefusedNamingIt() throws Exception {
    JsonNode r = call(new HttpApi(mustNotRun), event("POST", "/v1/queries", "{\"sql\":\"select 1\",\"mode\":\"later\"}", false));
    assertThat(r.get("statusCode").asInt()).isEqualTo(400);
    assertThat(body(r).at("/error/message").asText()).contains("\"mode\"").contains("later");
  }

  @Test
  void queryPathsThatCannotNameAJobAre404() throws Exception {
    HttpApi api = new HttpApi(mustNotRun);
    assertThat(call(api, event("GET", "/v1/queries/../../etc", null, false)).get("statusCode").asInt()).isEqualTo(404);
    assertThat(call(api, event("GET", "/v1/queries/not-a-uuid/result", null, false)).get("statusCode").asInt()).isEqualTo(404);
    assertThat(call(api, event("PUT", "/v1/queries/123e4567-e89b-12d3-a456-426614174000", null, false))
        .get("statusCode").asInt()).isEqualTo(405);
  }

  @Test
  void aQueryIdNeverIssuedIsNotFoundNamingIt() throws Exception {
    HttpApi api = new HttpApi(mustNotRun);
    JsonNode r = call(api, event("GET", "/v1/queries/no-such-query", null, false));
    assertThat(r.get("statusCode").asInt()).isEqualTo(404);
    assertThat(body(r).at("/error/code").asText()).isEqualTo("NOT_FOUND");
    assertThat(body(r).at("/error/message").asText()).isEqualTo("no query with id no-such-query");
    JsonNode cancel = call(api, event("DELETE", "/v1/queries/no-such-query", null, false));
    assertThat(body(cancel).at("/error/message").asText()).isEqualTo("no query with id no-such-query");
  }

  /** A one-row, one-column VARCHAR answer as Arrow IPC. */
  private static byte[] oneString(String value) throws Exception {
    try (var allocator = new org.apache.arrow.memory.RootAllocator();
        var vector = new org.apache.arrow.vector.VarCharVector("s", allocator)) {
      vector.allocateNew();
      vector.setSafe(0, value.getBytes(StandardCharsets.UTF_8));
      vector.setValueCount(1);
      try (var root = org.apache.arrow.vector.VectorSchemaRoot.of(vector);
          var out = new java.io.ByteArrayOutputStream();
          var writer = new org.apache.arrow.vector.ipc.ArrowStreamWriter(root, null, out)) {
        writer.start();
        writer.writeBatch();
        writer.end();
        return out.toByteArray();
      }
    }
  }

  private JsonNode jsonAnswer(String value) throws Exception {
    QueryAnswer answer = new QueryAnswer("q1", oneString(value), java.util.List.of(),
        dev.squall.proto.v1.QuerySummary.getDefaultInstance(), ipc -> java.util.List.of("https://results.example/q1"));
    ObjectNode e = event("POST", "/v1/queries", "{\"sql\": \"select s from t\"}", false);
    ((ObjectNode) e.get("headers")).put("accept", "application/json");
    byte[] response = new HttpApi(submitting(sql -> Submission.answered(answer))).handle(mapper.writeValueAsBytes(e));
    // Lambda refuses responses over 6 MB (6,291,456 bytes).
    assertThat(response.length).isLessThan(6_291_456);
    return mapper.readTree(response);
  }

  @Test
  void aJsonAnswerIsSizedAsEscapedInTheEnvelope() throws Exception {
    // 1.7 million quotes: 3.4 million characters of JSON (under the 5 MB inline limit), twice that
    // once the body is escaped again as a string in the response envelope.
    String quotes = "\"".repeat(1_700_000) + "\\\u0001";
    JsonNode large = jsonAnswer(quotes);
    assertThat(large.get("statusCode").asInt()).isEqualTo(200);
    assertThat(body(large).get("resultUrls")).hasSize(1);
    assertThat(body(large).path("rows").size()).isZero();
    // A million quotes (4 MB escaped in the envelope) still come inline.
    JsonNode small = jsonAnswer("\"".repeat(1_000_000));
    assertThat(body(small).at("/rows/0/0").asText()).hasSize(1_000_000);
    assertThat(body(small).has("resultUrls")).isFalse();
  }
}
