package dev.squall.engine.bench;

import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.runtimefilter.KeyFilters;
import dev.squall.engine.runtimefilter.KeySummaryBuilder;
import dev.squall.engine.runtimefilter.ProbeKeyFilter;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.KeySummaryRequest;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Keys per second of a runtime filter's build side (a task's key summary, {@link KeySummaryBuilder})
 * and probe side (the scan's test, {@link ProbeKeyFilter}) for 1.5 M BIGINT keys and 100 k VARCHAR
 * keys, each past the listed-keys bound so the Bloom filter is exercised. The probe keys are half
 * build keys, half absent keys within the build range (the range test alone cannot drop them).
 *
 * <p>Usage: {@code RuntimeFilterBenchmark [rounds]}; prints one line per case and round, rates in
 * keys per second of the thread's CPU time.
 */
public final class RuntimeFilterBenchmark {
  private static final int BATCH = 8192;
  // Thread CPU time, not wall time: the figures hold on a shared, loaded machine.
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private RuntimeFilterBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    SplittableRandom random = new SplittableRandom(7);
    int longKeys = 1_500_000;
    List<ColumnBatch> longBuild = longBatches(longKeys, random, 0);
    List<ColumnBatch> longProbe = longBatches(longKeys, random, 1);
    int stringKeys = 100_000;
    List<ColumnBatch> stringBuild = stringBatches(stringKeys, random, 0);
    List<ColumnBatch> stringProbe = stringBatches(stringKeys, random, 1);
    for (int round = 0; round < rounds; round++) {
      run("bigint", longBuild, longProbe, longKeys);
      run("varchar", stringBuild, stringProbe, stringKeys);
    }
  }

  private static void run(String name, List<ColumnBatch> build, List<ColumnBatch> probe, int keys) {
    KeySummaryRequest request = KeySummaryRequest.newBuilder().setFilterId(1).addColumns(0).setMaxKeys(keys * 2L).build();
    long t0 = CPU.getCurrentThreadCpuTime();
    KeySummaryBuilder builder = new KeySummaryBuilder(request);
    for (ColumnBatch b : build) {
      builder.add(b);
    }
    KeyFilter part = builder.toProto().getColumns(0);
    long t1 = CPU.getCurrentThreadCpuTime();
    KeyFilter merged = KeyFilters.merge(List.of(part), keys * 2L).orElseThrow();
    ProbeKeyFilter filter = new ProbeKeyFilter(merged);
    long t2 = CPU.getCurrentThreadCpuTime();
    long kept = 0;
    int[] rows = new int[BATCH];
    for (ColumnBatch b : probe) {
      kept += probeBatch(filter, b.column(0), rows, b.rows());
    }
    long t3 = CPU.getCurrentThreadCpuTime();
    System.out.printf("%-8s keys=%d bloomBytes=%d build=%.1f Mkeys/s probe=%.1f Mkeys/s kept=%.3f%n", name, keys,
        merged.getBloom().size(), keys / ((t1 - t0) / 1e3), keys / ((t3 - t2) / 1e3), (double) kept / keys);
  }

  /** Rows of one batch that pass the filter. */
  private static int probeBatch(ProbeKeyFilter filter, Column col, int[] rows, int n) {
    for (int r = 0; r < n; r++) {
      rows[r] = r;
    }
    return filter.select(col, rows, n);
  }

  /** Keys {@code 2i} (parity 0, the build side) or {@code 2i + i % 2} (parity 1: half hit, half miss within the range), shuffled. */
  private static List<ColumnBatch> longBatches(int keys, SplittableRandom random, int parity) {
    long[] all = new long[keys];
    for (int i = 0; i < keys; i++) {
      all[i] = 2L * i + (parity == 0 ? 0 : i % 2);
    }
    shuffle(all, random);
    List<ColumnBatch> out = new ArrayList<>();
    for (int from = 0; from < keys; from += BATCH) {
      int n = Math.min(BATCH, keys - from);
      long[] v = new long[n];
      System.arraycopy(all, from, v, 0, n);
      out.add(new ColumnBatch(new Column[] {new LongColumn(SqlType.BIGINT, v, null, n)}, n));
    }
    return out;
  }

  private static List<ColumnBatch> stringBatches(int keys, SplittableRandom random, int parity) {
    long[] ids = new long[keys];
    for (int i = 0; i < keys; i++) {
      ids[i] = 2L * i + (parity == 0 ? 0 : i % 2);
    }
    shuffle(ids, random);
    List<ColumnBatch> out = new ArrayList<>();
    for (int from = 0; from < keys; from += BATCH) {
      int n = Math.min(BATCH, keys - from);
      BytesColumn c = BytesColumn.withCapacity(SqlType.VARCHAR, n, n * 20);
      for (int i = 0; i < n; i++) {
        c.append(String.format("Customer#%09d", ids[from + i]).getBytes(StandardCharsets.UTF_8));
      }
      out.add(new ColumnBatch(new Column[] {c}, n));
    }
    return out;
  }

  private static void shuffle(long[] a, SplittableRandom random) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
