package dev.squall.cli;

import java.io.ByteArrayInputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code squall query [--endpoint URL] [--format table|csv|json|arrow] "SQL"}: posts the SQL to
 * {@code POST /v1/queries} and prints the answer. Arrow IPC is requested for every format but
 * {@code json}, and rendered locally; {@code arrow} writes the raw IPC stream to standard output.
 * Exit code 0 on success, 1 when the service answers with an error (printed to standard error).
 */
@Command(name = "query", mixinStandardHelpOptions = true, description = "Run a SQL query and print the answer.")
final class QueryCommand implements Callable<Integer> {
  static final String ARROW_STREAM = "application/vnd.apache.arrow.stream";

  @Option(names = "--endpoint", defaultValue = "${SQUALL_ENDPOINT:-http://127.0.0.1:8080}",
      description = "Squall HTTP endpoint (default: $SQUALL_ENDPOINT or ${DEFAULT-VALUE}).")
  URI endpoint;

  @Option(names = "--format", defaultValue = "table", description = "table, csv, json or arrow (default: ${DEFAULT-VALUE}).")
  ResultFormat format;

  @Option(names = "--timeout", defaultValue = "600", description = "Seconds to wait for the answer (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Parameters(arity = "1", paramLabel = "SQL", description = "The SQL text.")
  String sql;

  @Override
  public Integer call() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode body = json.createObjectNode().put("sql", sql);
    HttpRequest request = HttpRequest.newBuilder(endpoint.resolve("/v1/queries"))
        .timeout(Duration.ofSeconds(timeoutSeconds))
        .header("Content-Type", "application/json")
        .header("Accept", format == ResultFormat.JSON ? "application/json" : ARROW_STREAM)
        .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
        .build();
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    String contentType = response.headers().firstValue("Content-Type").orElse("");
    PrintStream out = System.out;
    if (response.statusCode() >= 300) {
      System.err.println("error " + response.statusCode() + ": " + new String(response.body(), StandardCharsets.UTF_8));
      return 1;
    }
    if (format == ResultFormat.JSON || !contentType.startsWith(ARROW_STREAM)) {
      Object tree = json.readTree(response.body());
      out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(tree));
    } else if (format == ResultFormat.ARROW) {
      out.write(response.body());
      out.flush();
    } else {
      ResultPrinter.print(new ByteArrayInputStream(response.body()), format, out);
      response.headers().firstValue("X-Squall-Query-Id").ifPresent(id -> System.err.println("query id: " + id));
      response.headers().firstValue("X-Squall-Summary").ifPresent(s -> System.err.println("summary: " + s));
    }
    return 0;
  }
}
