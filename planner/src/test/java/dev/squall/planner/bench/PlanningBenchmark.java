package dev.squall.planner.bench;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.split.SplitPlanner;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.TpchQueries;
import java.util.Arrays;

/**
 * Planning latency of the 22 TPC-H queries against the in-memory SF100 metadata catalog: the
 * first (cold) plan in this JVM, then the median and best of {@code rounds} warm plans, and the
 * split planning time of Q1 at SF1 (7 data files). A standalone main, not a test:
 *
 * <pre>
 * mvn -q -o -pl planner -am test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.squall.planner.bench.PlanningBenchmark [-Dexec.args=20]
 * </pre>
 */
public final class PlanningBenchmark {
  private PlanningBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    DistributedPlanner planner = new DistributedPlanner(Planning.SF100);
    System.out.printf("%-5s %10s %10s %10s %7s%n", "query", "cold ms", "median ms", "best ms", "stages");
    double totalMedian = 0;
    for (int q = 1; q <= 22; q++) {
      String sql = TpchQueries.query(q);
      long start = System.nanoTime();
      PlannedQuery planned = planner.plan(sql, Planning.SETTINGS);
      double cold = (System.nanoTime() - start) / 1e6;
      double[] warm = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        long t = System.nanoTime();
        planner.plan(sql, Planning.SETTINGS);
        warm[r] = (System.nanoTime() - t) / 1e6;
      }
      Arrays.sort(warm);
      totalMedian += warm[rounds / 2];
      System.out.printf("Q%-4d %10.1f %10.1f %10.1f %7d%n", q, cold, warm[rounds / 2], warm[0],
          planned.stageGraph().getStagesCount());
    }
    System.out.printf("sum of medians: %.1f ms%n", totalMedian);

    PlannedQuery q1 = new DistributedPlanner(Planning.SF1).plan(TpchQueries.query(1), Planning.SETTINGS);
    SplitPlanner splits = new SplitPlanner(Planning.SF1, 8L << 20);
    double[] times = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long t = System.nanoTime();
      splits.plan(q1.stageGraph());
      times[r] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(times);
    System.out.printf("split planning Q1 (SF1, 8 MiB splits): median %.2f ms, best %.2f ms%n", times[rounds / 2], times[0]);
  }
}
