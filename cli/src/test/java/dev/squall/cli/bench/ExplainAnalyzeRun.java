package dev.squall.cli.bench;

import dev.squall.cli.local.LocalDeployment;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Prints {@code EXPLAIN ANALYZE} of TPC-H queries run through the local stack: per stage the
 * planner's estimated rows and bytes beside the rows and bytes its tasks produced, as recorded in
 * docs/planner.md. Not a test.
 *
 * <p>Arguments: {@code scaleFactor dataDir queries} (queries a comma-separated list such as {@code
 * Q5,Q9}); the data is loaded as {@link TpchBenchmark} loads it, or found there. With {@code
 * -Dsquall.bench.runs=N} each query runs N times and the last run is printed (a warm JIT).
 */
public final class ExplainAnalyzeRun {
  private ExplainAnalyzeRun() {}

  public static void main(String[] args) throws Exception {
    double sf = Double.parseDouble(args[0]);
    Path dir = Path.of(args[1]);
    List<String> queries = List.of(args[2].split(","));
    BenchmarkWorkload workload = BenchmarkWorkload.TPCH;
    HttpClient http = HttpClient.newHttpClient();
    try (LocalDeployment stack = BenchmarkRunner.startStack(dir)) {
      workload.load(stack, sf);
      int runs = Math.max(1, Integer.getInteger("squall.bench.runs", 1));
      for (String q : queries) {
        HttpResponse<byte[]> r = null;
        for (int run = 0; run < runs; run++) {
          r = BenchmarkRunner.post(http, stack, "explain analyze " + workload.sql(q), BenchmarkRunner.properties(workload));
        }
        System.out.println("== " + q + " (HTTP " + r.statusCode() + ")");
        System.out.println(r.statusCode() == 200 ? planText(r.body()) : new String(r.body(), StandardCharsets.UTF_8));
      }
    }
  }

  private static String planText(byte[] arrowIpc) throws Exception {
    return String.valueOf(dev.squall.cli.local.ResultRows.fromArrow(arrowIpc).get(0).get(0));
  }
}
