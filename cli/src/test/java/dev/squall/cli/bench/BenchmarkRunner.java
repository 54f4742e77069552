package dev.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.cli.local.LocalDeployment;
import dev.squall.cli.local.ResultRows;
import dev.squall.cli.local.TpchDialect;
import dev.squall.coordinator.job.JobSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs a workload's queries ({@link BenchmarkWorkload}) through the whole local serverless path
 * (HTTP → gateway → coordinator → Lambda Invoke API → tasks → S3 shuffle) beside DuckDB over the same
 * Parquet data files, on this machine. DuckDB runs in a child JVM of its own ({@link DuckDbRun},
 * same classpath), so that neither engine takes CPU or heap from the other, and the two take turns
 * query by query: DuckDB's runs of a query, then Squall's, so that a slower or faster spell of the
 * machine falls on both figures of a ratio. Before DuckDB's turn this JVM waits (up to {@link
 * #JIT_QUIET_MAX}) until its JIT compiler has been idle for {@link #JIT_QUIET}, so that Squall's
 * compilation does not run in DuckDB's time.
 *
 * <p>Before the timed runs, every query runs {@code squall.bench.warmupRounds} times (1 unless
 * given; none when {@code runs} = 0), untimed, to warm the JVM for all of them. Prints per query:
 * wall times of both (best of {@code runs} runs after one warm-up; with {@code runs} = 0 one run
 * and no warm-up), their ratio, the job's stages and tasks, and the
 * largest peak task memory of any stage (from the job summary) beside the task memory budget,
 * marked {@code OVER BUDGET} when above it, and the bytes its tasks spilled. After every query has
 * run, each answer is compared with DuckDB's over the same files (an in-process DuckDB, opened only
 * then so that it takes nothing from the timed runs; {@link ResultRows#difference}), and the count
 * of equal answers is printed. Then the failed queries, and as the last line
 * {@code geomean ratio X over N queries}: the geometric mean of Squall ms / DuckDB ms over the N
 * queries that succeeded on both sides. With the system property {@code squall.bench.summaries=true}
 * each query's job summary (per stage: tasks, summed task wall and CPU time, S3 requests) follows
 * its line. The task functions' memory is {@code squall.bench.taskMemoryMb} MB (2,048 unless given);
 * tasks spill under the data directory ({@code <dataDir>/spill}, 4 GiB of disk per task).
 */
final class BenchmarkRunner {
  /**
   * Split and task sizes (after the schema): 32 MiB splits and 128 MiB per task unless the system
   * properties {@code squall.bench.splitBytes} / {@code squall.bench.taskBytes} say otherwise; the
   * adaptive coalescing target from {@code squall.bench.adaptiveBytes} when given. At
   * SF 1 that is one wave of 8 scan tasks over lineitem on the local stack's 8 task slots, and few
   * tasks for the small outputs of partial aggregations (docs/benchmarks.md).
   */
  private static final String PROPERTIES_REST = ",\"target_split_size_bytes\":\""
      + Long.getLong("squall.bench.splitBytes", 32L << 20) + "\",\"target_bytes_per_task\":\""
      + Long.getLong("squall.bench.taskBytes", 128L << 20) + "\"" + adaptiveProperty() + extraProperties() + "}";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How long the JIT must have compiled nothing before DuckDB's turn. */
  static final Duration JIT_QUIET = Duration.ofMillis(500);
  /** The longest wait for the JIT to go quiet before DuckDB's turn. */
  static final Duration JIT_QUIET_MAX = Duration.ofSeconds(5);
  private static final double MIB = 1024.0 * 1024.0;

  private BenchmarkRunner() {}

  /**
   * More query properties from the system property {@code squall.bench.properties}, as
   * comma-separated {@code name=value} pairs (e.g. {@code replicated_scan_max_bytes=0}), or nothing.
   */
  private static String extraProperties() {
    StringBuilder out = new StringBuilder();
    for (String pair : System.getProperty("squall.bench.properties", "").split(",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.append(",").append(quote(pair.substring(0, eq).trim())).append(":").append(quote(pair.substring(eq + 1).trim()));
      }
    }
    return out.toString();
  }

  /**
   * The query property {@code adaptive_target_partition_bytes} from the system property {@code
   * squall.bench.adaptiveBytes} (0 runs the planned tasks), or nothing: the deployment's default.
   */
  private static String adaptiveProperty() {
    String bytes = System.getProperty("squall.bench.adaptiveBytes");
    return bytes == null ? "" : ",\"adaptive_target_partition_bytes\":\"" + Long.parseLong(bytes) + "\"";
  }

  /** One query's DuckDB figure from the child process: best ms and rows, or the failure. */
  private record DuckResult(double ms, long rows, String failure) {}

  /**
   * Runs every query {@code rounds} times, untimed and unchecked, before the first timed run: the
   * JIT then has compiled the engine, planner and shuffle paths all queries share, so that the
   * first query's figure is not also the JVM's warm-up (as a Lambda function's are once warm).
   */
  private static void warmUp(HttpClient http, LocalDeployment stack, BenchmarkWorkload workload, List<String> queries,
      String properties, int rounds) {
    for (int round = 0; round < rounds; round++) {
      for (String q : queries) {
        try {
          post(http, stack, workload.sql(q), properties);
        } catch (Exception e) {
          // The timed runs report a failure; the warm-up only warms.
        }
      }
    }
  }

  /**
   * Runs the benchmark. Arguments: {@code scaleFactor [runs] [dataDir] [queries]} (defaults 0.1, 1,
   * a temporary directory, every query; {@code queries} is a comma-separated list of query names
   * such as {@code Q1,Q6}, to run part of the workload).
   */
  static void run(BenchmarkWorkload workload, String[] args) throws Exception {
    double sf = args.length > 0 ? Double.parseDouble(args[0]) : 0.1;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("squall-bench");
    List<String> queries;
    try {
      queries = args.length > 3 ? queryNames(workload, args[3]) : workload.queryNames();
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    String properties = properties(workload);
    try (LocalDeployment stack = startStack(dir)) {
      long load = System.nanoTime();
      workload.load(stack, sf);
      System.out.printf(Locale.ROOT, "%s SF %s loaded (or found) in %.1f s%n", workload.name(), sf, (System.nanoTime() - load) / 1e9);
      Path views = Files.createTempFile("squall-bench-views", ".sql");
      Files.write(views, workload.duckDbViews(stack));
      HttpClient http = HttpClient.newBuilder().build();
      System.out.printf(Locale.ROOT, "%-5s %12s %12s %8s %7s %6s %14s %11s %12s%n", "query", "squall ms", "duckdb ms", "ratio",
          "stages", "tasks", "peak task MiB", "budget MiB", "spilled MiB");
      double totalSquall = 0;
      double totalDuck = 0;
      double logRatios = 0;
      int succeeded = 0;
      List<String> failures = new ArrayList<>();
      List<String> overBudget = new ArrayList<>();
      Map<String, byte[]> answers = new LinkedHashMap<>();
      warmUp(http, stack, workload, queries, properties, runs == 0 ? 0 : Integer.getInteger("squall.bench.warmupRounds", 1));
      List<String> jitBusy = new ArrayList<>();
      long duckWallNanos = 0;
      long cpuDuringDuckNanos = 0;
      try (DuckDbProcess duck = DuckDbProcess.start(workload, views, runs)) {
        for (String q : queries) {
          if (!awaitQuietJit()) {
            jitBusy.add(q);
          }
          long cpuBefore = processCpuNanos();
          long wallBefore = System.nanoTime();
          DuckResult d = duck.run(q);
          duckWallNanos += System.nanoTime() - wallBefore;
          cpuDuringDuckNanos += processCpuNanos() - cpuBefore;
          String sql = workload.sql(q);
          double squall = Double.MAX_VALUE;
          JsonNode summary = null;
          String failure = null;
          for (int r = 0; r <= runs && failure == null; r++) {
            long t = System.nanoTime();
            try {
              HttpResponse<byte[]> resp = post(http, stack, sql, properties);
              double ms = (System.nanoTime() - t) / 1e6;
              if (resp.statusCode() != 200) {
                String body = new String(resp.body(), StandardCharsets.UTF_8);
                failure = "error " + resp.statusCode() + ": " + body.substring(0, Math.min(160, body.length()));
              } else {
                summary = JSON.readTree(resp.headers().firstValue("x-squall-summary").orElse("{}"));
                answers.put(q, resp.body());
                if (r > 0 || runs == 0) {
                  squall = Math.min(squall, ms);
                }
              }
            } catch (Exception e) {
              failure = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
          }
          if (failure == null && d.failure() != null) {
            failure = "DuckDB: " + d.failure();
          }
          if (failure != null) {
            failures.add(q + " " + failure);
            System.out.printf(Locale.ROOT, "%-5s failed%n", q);
            continue;
          }
          long budget = summary.path("taskMemoryBudgetBytes").asLong();
          long peak = 0;
          for (JsonNode stage : summary.path("stageSummaries")) {
            peak = Math.max(peak, stage.path("maxPeakMemoryBytes").asLong());
          }
          boolean over = budget > 0 && peak > budget;
          if (over) {
            overBudget.add(q);
          }
          double ratio = squall / d.ms();
          totalSquall += squall;
          totalDuck += d.ms();
          logRatios += Math.log(ratio);
          succeeded++;
          String rowsNote = summary.path("rows").asLong() == d.rows() ? ""
              : "  rows: squall " + summary.path("rows").asLong() + ", duckdb " + d.rows();
          System.out.printf(Locale.ROOT, "%-5s %12.0f %12.1f %8.1f %7d %6d %14.1f %11.1f %12.1f%s%s%n", q, squall, d.ms(), ratio,
              summary.path("stages").asInt(), summary.path("tasks").asInt(), peak / MIB, budget / MIB,
              summary.path("bytesSpilled").asLong() / MIB, over ? "  OVER BUDGET" : "", rowsNote);
          if (Boolean.getBoolean("squall.bench.summaries")) {
            System.out.println("  summary " + summary);
          }
        }
      }
      Files.deleteIfExists(views);
      System.out.printf(Locale.ROOT, "DuckDB's turns with this JVM's JIT still compiling after %d s: %s%n",
          JIT_QUIET_MAX.toSeconds(), jitBusy.isEmpty() ? "none" : String.join(", ", jitBusy));
      System.out.printf(Locale.ROOT, "this JVM's CPU during DuckDB's turns: %.2f s in %.1f s (%.1f%% of one core)%n",
          cpuDuringDuckNanos / 1e9, duckWallNanos / 1e9, 100.0 * cpuDuringDuckNanos / Math.max(1, duckWallNanos));
      System.out.printf(Locale.ROOT, "total %12.0f %12.1f %8.1f  (succeeded queries only)%n", totalSquall, totalDuck,
          totalSquall / totalDuck);
      compareAnswers(workload, stack, answers);
      System.out.println("tasks over their memory budget: " + (overBudget.isEmpty() ? "none" : String.join(", ", overBudget)));
      System.out.println("failed queries: " + failures.size());
      failures.forEach(f -> System.out.println("  " + f));
      System.out.printf(Locale.ROOT, "geomean ratio %.2f over %d queries%n",
          succeeded == 0 ? Double.NaN : Math.exp(logRatios / succeeded), succeeded);
    }
  }

  /**
   * Compares each answer (Arrow IPC) with DuckDB's answer to the same query over the same data
   * files, under the differential tests' rules (order only where the query orders), and prints how
   * many are equal and the first difference of each that is not.
   */
  private static void compareAnswers(BenchmarkWorkload workload, LocalDeployment stack, Map<String, byte[]> answers)
      throws Exception {
    List<String> differing = new ArrayList<>();
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
      for (String view : workload.duckDbViews(stack)) {
        st.execute(view);
      }
      for (String setting : workload.duckDbSettings()) {
        st.execute(setting);
      }
      for (Map.Entry<String, byte[]> answer : answers.entrySet()) {
        String q = answer.getKey();
        List<List<Object>> expected = ResultRows.fromDuckDb(duck, workload.duckDbSql(q));
        String diff = ResultRows.difference(ResultRows.fromArrow(answer.getValue()), expected,
            TpchDialect.ordered(workload.sql(q)));
        if (diff != null) {
          differing.add(q + ": " + diff.substring(0, Math.min(200, diff.length())));
        }
      }
    }
    System.out.printf(Locale.ROOT, "answers equal to DuckDB: %d of %d%n", answers.size() - differing.size(), answers.size());
    differing.forEach(d -> System.out.println("  differs " + d));
  }

  /**
   * The comma-separated query names of {@code list}, trimmed, blanks dropped, each checked against
   * the workload before anything is loaded or run.
   *
   * @throws IllegalArgumentException naming the first unknown query, or when no name is left
   */
  static List<String> queryNames(BenchmarkWorkload workload, String list) {
    List<String> names = new ArrayList<>();
    for (String name : list.split(",")) {
      String q = name.trim();
      if (q.isEmpty()) {
        continue;
      }
      try {
        workload.sql(q);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("unknown query '" + q + "': " + e.getMessage(), e);
      }
      names.add(q);
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("no query named in '" + list + "'");
    }
    return names;
  }

  /** CPU time of this process so far (all threads), or 0 when the JVM does not report it. */
  private static long processCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? Math.max(0, os.getProcessCpuTime()) : 0;
  }

  /**
   * Waits until this JVM's JIT compiler has compiled nothing for {@link #JIT_QUIET}, or {@link
   * #JIT_QUIET_MAX} has passed; returns at once when the JVM does not report compilation time.
   *
   * @return false when the wait ended at {@link #JIT_QUIET_MAX} with the compiler still busy
   */
  private static boolean awaitQuietJit() throws InterruptedException {
    java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      return true;
    }
    long deadline = System.nanoTime() + JIT_QUIET_MAX.toNanos();
    long last = jit.getTotalCompilationTime();
    while (System.nanoTime() < deadline) {
      Thread.sleep(JIT_QUIET.toMillis());
      long now = jit.getTotalCompilationTime();
      if (now == last) {
        return true;
      }
      last = now;
    }
    return false;
  }

  /**
   * {@link DuckDbRun} in a child JVM with this JVM's classpath, asked for one query at a time; the
   * child's other output is passed through.
   */
  private static final class DuckDbProcess implements AutoCloseable {
    private final Process child;
    private final java.io.Writer names;
    private final BufferedReader lines;

    private DuckDbProcess(Process child) {
      this.child = child;
      this.names = new java.io.OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
      this.lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    }

    static DuckDbProcess start(BenchmarkWorkload workload, Path views, int runs) throws java.io.IOException {
      String java = ProcessHandle.current().info().command().orElse("java");
      return new DuckDbProcess(new ProcessBuilder(java, "-Xmx2g", "-cp", System.getProperty("java.class.path"),
          DuckDbRun.class.getName(), views.toString(), Integer.toString(runs), workload.id())
          .redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    /** DuckDB's figure for query {@code q}: its best timed run and rows, or its failure. */
    DuckResult run(String q) throws java.io.IOException {
      names.write(q + "\n");
      names.flush();
      String line;
      while ((line = lines.readLine()) != null) {
        String[] f = line.split("\t", 4);
        if (f.length == 4 && f[0].equals("duckdb") && f[1].equals(q)) {
          return f[2].equals("failed") ? new DuckResult(Double.NaN, 0, f[3])
              : new DuckResult(Double.parseDouble(f[2]), Long.parseLong(f[3]), null);
        }
        System.out.println(line);
      }
      return new DuckResult(Double.NaN, 0, "the DuckDB process ended (exit " + waitForExit() + ")");
    }

    private int waitForExit() {
      try {
        return child.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return -1;
      }
    }

    @Override
    public void close() throws java.io.IOException {
      names.close();
      int exit = waitForExit();
      if (exit != 0) {
        throw new IllegalStateException("the DuckDB process exited with " + exit);
      }
    }
  }

  /**
   * The local stack over the data directory, set up for benchmark queries: each query is timed end
   * to end in one synchronous request, so the gateway and the synchronous wait cover the longest.
   */
  static LocalDeployment startStack(Path dir) throws Exception {
    return LocalDeployment.start(LocalDeployment.Options.defaults().withDataDir(dir)
        .withIntegrationTimeout(Duration.ofMinutes(15)).withTaskMemoryMb(Integer.getInteger("squall.bench.taskMemoryMb", 2048))
        .withJobSettings(JobSettings.defaults().withSyncWait(Duration.ofMinutes(14))));
  }

  /** The query properties (JSON object) every benchmark query is sent with: schema, split and task sizes. */
  static String properties(BenchmarkWorkload workload) {
    return "{\"default_schema\":\"" + workload.schema() + "\"" + PROPERTIES_REST;
  }

  /**
   * Sends one query synchronously to the stack's gateway; the answer's header {@code
   * x-squall-summary} carries the job summary when it is 200.
   */
  static HttpResponse<byte[]> post(HttpClient http, LocalDeployment stack, String sql, String properties)
      throws java.io.IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(stack.gatewayEndpoint() + "/v1/queries"))
        .timeout(Duration.ofMinutes(15)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"sql\":" + quote(sql) + ",\"properties\":" + properties + "}"))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\r", "") + "\"";
  }
}
