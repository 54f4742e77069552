package dev.squall.cli.bench;

import dev.squall.cli.local.LocalDeployment;
import dev.squall.cli.local.TpchDialect;
import dev.squall.cli.local.TpchDuckDbViews;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.local.tpch.TpchQueries;
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
import java.util.Locale;

/**
 * The 22 TPC-H queries through the whole local serverless path (HTTP → gateway → coordinator →
 * Lambda Invoke API → tasks → S3 shuffle) beside DuckDB over the same Parquet data files, on this
 * machine. Prints per-query wall times (best of N runs after one warm-up) and their ratio.
 *
 * <p>Not a test. Arguments: {@code scaleFactor [runs] [dataDir]}; see docs/benchmarks.md for the
 * command.
 */
public final class TpchBenchmark {
  /** Splits and tasks of 16/32 MiB, so that scans of the larger tables spread over tasks. */
  private static final String PROPERTIES =
      "{\"default_schema\":\"tpch\",\"target_split_size_bytes\":\"16777216\",\"target_bytes_per_task\":\"33554432\"}";

  private TpchBenchmark() {}

  public static void main(String[] args) throws Exception {
    double sf = args.length > 0 ? Double.parseDouble(args[0]) : 0.1;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("squall-bench");
    try (LocalDeployment stack = LocalDeployment.start(LocalDeployment.Options.defaults().withDataDir(dir)
        .withIntegrationTimeout(Duration.ofMinutes(15))
        // Timed end to end in one request: the synchronous wait covers the longest query.
        .withJobSettings(JobSettings.defaults().withSyncWait(Duration.ofMinutes(14))))) {
      long load = System.nanoTime();
      stack.loadTpch(sf, false, 100_000);
      System.out.printf(Locale.ROOT, "TPC-H SF %s loaded (or found) in %.1f s%n", sf, (System.nanoTime() - load) / 1e9);
      try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
        TpchDuckDbViews.create(stack, duck);
        HttpClient http = HttpClient.newBuilder().build();
        System.out.printf(Locale.ROOT, "%-5s %12s %12s %8s  %s%n", "query", "squall ms", "duckdb ms", "ratio", "squall summary");
        double totalSquall = 0;
        double totalDuck = 0;
        for (int q = 1; q <= 22; q++) {
          String sql = TpchQueries.text(q);
          String duckSql = TpchDialect.forDuckDb(sql);
          double squall = Double.MAX_VALUE;
          String summary = "";
          for (int r = 0; r <= runs; r++) {
            long t = System.nanoTime();
            HttpResponse<byte[]> resp = http.send(HttpRequest.newBuilder(URI.create(stack.gatewayEndpoint() + "/v1/queries"))
                .timeout(Duration.ofMinutes(15)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sql\":" + quote(sql) + ",\"properties\":" + PROPERTIES + "}"))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
            double ms = (System.nanoTime() - t) / 1e6;
            if (resp.statusCode() != 200) {
              summary = "error " + resp.statusCode() + ": " + new String(resp.body()).substring(0, Math.min(120, resp.body().length));
              squall = Double.NaN;
              break;
            }
            summary = resp.headers().firstValue("x-squall-summary").orElse("");
            if (r > 0 || runs == 0) {
              squall = Math.min(squall, ms);
            }
          }
          double duckMs = Double.MAX_VALUE;
          for (int r = 0; r <= runs; r++) {
            long t = System.nanoTime();
            try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(duckSql)) {
              while (rs.next()) {
                // drain
              }
            }
            if (r > 0 || runs == 0) {
              duckMs = Math.min(duckMs, (System.nanoTime() - t) / 1e6);
            }
          }
          totalSquall += Double.isNaN(squall) ? 0 : squall;
          totalDuck += duckMs;
          System.out.printf(Locale.ROOT, "Q%-4d %12.0f %12.1f %8.1f  %s%n", q, squall, duckMs, squall / duckMs, brief(summary));
        }
        System.out.printf(Locale.ROOT, "total %12.0f %12.1f %8.1f%n", totalSquall, totalDuck, totalSquall / totalDuck);
      }
    }
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\r", "") + "\"";
  }

  private static String brief(String summaryJson) {
    return summaryJson.replaceAll(",\"stageSummaries\".*", "}");
  }
}
