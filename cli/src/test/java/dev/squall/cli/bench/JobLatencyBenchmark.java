package dev.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.cli.local.LocalDeployment;
import dev.squall.cli.local.TpchDuckDbViews;
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
import java.util.List;
import java.util.Locale;

/**
 * What a stored job costs a small query: the latency of one small query through the whole local
 * stack, answered synchronously (job created, leased, planned, run and recorded in the request's
 * invocation) and asynchronously (202, a second coordinator invocation runs it, the client polls
 * every 10 ms and fetches the result), beside DuckDB running the same SQL in process.
 *
 * <p>Run (after {@code mvn -q -o -pl cli -am test-compile}):
 * {@code java --add-opens=java.base/java.nio=ALL-UNNAMED -Daws.requestChecksumCalculation=when_required
 * -Daws.responseChecksumValidation=when_required -cp <cli test classpath> dev.squall.cli.bench.JobLatencyBenchmark [runs]}
 */
public final class JobLatencyBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] QUERIES = {
      "select count(*) from tpch.nation",
      "select n_name, r_name from tpch.nation join tpch.region on n_regionkey = r_regionkey order by n_name",
  };

  private JobLatencyBenchmark() {}

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    Path dir = Files.createTempDirectory("squall-latency");
    try (LocalDeployment stack = LocalDeployment.start(LocalDeployment.Options.defaults().withDataDir(dir));
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      stack.loadTpch(0.01, false);
      TpchDuckDbViews.create(stack, duck);
      HttpClient http = HttpClient.newHttpClient();
      String base = stack.gatewayEndpoint().toString();
      System.out.printf(Locale.ROOT, "%d runs each after 3 warm-up runs; median (p90) milliseconds%n", runs);
      System.out.printf(Locale.ROOT, "%-90s %16s %16s %12s%n", "query", "squall sync", "squall async", "duckdb");
      for (String sql : QUERIES) {
        List<Double> sync = new ArrayList<>();
        List<Double> async = new ArrayList<>();
        List<Double> duckMs = new ArrayList<>();
        for (int r = 0; r < runs + 3; r++) {
          long t = System.nanoTime();
          HttpResponse<byte[]> s = post(http, base, sql, "sync");
          double syncMs = (System.nanoTime() - t) / 1e6;
          check(s, 200);
          t = System.nanoTime();
          HttpResponse<byte[]> a = post(http, base, sql, "async");
          check(a, 202);
          String id = JSON.readTree(a.body()).get("queryId").asText();
          while (true) {
            JsonNode status = JSON.readTree(get(http, base + "/v1/queries/" + id).body());
            String state = status.get("state").asText();
            if (state.equals("SUCCEEDED")) {
              break;
            }
            if (state.equals("FAILED") || state.equals("CANCELLED")) {
              throw new IllegalStateException("query " + id + " ended " + state + ": " + status);
            }
            Thread.sleep(10);
          }
          check(get(http, base + "/v1/queries/" + id + "/result"), 200);
          double asyncMs = (System.nanoTime() - t) / 1e6;
          t = System.nanoTime();
          try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql.replace("tpch.", ""))) {
            while (rs.next()) {
              rs.getObject(1);
            }
          }
          double d = (System.nanoTime() - t) / 1e6;
          if (r >= 3) {
            sync.add(syncMs);
            async.add(asyncMs);
            duckMs.add(d);
          }
        }
        System.out.printf(Locale.ROOT, "%-90s %16s %16s %12s%n", sql, stat(sync), stat(async), stat(duckMs));
      }
    }
  }

  private static HttpResponse<byte[]> post(HttpClient http, String base, String sql, String mode) throws Exception {
    String body = JSON.createObjectNode().put("sql", sql).put("mode", mode).toString();
    return http.send(HttpRequest.newBuilder(URI.create(base + "/v1/queries")).timeout(Duration.ofMinutes(2))
        .header("Content-Type", "application/json").header("Accept", "application/vnd.apache.arrow.stream")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static HttpResponse<byte[]> get(HttpClient http, String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(2)).GET().build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static void check(HttpResponse<byte[]> r, int status) {
    if (r.statusCode() != status) {
      throw new IllegalStateException("expected " + status + ", got " + r.statusCode() + ": " + new String(r.body()));
    }
  }

  private static String stat(List<Double> ms) {
    List<Double> sorted = new ArrayList<>(ms);
    Collections.sort(sorted);
    double median = sorted.get(sorted.size() / 2);
    double p90 = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.9) - 1));
    return String.format(Locale.ROOT, "%.1f (%.1f)", median, p90);
  }
}
