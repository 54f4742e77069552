package dev.squall.coordinator.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.coordinator.api.RequestTooLargeException;
import dev.squall.coordinator.api.SquallException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the body of {@code POST /v1/queries}: {@code {"sql": "...", "properties": {"k": "v"}}}.
 * Every malformed body is refused with a {@link SquallException} USER_ERROR that says what is wrong.
 */
final class QueryRequestParser {
  /** Largest SQL text accepted, in UTF-8 bytes. */
  static final int MAX_SQL_BYTES = 256 * 1024;

  private final ObjectMapper mapper;

  QueryRequestParser(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** The parsed request. */
  record ParsedQuery(String sql, Map<String, String> properties, boolean async) {}

  ParsedQuery parse(byte[] body) {
    if (body.length == 0) {
      throw SquallException.userError("request body is empty; expected JSON {\"sql\": \"...\"}");
    }
    JsonNode root;
    try {
      root = mapper.readTree(body);
    } catch (JsonProcessingException e) {
      var loc = e.getLocation();
      throw SquallException.userError("request body is not valid JSON (line %d, column %d): %s",
          loc == null ? 0 : loc.getLineNr(), loc == null ? 0 : loc.getColumnNr(), e.getOriginalMessage());
    } catch (IOException e) {
      throw SquallException.userError("request body cannot be read: %s", e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw SquallException.userError("request body must be a JSON object {\"sql\": \"...\"}");
    }
    JsonNode sqlNode = root.get("sql");
    if (sqlNode == null || !sqlNode.isTextual()) {
      throw SquallException.userError("request body has no string field \"sql\"");
    }
    String sql = sqlNode.asText();
    int bytes = sql.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_SQL_BYTES) {
      throw new RequestTooLargeException("SQL text", bytes, MAX_SQL_BYTES);
    }
    if (sql.isBlank()) {
      throw SquallException.userError("field \"sql\" is empty");
    }
    Map<String, String> properties = new LinkedHashMap<>();
    JsonNode props = root.get("properties");
    if (props != null && !props.isNull()) {
      if (!props.isObject()) {
        throw SquallException.userError("field \"properties\" must be a JSON object of strings");
      }
      props.fields().forEachRemaining(e -> properties.put(e.getKey(), e.getValue().asText()));
    }
    JsonNode modeNode = root.get("mode");
    String mode = modeNode == null || modeNode.isNull() ? "sync" : modeNode.asText();
    if (!mode.equals("sync") && !mode.equals("async")) {
      throw SquallException.userError("field \"mode\" must be \"sync\" or \"async\", not \"%s\"", mode);
    }
    return new ParsedQuery(sql, properties, mode.equals("async"));
  }
}
