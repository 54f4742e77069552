package dev.squall.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.cli.local.LocalDeployment;
import dev.squall.cli.local.TpchDialect;
import dev.squall.cli.local.TpchDuckDbViews;
import dev.squall.local.tpch.TpchQueries;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A short query's latency with pipelined scheduling beside stage-by-stage scheduling: TPC-H Q3
 * and Q21 through the whole local stack (query property {@code scheduling} = {@code staged} and
 * {@code pipelined}, runs interleaved so that both see the same machine), beside DuckDB running
 * the same SQL in process over the same data files. Prints median and best milliseconds, the
 * tasks of each query, and the machine's load average (other work shares the machine).
 *
 * <p>Run (after {@code mvn -q -o -pl cli -am test-compile}):
 * {@code java --add-opens=java.base/java.nio=ALL-UNNAMED -Daws.requestChecksumCalculation=when_required
 * -Daws.responseChecksumValidation=when_required -cp <cli test classpath>
 * dev.squall.cli.bench.PipelinedSchedulingBenchmark [scale factor, 0.1] [runs, 5]}
 */
public final class PipelinedSchedulingBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int[] QUERIES = {3, 21};
  private static final String[] MODES = {"staged", "pipelined"};

  private PipelinedSchedulingBenchmark() {}

  public static void main(String[] args) throws Exception {
    double sf = args.length > 0 ? Double.parseDouble(args[0]) : 0.1;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("squall-pipelined");
    // Slots for every task of the graphs at once: pipelining is chosen only then.
    try (LocalDeployment stack = LocalDeployment.start(LocalDeployment.Options.defaults().withDataDir(dir)
            .withTaskConcurrency(64));
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      stack.loadTpch(sf, false);
      TpchDuckDbViews.create(stack, duck);
      HttpClient http = HttpClient.newHttpClient();
      String base = stack.gatewayEndpoint().toString();
      System.out.printf(Locale.ROOT, "TPC-H SF %s, %d runs each after 1 warm-up, modes interleaved; median (best) ms;"
          + " load average at start %.1f%n", sf, runs, load());
      System.out.printf(Locale.ROOT, "%-6s %6s %20s %20s %16s%n", "query", "tasks", "squall staged",
          "squall pipelined", "duckdb");
      for (int q : QUERIES) {
        String sql = TpchQueries.text(q);
        Map<String, List<Double>> ms = new LinkedHashMap<>();
        List<Double> duckMs = new ArrayList<>();
        int tasks = 0;
        for (int r = 0; r < runs + 1; r++) {
          for (String mode : MODES) {
            long t = System.nanoTime();
            HttpResponse<byte[]> response = post(http, base, sql, mode);
            double elapsed = (System.nanoTime() - t) / 1e6;
            if (response.statusCode() != 200) {
              throw new IllegalStateException("Q" + q + " " + mode + ": " + response.statusCode() + " "
                  + new String(response.body()));
            }
            var summary = JSON.readTree(response.headers().firstValue("x-squall-summary").orElseThrow());
            if (!summary.get("scheduling").asText().equals(mode)) {
              throw new IllegalStateException("Q" + q + " asked " + mode + " but ran " + summary.get("scheduling"));
            }
            tasks = summary.get("tasks").asInt();
            if (r > 0) {
              ms.computeIfAbsent(mode, m -> new ArrayList<>()).add(elapsed);
            }
          }
          long t = System.nanoTime();
          try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(TpchDialect.forDuckDb(sql))) {
            while (rs.next()) {
              rs.getObject(1);
            }
          }
          if (r > 0) {
            duckMs.add((System.nanoTime() - t) / 1e6);
          }
        }
        System.out.printf(Locale.ROOT, "%-6s %6d %20s %20s %16s%n", "Q" + q, tasks, stat(ms.get("staged")),
            stat(ms.get("pipelined")), stat(duckMs));
      }
      System.out.printf(Locale.ROOT, "load average at end %.1f%n", load());
    }
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static HttpResponse<byte[]> post(HttpClient http, String base, String sql, String mode) throws Exception {
    var body = JSON.createObjectNode().put("sql", sql).put("mode", "sync");
    body.putObject("properties").put("default_schema", "tpch").put("scheduling", mode);
    return http.send(HttpRequest.newBuilder(URI.create(base + "/v1/queries")).timeout(Duration.ofMinutes(10))
        .header("Content-Type", "application/json").header("Accept", "application/vnd.apache.arrow.stream")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static String stat(List<Double> ms) {
    List<Double> sorted = new ArrayList<>(ms);
    Collections.sort(sorted);
    return String.format(Locale.ROOT, "%.0f (%.0f)", sorted.get(sorted.size() / 2), sorted.get(0));
  }
}
