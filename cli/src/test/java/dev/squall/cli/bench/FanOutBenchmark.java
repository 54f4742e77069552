package dev.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.cli.local.LocalDeployment;
import dev.squall.cli.local.ScaleEmulation;
import dev.squall.cli.local.TpchDuckDbViews;
import dev.squall.coordinator.scheduler.FanOutSettings;
import dev.squall.local.lambda.InvokeCounts;
import dev.squall.local.lambda.ScaleModel;
import dev.squall.local.s3.S3RequestModel;
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
 * A wide stage on the local stack under the scale model (Lambda's scaling rate of 1,000 new
 * environments per 10 s, a cold start, invocation latency, the account's concurrency; S3 latency and
 * S3's per-prefix rates): an aggregation of TPC-H SF 0.01 lineitem whose final stage is forced to N
 * tiny tasks, run with two-level invocation and with the coordinator invoking every task itself.
 * Prints the query's wall time, the coordinator's own Invoke requests and the task role's, the
 * invoker invocations of the cost object, and DuckDB's time for the same SQL.
 *
 * <p>Run (after {@code mvn -q -o -pl cli -am test-compile}):
 * {@code java --add-opens=java.base/java.nio=ALL-UNNAMED -Daws.requestChecksumCalculation=when_required
 * -Daws.responseChecksumValidation=when_required -cp <cli test classpath> dev.squall.cli.bench.FanOutBenchmark [tasks]
 * [cold-start-ms]}
 */
public final class FanOutBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SQL = "SELECT l_orderkey % 97 AS k, count(*) AS n, sum(l_quantity) AS q"
      + " FROM tpch.lineitem GROUP BY l_orderkey % 97";

  private FanOutBenchmark() {}

  public static void main(String[] args) throws Exception {
    int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    long coldStartMs = args.length > 1 ? Long.parseLong(args[1]) : 250;
    System.out.printf(Locale.ROOT, "stage of %d tasks; cold start %d ms, invocation latency 10 ms, scaling 1000/10 s,"
        + " account concurrency %d; S3 latency 5 ms, 3500/5500 requests/s per prefix%n", tasks, coldStartMs, tasks + 200);
    System.out.printf(Locale.ROOT, "%-12s %10s %14s %14s %10s %10s%n", "invocation", "wall ms", "coordinator", "task role",
        "invokers", "duckdb ms");
    for (boolean twoLevel : new boolean[] {true, false}) {
      run(tasks, coldStartMs, twoLevel);
    }
  }

  private static void run(int tasks, long coldStartMs, boolean twoLevel) throws Exception {
    ScaleEmulation scale = ScaleEmulation.OFF
        .withLambda(ScaleModel.lambdaLike(Duration.ofMillis(coldStartMs), Duration.ofMillis(10)), tasks + 200)
        .withS3(S3RequestModel.s3Like(Duration.ofMillis(5)))
        .withFanOut(new FanOutSettings(twoLevel ? 100 : 0, FanOutSettings.DEFAULT_MAX_INVOKERS))
        .withMinSplitBytes(1);
    Path dir = Files.createTempDirectory("squall-fanout");
    try (LocalDeployment stack = LocalDeployment.start(LocalDeployment.Options.defaults().withDataDir(dir)
            .withTaskConcurrency(tasks).withIntegrationTimeout(Duration.ofMinutes(10)).withScale(scale)
            .withJobSettings(dev.squall.coordinator.job.JobSettings.defaults().withSyncWait(Duration.ofMinutes(10))));
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      stack.loadTpch(0.01, false, 30_000);
      TpchDuckDbViews.create(stack, duck);
      InvokeCounts counts = stack.lambda().invokeCounts();
      counts.clear();
      String body = JSON.createObjectNode().put("sql", SQL).put("mode", "sync").set("properties",
          JSON.createObjectNode().put("target_bytes_per_task", "1").put("max_tasks_per_stage", Integer.toString(tasks)))
          .toString();
      long t = System.nanoTime();
      HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create(stack.gatewayEndpoint() + "/v1/queries")).timeout(Duration.ofMinutes(10))
          .header("Content-Type", "application/json").header("Accept", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
      double wall = (System.nanoTime() - t) / 1e6;
      if (r.statusCode() != 200) {
        throw new IllegalStateException("HTTP " + r.statusCode() + ": " + new String(r.body()));
      }
      JsonNode cost = JSON.readTree(r.body()).path("summary").path("cost");
      t = System.nanoTime();
      try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(SQL.replace("tpch.", ""))) {
        while (rs.next()) {
          rs.getObject(1);
        }
      }
      double duckMs = (System.nanoTime() - t) / 1e6;
      System.out.printf(Locale.ROOT, "%-12s %10.0f %14d %14d %10d %10.1f%n", twoLevel ? "two-level" : "direct", wall,
          counts.of(LocalDeployment.COORDINATOR_ROLE_KEYS.accessKeyId(), LocalDeployment.TASK_FUNCTION),
          counts.of(LocalDeployment.TASK_ROLE_KEYS.accessKeyId(), LocalDeployment.TASK_FUNCTION),
          cost.path("invokerInvocations").asLong(), duckMs);
    }
  }
}
