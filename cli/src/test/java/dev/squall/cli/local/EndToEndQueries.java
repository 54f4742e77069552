package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * Statements run through a {@link TestStack}'s gateway and, as the oracle, through DuckDB, for
 * end-to-end tests: each method fails the test when the answer is not the one it expects.
 */
final class EndToEndQueries {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String ARROW = "application/vnd.apache.arrow.stream";
  static final String JSON_TYPE = "application/json";

  private final TestStack stack;
  private final Connection duck;

  /** @param duck the DuckDB connection the oracle statements run on (e.g. {@link TestStack#duckDb()}) */
  EndToEndQueries(TestStack stack, Connection duck) {
    this.stack = stack;
    this.duck = duck;
  }

  /** Runs a statement on Squall; its JSON answer, failing unless the status is 200. */
  JsonNode run(String sql, Map<String, String> properties) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, properties, JSON_TYPE);
    assertThat(r.statusCode()).as(sql + " → " + new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  /** Runs a statement Squall must refuse: the {@code error} of its answer, failing unless 400 USER_ERROR. */
  JsonNode error(String sql, Map<String, String> properties) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, properties, JSON_TYPE);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(400);
    JsonNode e = JSON.readTree(r.body()).get("error");
    assertThat(e.get("code").asText()).isEqualTo("USER_ERROR");
    return e;
  }

  /** A query's rows as Squall answers them (Arrow). */
  List<List<Object>> squallRows(String sql) throws Exception {
    HttpResponse<byte[]> r = stack.post(sql, Map.of(), ARROW);
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return ResultRows.fromArrow(r.body());
  }

  /** A query's rows as DuckDB answers them. */
  List<List<Object>> duckRows(String sql) throws Exception {
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return ResultRows.fromJdbc(rs);
    }
  }

  /** Runs a data-changing statement on DuckDB; the rows it changed. */
  long duckUpdate(String sql) throws Exception {
    try (Statement st = duck.createStatement()) {
      return st.executeUpdate(sql);
    }
  }
}
