package dev.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.coordinator.http.JsonResultWriter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * Prints an answer of {@code POST /v1/queries} (or of {@code GET /v1/queries/{id}/result}, which
 * answers alike) in a {@link ResultFormat}, with its summary on the side.
 */
final class AnswerPrinter {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Where side notes go under {@code --quiet}: nowhere. */
  private static final PrintStream NO_NOTES = new PrintStream(java.io.OutputStream.nullOutputStream());

  private AnswerPrinter() {}

  private static byte[] fetch(String url) throws IOException {
    try {
      HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
          HttpResponse.BodyHandlers.ofByteArray());
      if (r.statusCode() != 200) {
        throw new IOException("fetching the result from its URL failed with HTTP " + r.statusCode());
      }
      return r.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while fetching the result", e);
    }
  }

  /**
   * Prints an error answer as one line, {@code error <status>: line 1:8: <message>}, from the
   * service's error JSON ({@code {"queryId", "error": {"code", "message", "line", "column"}}}); the
   * position as Trino's CLI shows it, left out when the error has none. A body that is not such
   * JSON prints as it is: {@code error <status>: <body>}.
   */
  static void printError(int status, byte[] body, PrintStream err) {
    err.println(errorLine(status, body));
  }

  static String errorLine(int status, byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8).strip();
    JsonNode error;
    JsonNode tree;
    try {
      tree = JSON.readTree(text);
      error = tree == null ? null : tree.get("error");
    } catch (IOException e) {
      return "error " + status + ": " + text;
    }
    if (error == null || !error.path("message").isTextual()) {
      return "error " + status + ": " + text;
    }
    String message = error.path("message").asText();
    int line = error.path("line").asInt(0);
    int column = error.path("column").asInt(0);
    // The message may end in its position already; say it once, in front.
    message = message.replaceFirst(" \\(line \\d+, column \\d+\\)$", "");
    String where = line > 0 ? "line " + line + ":" + column + ": " : "";
    return "error " + status + ": " + where + message;
  }

  /**
   * As {@link #print(HttpResponse, ResultFormat, PrintStream, PrintStream, boolean)}, not quiet.
   */
  static boolean print(HttpResponse<byte[]> response, ResultFormat format, PrintStream out, PrintStream err) throws IOException {
    return print(response, format, out, err, false);
  }

  /**
   * Prints the result to {@code out}; the query id, summary and cost line go to {@code err} unless
   * {@code quiet} (then only the result and errors are printed, for scripts).
   *
   * @return true on success; false when the service answered with an error (printed to {@code err})
   */
  static boolean print(HttpResponse<byte[]> response, ResultFormat format, PrintStream out, PrintStream err,
      boolean quiet) throws IOException {
    PrintStream notes = quiet ? NO_NOTES : err;
    String contentType = response.headers().firstValue("Content-Type").orElse("");
    if (response.statusCode() >= 300) {
      printError(response.statusCode(), response.body(), err);
      return false;
    }
    byte[] arrow = response.body();
    JsonNode summary;
    if (!contentType.startsWith(QueryClient.ARROW_STREAM)) {
      JsonNode tree = JSON.readTree(response.body());
      JsonNode urls = tree.path("resultUrls");
      summary = tree.path("summary");
      if (!urls.isArray() || urls.isEmpty()) {
        out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree));
        printCost(summary, out, notes);
        return true;
      }
      if (format == ResultFormat.JSON) {
        // A result over the inline cap: its rows come from the presigned URL, so that a script
        // never reads the empty inline "rows" of a large answer as an empty result.
        ObjectNode filled = (ObjectNode) tree.deepCopy();
        filled.remove("resultUrls");
        ArrayNode columns = filled.putArray("columns");
        ArrayNode rows = filled.putArray("rows");
        for (JsonNode url : urls) {
          ArrayNode part = JSON.createArrayNode();
          JsonResultWriter.addColumnsAndRows(fetch(url.asText()), columns.isEmpty() ? columns : JSON.createArrayNode(),
              part);
          rows.addAll(part);
        }
        filled.set("summary", tree.path("summary"));
        out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(filled));
        printCost(summary, out, notes);
        return true;
      }
      // A result over the inline cap: fetch the Arrow stream from its presigned URL.
      arrow = fetch(urls.get(0).asText());
      notes.println("query id: " + tree.path("queryId").asText());
      notes.println("summary: " + tree.path("summary"));
    } else {
      response.headers().firstValue("X-Squall-Query-Id").ifPresent(id -> notes.println("query id: " + id));
      String header = response.headers().firstValue("X-Squall-Summary").orElse(null);
      if (header != null) {
        notes.println("summary: " + header);
      }
      summary = header == null ? null : JSON.readTree(header);
    }
    if (format == ResultFormat.ARROW) {
      out.write(arrow);
      out.flush();
    } else {
      ResultPrinter.print(new ByteArrayInputStream(arrow), format, out);
    }
    printCost(summary, out, notes);
    return true;
  }

  /** The cost line after the result, on standard error beside the summary. */
  private static void printCost(JsonNode summary, PrintStream out, PrintStream err) {
    String line = CostLine.of(summary);
    if (line != null) {
      out.flush();
      err.println(line);
    }
  }
}
