package dev.squall.cli;

import dev.squall.cli.local.LocalDeployment;
import dev.squall.engine.spill.SpillSettings;
import dev.squall.local.faults.FaultPlan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code squall local [--tpch SF] [--tpcds SF] [--port P] [--data-dir D] [--coordinator-concurrency N] [--faults FILE] [--task-memory-mb N] [--task-memory-tiers MB,...] [--spill-dir DIR]
 * [--spill-disk-mb N] [scale model options, see {@link ScaleOptions}]}: starts the local stack, loads TPC-H
 * and TPC-DS when asked, prints {@code gateway: http://127.0.0.1:PORT} when ready and serves until stopped
 * (Ctrl-C).
 */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = "Start Squall on this machine: S3, Lambda, API gateway, Iceberg catalog and both functions.")
final class LocalCommand implements Callable<Integer> {
  private static volatile boolean serving;

  @Option(names = "--tpch", paramLabel = "SF", description = "Load TPC-H at this scale factor into namespace tpch.")
  Double tpchScaleFactor;

  @Option(names = "--tpcds", paramLabel = "SF", description = "Load TPC-DS at this scale factor into namespace tpcds.")
  Double tpcdsScaleFactor;

  @Option(names = "--port", defaultValue = "8080", description = "Gateway port (default: ${DEFAULT-VALUE}; 0 = any free port).")
  int port;

  @Option(names = "--data-dir", defaultValue = ".squall", description = "Where S3 objects and the catalog live (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--task-concurrency", defaultValue = "8", description = "Concurrent task invocations (default: ${DEFAULT-VALUE}).")
  int taskConcurrency;

  @Option(names = "--coordinator-concurrency", defaultValue = "" + LocalDeployment.DEFAULT_COORDINATOR_CONCURRENCY, paramLabel = "N",
      description = "The coordinator function's reserved concurrency, 2 or more (default: ${DEFAULT-VALUE}): all but a quarter of it"
          + " (at least one) for running queries, the rest for status, result and cancel requests; a submission beyond the"
          + " running queries is answered 429. It comes on top of --account-concurrency, which tasks use.")
  int coordinatorConcurrency;

  @Option(names = "--task-memory-mb", defaultValue = "2048", paramLabel = "N",
      description = "The task function's memory in MB, 1-10240 (default: ${DEFAULT-VALUE}); each task's memory budget is 60%% of it."
          + " Below 128 (Lambda's floor) only locally, to make small data spill.")
  int taskMemoryMb;

  @Option(names = "--task-memory-tiers", split = ",", paramLabel = "MB",
      description = "Task-size tiers: the task function deployed once per memory size in MB (1-10240, at most 4,"
          + " e.g. 256,1024,4096), each with its own task budget (60%% of it); each stage runs on the smallest tier its"
          + " estimated memory fits, and a task that fails for memory runs again on the next larger tier."
          + " Default: one tier, --task-memory-mb.")
  java.util.List<Integer> taskMemoryTiers = java.util.List.of();

  @Option(names = "--spill-dir", paramLabel = "DIR",
      description = "Where tasks spill operator state that passes their memory budget (default: <data-dir>/spill).")
  Path spillDir;

  @Option(names = "--spill-disk-mb", defaultValue = "4096", paramLabel = "N",
      description = "The most MB of spill files a task may hold at once (default: ${DEFAULT-VALUE}; 0 turns spilling off).")
  long spillDiskMb;

  @Option(names = "--integration-timeout", defaultValue = "300",
      description = "Seconds the gateway waits for the coordinator (default: ${DEFAULT-VALUE}; API Gateway allows 30, so on AWS long queries need the asynchronous API).")
  int integrationTimeoutSeconds;

  @Option(names = "--run-tpch", split = ",", paramLabel = "N",
      description = "Once serving, run these TPC-H queries (1-22) through the gateway and print their results and summaries.")
  java.util.List<Integer> runTpch = java.util.List.of();

  @picocli.CommandLine.Mixin
  ScaleOptions scale = new ScaleOptions();

  @Option(names = "--faults", paramLabel = "FILE",
      description = "Inject the faults of this fault plan (JSON, see docs/faults.md); PUT /_local/faults replaces it at run time.")
  Path faultsFile;

  static boolean isServing() {
    return serving;
  }

  @Override
  public Integer call() throws Exception {
    for (int n : runTpch) {
      if (n < 1 || n > 22) {
        System.err.println("--run-tpch takes TPC-H query numbers 1 to 22, not " + n);
        return 2;
      }
    }
    if (!runTpch.isEmpty() && tpchScaleFactor == null) {
      System.err.println("--run-tpch needs --tpch SF (the scale factor to load, or already loaded in --data-dir)");
      return 2;
    }
    if (tpchScaleFactor != null && !(tpchScaleFactor > 0)) {
      System.err.println("--tpch must be a positive scale factor, got " + tpchScaleFactor);
      return 2;
    }
    if (tpcdsScaleFactor != null && !(tpcdsScaleFactor > 0)) {
      System.err.println("--tpcds must be a positive scale factor, got " + tpcdsScaleFactor);
      return 2;
    }
    if (taskConcurrency < 1) {
      System.err.println("--task-concurrency must be 1 or more, not " + taskConcurrency);
      return 2;
    }
    if (coordinatorConcurrency < 2) {
      System.err.println("--coordinator-concurrency must be 2 or more (a running query and a request beside it), not "
          + coordinatorConcurrency);
      return 2;
    }
    if (taskMemoryMb < 1 || taskMemoryMb > 10_240) {
      System.err.println("--task-memory-mb must be 1 to 10240, not " + taskMemoryMb);
      return 2;
    }
    LocalDeployment.Options tiered;
    try {
      tiered = LocalDeployment.Options.defaults().withTaskMemoryTiers(taskMemoryTiers);
    } catch (IllegalArgumentException e) {
      System.err.println("--task-memory-tiers: " + e.getMessage());
      return 2;
    }
    if (spillDiskMb < 0) {
      System.err.println("--spill-disk-mb must be 0 or more, not " + spillDiskMb);
      return 2;
    }
    dev.squall.cli.local.ScaleEmulation emulation;
    try {
      emulation = scale.toEmulation();
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    FaultPlan faults = FaultPlan.none();
    if (faultsFile != null) {
      try {
        faults = FaultPlan.parse(Files.readAllBytes(faultsFile));
      } catch (java.nio.file.NoSuchFileException e) {
        System.err.println("--faults " + faultsFile + ": no such file");
        return 2;
      } catch (IOException | IllegalArgumentException e) {
        System.err.println("--faults " + faultsFile + ": " + e.getMessage());
        return 2;
      }
      System.err.println("faults: " + faults.size() + " rules from " + faultsFile);
    }
    LocalDeployment.Options options = tiered.withDataDir(dataDir.toAbsolutePath())
        .withGatewayPort(port).withTaskConcurrency(taskConcurrency)
        .withIntegrationTimeout(Duration.ofSeconds(integrationTimeoutSeconds)).withFaultPlan(faults)
        .withTaskMemoryMb(taskMemoryMb).withScale(emulation).withCoordinatorConcurrency(coordinatorConcurrency);
    options = options.withSpill(new SpillSettings(
        spillDir != null ? spillDir.toAbsolutePath() : options.spillSettings().directory(), spillDiskMb * 1024 * 1024));
    LocalDeployment stack = LocalDeployment.start(options);
    Runtime.getRuntime().addShutdownHook(new Thread(stack::close, "squall-local-shutdown"));
    if (tpchScaleFactor != null) {
      // The bar redraws with carriage returns: only for a terminal, not for a log file or a pipe.
      var report = stack.loadTpch(tpchScaleFactor, ProgressDisplay.stderrIsTerminal());
      System.err.println(report.nothingWritten()
          ? "tpch: scale factor " + tpchScaleFactor + " already loaded"
          : "tpch: loaded scale factor " + tpchScaleFactor + ", "
              + report.rowsWritten().values().stream().mapToLong(Long::longValue).sum() + " rows");
    }
    if (tpcdsScaleFactor != null) {
      var report = stack.loadTpcds(tpcdsScaleFactor, true);
      System.err.println(report.nothingWritten()
          ? "tpcds: scale factor " + tpcdsScaleFactor + " already loaded"
          : "tpcds: loaded scale factor " + tpcdsScaleFactor + ", "
              + report.rowsWritten().values().stream().mapToLong(Long::longValue).sum() + " rows");
    }
    System.out.println("gateway: " + stack.gatewayEndpoint());
    System.out.flush();
    serving = true;
    if (!runTpch.isEmpty()) {
      QueryClient client = new QueryClient(stack.gatewayEndpoint(), Duration.ofMinutes(15));
      for (int n : runTpch) {
        String sql = dev.squall.local.tpch.TpchQueries.text(n);
        System.out.println();
        System.out.println("-- TPC-H Q" + n);
        var response = client.send(sql, java.util.Map.of("default_schema", "tpch"), QueryClient.ARROW_STREAM);
        if (response.statusCode() == 202) {
          // Longer than the coordinator's synchronous wait: follow the job it became.
          java.time.Instant now = java.time.Instant.now();
          new JobFollower(client, client, new ProgressDisplay(System.err, false, 80), () -> false, System.out, System.out, false)
              .follow(Submission.parse(response.body()), ResultFormat.TABLE, now, now.plus(Duration.ofMinutes(15)));
        } else {
          AnswerPrinter.print(response, ResultFormat.TABLE, System.out, System.out);
        }
      }
      System.out.println();
      System.out.println("serving on " + stack.gatewayEndpoint() + " (Ctrl-C stops)");
    }
    return 0;
  }
}
