package dev.squall.cli;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
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
    if (timeoutSeconds <= 0) {
      System.err.println("--timeout must be a positive number of seconds, got " + timeoutSeconds);
      return 2;
    }
    QueryClient client = new QueryClient(endpoint, Duration.ofSeconds(timeoutSeconds));
    HttpResponse<byte[]> response = client.send(sql, java.util.Map.of(),
        format == ResultFormat.JSON ? "application/json" : QueryClient.ARROW_STREAM);
    return AnswerPrinter.print(response, format, System.out, System.err) ? 0 : 1;
  }
}
