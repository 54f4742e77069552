package dev.squall.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.squall.coordinator.http.JsonResultWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code squall query [--endpoint URL] [--format table|csv|json|arrow] [--sync] [--detach]
 * [--quiet] [-P name=value]... "SQL"}: submits the SQL to {@code POST /v1/queries} as an
 * asynchronous job, shows a progress bar of its stages and tasks on standard error while polling
 * {@code GET /v1/queries/{id}}, then prints {@code GET /v1/queries/{id}/result}. Arrow IPC is
 * requested for every format but {@code json}, and rendered locally; {@code arrow} writes the raw
 * IPC stream to standard output. Ctrl-C cancels the job ({@link CancelOnInterrupt}).
 * {@code --sync} asks for the answer inline (the service still turns a query that outlasts its
 * wait into a job, which is then followed the same way); {@code --detach} prints the query id and
 * returns at once. Exit codes: see {@link ExitCodes}.
 */
@Command(name = "query", mixinStandardHelpOptions = true, description = "Run a SQL query and print the answer.")
final class QueryCommand implements Callable<Integer> {
  /** Request timeout of one status poll. */
  static final Duration POLL_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  @Mixin
  EndpointOption endpoint = new EndpointOption();

  @Option(names = "--format", defaultValue = "table", description = "table, csv, json or arrow (default: ${DEFAULT-VALUE}).")
  ResultFormat format;

  @Option(names = "--timeout", defaultValue = "600",
      description = "Seconds to wait for the answer (default: ${DEFAULT-VALUE}); the query keeps running after it.")
  long timeoutSeconds;

  @Option(names = "--sync", description = "Ask for the answer in the submitting request (the service's wait, 25 s by default, "
      + "still applies; a longer query is followed as a job).")
  boolean sync;

  @Option(names = "--detach", description = "Submit asynchronously, print the query id and return (see squall status/result/cancel).")
  boolean detach;

  @Option(names = "--progress", description = "Draw the progress bar even when standard error is not a terminal.")
  boolean progress;

  @Option(names = {"-q", "--quiet", "--no-progress"}, description = "Print only the result and errors: no progress bar, query id, summary or cost line.")
  boolean quiet;

  // Read as text and split here: picocli's own message for a value without '=' reads "option option".
  @Option(names = {"-P", "--property"}, paramLabel = "NAME=VALUE",
      description = "A query property, e.g. -P default_schema=tpch (see docs/api.md).")
  List<String> propertyArgs = new ArrayList<>();

  @Parameters(arity = "0..1", paramLabel = "SQL",
      description = "The SQL text (text that starts with '--', such as a comment, goes after a '--' argument, or in --file).")
  String sql;

  @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Read the SQL text from FILE ('-': standard input).")
  String file;

  @Option(names = "--analyze", description = "Run the query as EXPLAIN ANALYZE: print its stage graph with the rows, "
      + "time, bytes, attempts and S3 requests of every stage and operator, and its cost, instead of its rows.")
  boolean analyze;

  PrintStream out = System.out;
  PrintStream err = System.err;

  @Override
  public Integer call() throws Exception {
    if (!analyze) {
      return run();
    }
    // The answer is one row holding the annotated plan: printed as the plain text it is.
    PrintStream terminal = out;
    ByteArrayOutputStream arrow = new ByteArrayOutputStream();
    out = new PrintStream(arrow, true, StandardCharsets.UTF_8);
    format = ResultFormat.ARROW;
    int code;
    try {
      code = run();
    } finally {
      out = terminal;
    }
    if (code == ExitCodes.OK && arrow.size() > 0) {
      ArrayNode rows = JsonNodeFactory.instance.arrayNode();
      JsonResultWriter.addColumnsAndRows(arrow.toByteArray(), JsonNodeFactory.instance.arrayNode(), rows);
      rows.forEach(row -> out.print(row.get(0).asText()));
      out.flush();
    }
    return code;
  }

  private int run() throws Exception {
    if (sql != null && analyze) {
      sql = "EXPLAIN ANALYZE " + sql;
    }
    if (timeoutSeconds <= 0) {
      err.println("--timeout must be a positive number of seconds, got " + timeoutSeconds);
      return ExitCodes.USAGE;
    }
    if ((sql == null) == (file == null)) {
      err.println(sql == null ? "give the SQL text as an argument or with --file FILE" : "give the SQL text either as an argument or with --file, not both");
      return ExitCodes.USAGE;
    }
    if (file != null) {
      try {
        sql = file.equals("-") ? new String(System.in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
            : java.nio.file.Files.readString(java.nio.file.Path.of(file));
      } catch (java.io.IOException e) {
        err.println("cannot read " + file + ": " + e.getMessage());
        return ExitCodes.USAGE;
      }
      if (analyze) {
        sql = "EXPLAIN ANALYZE " + sql;
      }
    }
    Map<String, String> properties = new LinkedHashMap<>();
    for (String property : propertyArgs) {
      int eq = property.indexOf('=');
      if (eq <= 0) {
        err.println("-P/--property takes NAME=VALUE (e.g. -P default_schema=tpch), got '" + property + "'");
        return ExitCodes.USAGE;
      }
      String previous = properties.put(property.substring(0, eq), property.substring(eq + 1));
      if (previous != null) {
        // Two values for one property: which one was meant cannot be told, so neither is sent.
        err.println("-P/--property " + property.substring(0, eq) + " is given twice ('" + previous + "' and '"
            + property.substring(eq + 1) + "'); give it once");
        return ExitCodes.USAGE;
      }
    }
    if (sync && detach) {
      err.println("--sync and --detach exclude each other: --detach submits asynchronously and does not wait");
      return ExitCodes.USAGE;
    }
    QueryClient client = endpoint.client(Duration.ofSeconds(timeoutSeconds));
    Instant submitted = Instant.now();
    HttpResponse<byte[]> response = client.submit(sql, properties, sync ? QueryClient.Mode.SYNC : QueryClient.Mode.ASYNC,
        format == ResultFormat.JSON ? QueryClient.JSON_TYPE : QueryClient.ARROW_STREAM);
    if (response.statusCode() != 202) {
      // A synchronous answer (a service without jobs answers every query so) or an error.
      if (detach && response.statusCode() == 200) {
        err.println("the endpoint answered synchronously; printing the answer instead of a query id");
      }
      return AnswerPrinter.print(response, format, out, err, quiet) ? ExitCodes.OK : ExitCodes.FAILED;
    }
    Submission job = Submission.parse(response.body());
    if (detach) {
      out.println(job.queryId());
      return ExitCodes.OK;
    }
    ProgressDisplay display = ProgressDisplay.choose(err, quiet, progress);
    try (CancelOnInterrupt cancel = CancelOnInterrupt.install(client, job.queryId(), display, err)) {
      JobFollower follower = new JobFollower(client.withTimeout(POLL_REQUEST_TIMEOUT, Duration.ofSeconds(10)), client,
          display, cancel::triggered, out, err, quiet);
      // INTERRUPTED means Ctrl-C: the shutdown hook is cancelling, and the JVM exits with 130 after it.
      return follower.follow(job, format, submitted, submitted.plusSeconds(timeoutSeconds));
    }
  }
}
