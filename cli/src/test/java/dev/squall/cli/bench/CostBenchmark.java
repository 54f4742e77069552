package dev.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.cli.local.LocalDeployment;
import dev.squall.coordinator.cost.PriceTable;
import dev.squall.local.tpch.TpchLoader;
import io.trino.tpch.TpchTable;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the 22 TPC-H queries cost on Squall beside Athena's $5 per TB scanned (docs/benchmarks.md,
 * "Cost model check"). Not a test.
 *
 * <p>{@code CostBenchmark SF DIR [QUERIES]}: loads TPC-H at scale factor SF into the local stack
 * over data directory DIR (as {@link TpchBenchmark} does; a second run reuses the load), runs each
 * query once through the whole local path and prints, per query and in total, the figures of its
 * summary's {@code cost} object ({@link CostFigures}), then the same per TB scanned; the figures are
 * also written to {@code DIR/cost-sf<SF>.tsv}.
 *
 * <p>{@code CostBenchmark print FILE.tsv} prints a run's tables again from its file.
 *
 * <p>{@code CostBenchmark extrapolate LOW.tsv HIGH.tsv [SF]} (SF default 1000): fits each query's
 * figures to {@code a + b·SF} through the two runs and prints them at SF, priced at the default
 * price table, beside Athena's price of the bytes it would scan ({@link AthenaScanEstimate}).
 */
public final class CostBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PriceTable PRICES = PriceTable.DEFAULT;

  private CostBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("print")) {
      printMeasured(CostFigures.read(Path.of(args[1])), System.out);
      return;
    }
    if (args.length >= 3 && args[0].equals("extrapolate")) {
      double target = args.length > 3 ? Double.parseDouble(args[3]) : 1000;
      extrapolate(CostFigures.read(Path.of(args[1])), CostFigures.read(Path.of(args[2])), target, System.out);
      return;
    }
    if (args.length < 2) {
      System.err.println("usage: CostBenchmark SF DIR [Q1,Q2,...] | CostBenchmark print FILE.tsv"
          + " | CostBenchmark extrapolate LOW.tsv HIGH.tsv [SF]");
      System.exit(2);
    }
    double sf = Double.parseDouble(args[0]);
    Path dir = Path.of(args[1]);
    BenchmarkWorkload workload = BenchmarkWorkload.TPCH;
    List<String> queries = args.length > 2 ? List.of(args[2].split(",")) : workload.queryNames();
    List<CostFigures> measured = new ArrayList<>();
    Map<String, String> failures = new LinkedHashMap<>();
    System.out.println("load average at start: " + loadAverage());
    try (LocalDeployment stack = BenchmarkRunner.startStack(dir)) {
      long load = System.nanoTime();
      workload.load(stack, sf);
      System.out.printf(Locale.ROOT, "TPC-H SF %s loaded (or found) in %.1f s%n", sf, (System.nanoTime() - load) / 1e9);
      AthenaScanEstimate athena = AthenaScanEstimate.of(stack.catalog().catalog(), TpchLoader.NAMESPACE,
          TpchTable.getTables().stream().map(TpchTable::getTableName).toList());
      String properties = BenchmarkRunner.properties(workload);
      HttpClient http = HttpClient.newBuilder().build();
      Path out = dir.resolve(String.format(Locale.ROOT, "cost-sf%s.tsv", trim(sf)));
      for (String q : queries) {
        String sql = workload.sql(q);
        try {
          HttpResponse<byte[]> resp = BenchmarkRunner.post(http, stack, sql, properties);
          if (resp.statusCode() != 200) {
            String body = new String(resp.body(), StandardCharsets.UTF_8);
            failures.put(q, "error " + resp.statusCode() + ": " + body.substring(0, Math.min(160, body.length())));
          } else {
            JsonNode summary = JSON.readTree(resp.headers().firstValue("x-squall-summary").orElse("{}"));
            CostFigures f = CostFigures.of(q, sf, summary, athena.bytes(sql));
            measured.add(f);
            System.out.printf(Locale.ROOT, "%s done: %.1f s, $%.6f, load average %s%n", q, f.wallMillis() / 1e3, f.dollars(),
                loadAverage());
            // Written after every query, so that a run stopped part way keeps what it measured.
            CostFigures.write(out, measured);
          }
        } catch (Exception e) {
          failures.put(q, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
      }
      System.out.println("figures written to " + out);
    }
    System.out.println("load average at end: " + loadAverage());
    printMeasured(measured, System.out);
    System.out.println("failed queries: " + failures.size());
    failures.forEach((q, why) -> System.out.println("  " + q + " " + why));
  }

  /** The per-query table, the total, and the figures per TB scanned. */
  static void printMeasured(List<CostFigures> all, PrintStream out) {
    if (all.isEmpty()) {
      return;
    }
    double sf = all.get(0).scaleFactor();
    out.printf(Locale.ROOT, "%nTPC-H SF %s, cost per query (%s; S3 requests of tasks and coordinator):%n", trim(sf),
        PRICES.name());
    out.printf(Locale.ROOT, "%-6s %9s %10s %10s %7s %7s %8s %6s %7s %7s %8s %8s %10s %10s %10s %10s%n", "query", "wall s",
        "task GB-s", "coord GB-s", "invoc", "PUT", "GET", "LIST", "HEAD", "DELETE", "js read", "js write", "scanned MB",
        "athena MB", "squall $", "athena $");
    for (CostFigures f : all) {
      row(f, f.athenaDollars(), out);
    }
    CostFigures total = CostFigures.total("total", sf, all);
    row(total, athenaDollars(all), out);
    double tb = total.bytesScanned() / CostFigures.TB;
    out.printf(Locale.ROOT, "%nper TB scanned (%.4f TB of data-file ranges over %d queries):%n", tb, all.size());
    out.printf(Locale.ROOT, "  GB-s/TB: tasks %.0f, coordinator %.0f%n", total.taskGbSeconds() / tb,
        total.coordinatorGbSeconds() / tb);
    out.printf(Locale.ROOT, "  requests/TB: Lambda %.0f, S3 %.0f (PUT %.0f, GET %.0f, LIST %.0f, HEAD %.0f, DELETE %.0f),"
        + " job store %.0f%n", total.invocations() / tb, total.s3Requests() / tb, total.put() / tb, total.get() / tb,
        total.list() / tb, total.head() / tb, total.delete() / tb, (total.jobStoreReads() + total.jobStoreWrites()) / tb);
    out.printf(Locale.ROOT, "  dollars/TB: Squall %.2f (%.2f without the coordinator's GB-s); Athena %.2f per TB it"
        + " scans, %.2f per TB of Squall's scanned bytes (it scans %.1f%% of them)%n", total.dollarsAt(PRICES) / tb,
        total.dollarsWithoutCoordinatorAt(PRICES) / tb, CostFigures.ATHENA_DOLLARS_PER_TB, athenaDollars(all) / tb,
        100 * total.athenaBytes() / total.bytesScanned());
  }

  private static void row(CostFigures f, double athenaDollars, PrintStream out) {
    out.printf(Locale.ROOT, "%-6s %9.1f %10.1f %10.1f %7.0f %7.0f %8.0f %6.0f %7.0f %7.0f %8.0f %8.0f %10.1f %10.1f %10.6f %10.6f%n",
        f.query(), f.wallMillis() / 1e3, f.taskGbSeconds(), f.coordinatorGbSeconds(), f.invocations(), f.put(), f.get(),
        f.list(), f.head(), f.delete(), f.jobStoreReads(), f.jobStoreWrites(), f.bytesScanned() / 1e6, f.athenaBytes() / 1e6,
        f.dollarsAt(PRICES), athenaDollars);
  }

  private static double athenaDollars(List<CostFigures> all) {
    return all.stream().mapToDouble(CostFigures::athenaDollars).sum();
  }

  /**
   * Prints each query's figures at {@code target} from the straight line through its two runs
   * ({@link CostFigures#extrapolate}), then the totals and dollars per TB. Queries measured in one
   * run only are left out and named.
   */
  static void extrapolate(List<CostFigures> low, List<CostFigures> high, double target, PrintStream out) {
    Map<String, CostFigures> byQuery = new LinkedHashMap<>();
    high.forEach(f -> byQuery.put(f.query(), f));
    List<CostFigures> fitted = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (CostFigures l : low) {
      CostFigures h = byQuery.remove(l.query());
      if (h == null) {
        missing.add(l.query());
      } else {
        fitted.add(CostFigures.extrapolate(l, h, target));
      }
    }
    missing.addAll(byQuery.keySet());
    out.printf(Locale.ROOT, "%nextrapolated to SF %s (each figure a + b·SF through SF %s and SF %s), %s:%n", trim(target),
        trim(low.get(0).scaleFactor()), trim(high.get(0).scaleFactor()), PRICES.name());
    out.printf(Locale.ROOT, "%-6s %10s %10s %9s %11s %10s %10s %11s %11s %10s %7s%n", "query", "task GB-s", "coord GB-s",
        "invoc", "S3 req", "scanned TB", "athena TB", "squall $", "w/o coord $", "athena $", "ratio");
    for (CostFigures f : fitted) {
      fittedRow(f, f.athenaDollars(), out);
    }
    CostFigures total = CostFigures.total("total", target, fitted);
    double athena = athenaDollars(fitted);
    fittedRow(total, athena, out);
    double tb = total.bytesScanned() / CostFigures.TB;
    out.printf(Locale.ROOT, "per TB scanned at SF %s: Squall $%.2f ($%.2f without the coordinator's GB-s), %.0f task GB-s,"
        + " %.0f S3 requests, %.0f invocations; Athena $%.2f per TB of Squall's scanned bytes ($5 per TB it scans)%n",
        trim(target), total.dollarsAt(PRICES) / tb, total.dollarsWithoutCoordinatorAt(PRICES) / tb, total.taskGbSeconds() / tb,
        total.s3Requests() / tb, total.invocations() / tb, athena / tb);
    if (!missing.isEmpty()) {
      out.println("left out (measured at one scale factor only): " + String.join(", ", missing));
    }
  }

  private static void fittedRow(CostFigures f, double athenaDollars, PrintStream out) {
    double squall = f.dollarsAt(PRICES);
    out.printf(Locale.ROOT, "%-6s %10.0f %10.0f %9.0f %11.0f %10.3f %10.3f %11.4f %11.4f %10.4f %7.2f%n", f.query(),
        f.taskGbSeconds(), f.coordinatorGbSeconds(), f.invocations(), f.s3Requests(), f.bytesScanned() / CostFigures.TB,
        f.athenaBytes() / CostFigures.TB, squall, f.dollarsWithoutCoordinatorAt(PRICES), athenaDollars,
        squall / athenaDollars);
  }

  /** The 1-, 5- and 15-minute load averages from {@code /proc/loadavg}, or "unknown". */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static String trim(double sf) {
    return sf == Math.rint(sf) ? Long.toString((long) sf) : Double.toString(sf);
  }
}
