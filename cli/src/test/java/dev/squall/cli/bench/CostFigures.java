package dev.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.squall.coordinator.cost.PriceTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one query used at one scale factor, from the {@code cost} object of its job summary
 * (docs/cost.md), plus the bytes Athena would scan for it ({@link AthenaScanEstimate}). S3 requests
 * are the tasks' and the coordinator's together.
 *
 * @param query the query's name, e.g. {@code Q1}
 * @param scaleFactor the TPC-H scale factor it ran at
 * @param wallMillis the job's wall time (summary {@code wallMillis}), milliseconds
 * @param taskGbSeconds task attempts' GB-seconds plus the invokers' ({@code taskGbSeconds + invokerGbSeconds})
 * @param coordinatorGbSeconds the coordinator's GB-seconds (its wall time × its memory)
 * @param invocations Lambda invocations: tasks, invokers and coordinator
 * @param put S3 PUT-class requests (PUT, COPY, multipart calls)
 * @param get S3 GET requests
 * @param list S3 LIST requests
 * @param head S3 HEAD requests
 * @param delete S3 DELETE requests (free)
 * @param jobStoreReads job-store reads (priced as DynamoDB read units)
 * @param jobStoreWrites job-store writes (priced as DynamoDB write units)
 * @param bytesScanned bytes of the data-file ranges the query's splits covered (every column)
 * @param athenaBytes bytes of the Parquet column chunks of the columns the query names, per table it scans
 * @param dollars the summary's own price of the query
 */
record CostFigures(String query, double scaleFactor, double wallMillis, double taskGbSeconds, double coordinatorGbSeconds,
    double invocations, double put, double get, double list, double head, double delete, double jobStoreReads,
    double jobStoreWrites, double bytesScanned, double athenaBytes, double dollars) {
  /** Athena's price per TB (10^12 bytes) scanned, us-east-1 (as of November 2024). */
  static final double ATHENA_DOLLARS_PER_TB = 5.0;
  /** Athena bills at least 10 MB per query. */
  static final double ATHENA_MIN_BYTES = 10e6;
  static final double TB = 1e12;

  /** The figures of a query's job summary (the {@code x-squall-summary} header's JSON). */
  static CostFigures of(String query, double scaleFactor, JsonNode summary, long athenaBytes) {
    JsonNode c = summary.path("cost");
    JsonNode t = c.path("s3");
    JsonNode k = c.path("coordinatorS3");
    return new CostFigures(query, scaleFactor, summary.path("wallMillis").asDouble(),
        c.path("taskGbSeconds").asDouble() + c.path("invokerGbSeconds").asDouble(), c.path("coordinatorGbSeconds").asDouble(),
        c.path("invocations").asDouble(), sum(t, k, "put"), sum(t, k, "get"), sum(t, k, "list"), sum(t, k, "head"),
        sum(t, k, "delete"), c.path("jobStoreReads").asDouble(), c.path("jobStoreWrites").asDouble(),
        c.path("bytesScanned").asDouble(), athenaBytes, c.path("dollars").asDouble());
  }

  private static double sum(JsonNode a, JsonNode b, String field) {
    return a.path(field).asDouble() + b.path(field).asDouble();
  }

  /** All S3 requests. */
  double s3Requests() {
    return put + get + list + head + delete;
  }

  /**
   * The price of these figures at {@code prices} (docs/cost.md's formula); equal to {@link #dollars}
   * for measured figures at the summary's own price table.
   */
  double dollarsAt(PriceTable prices) {
    return (taskGbSeconds + coordinatorGbSeconds) * prices.lambdaGbSecond() + invocations * prices.lambdaRequest()
        + (put + list) * prices.s3Put() + (get + head) * prices.s3Get() + jobStoreReads * prices.dynamoDbRead()
        + jobStoreWrites * prices.dynamoDbWrite();
  }

  /** As {@link #dollarsAt}, without the coordinator's GB-seconds (a figure of the local machine's wall time). */
  double dollarsWithoutCoordinatorAt(PriceTable prices) {
    return dollarsAt(prices) - coordinatorGbSeconds * prices.lambdaGbSecond();
  }

  /** What Athena would charge for the query: $5 per TB of {@link #athenaBytes}, at least 10 MB. */
  double athenaDollars() {
    return Math.max(athenaBytes, ATHENA_MIN_BYTES) / TB * ATHENA_DOLLARS_PER_TB;
  }

  /** Figure-wise sum (for totals); the name and scale factor are given. */
  static CostFigures total(String name, double scaleFactor, List<CostFigures> all) {
    double[] s = new double[FIELDS];
    for (CostFigures f : all) {
      double[] v = f.values();
      for (int i = 0; i < FIELDS; i++) {
        s[i] += v[i];
      }
    }
    return fromValues(name, scaleFactor, s);
  }

  /**
   * The straight line through two measurements of the same query, {@code figure = a + b·SF}, taken
   * figure by figure and evaluated at {@code scaleFactor}. Figures that would come out negative
   * (a figure that shrank with the scale factor, e.g. noise in a fixed cost) are held at the larger
   * measurement instead.
   *
   * @throws IllegalArgumentException when both measurements are at the same scale factor
   */
  static CostFigures extrapolate(CostFigures low, CostFigures high, double scaleFactor) {
    if (low.scaleFactor == high.scaleFactor) {
      throw new IllegalArgumentException("two scale factors are needed, got " + low.scaleFactor + " twice");
    }
    double[] a = low.values();
    double[] b = high.values();
    double[] out = new double[FIELDS];
    for (int i = 0; i < FIELDS; i++) {
      double slope = (b[i] - a[i]) / (high.scaleFactor - low.scaleFactor);
      double value = a[i] + slope * (scaleFactor - low.scaleFactor);
      out[i] = value < 0 ? Math.max(a[i], b[i]) : value;
    }
    return fromValues(low.query, scaleFactor, out);
  }

  private static final int FIELDS = 14;

  private double[] values() {
    return new double[] {wallMillis, taskGbSeconds, coordinatorGbSeconds, invocations, put, get, list, head, delete,
        jobStoreReads, jobStoreWrites, bytesScanned, athenaBytes, dollars};
  }

  private static CostFigures fromValues(String query, double scaleFactor, double[] v) {
    return new CostFigures(query, scaleFactor, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
        v[12], v[13]);
  }

  /** Writes the figures as tab-separated lines (query, scale factor, then the figures in record order). */
  static void write(Path file, List<CostFigures> all) throws IOException {
    List<String> lines = new ArrayList<>();
    for (CostFigures f : all) {
      StringBuilder line = new StringBuilder(f.query).append('\t').append(f.scaleFactor);
      for (double v : f.values()) {
        line.append('\t').append(v);
      }
      lines.add(line.toString());
    }
    Files.write(file, lines);
  }

  /** Reads what {@link #write} wrote. */
  static List<CostFigures> read(Path file) throws IOException {
    List<CostFigures> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split("\t");
      if (f.length != FIELDS + 2) {
        throw new IOException(file + ": expected " + (FIELDS + 2) + " fields, got " + f.length + " in: " + line);
      }
      double[] v = new double[FIELDS];
      for (int i = 0; i < FIELDS; i++) {
        v[i] = Double.parseDouble(f[i + 2]);
      }
      out.add(fromValues(f[0], Double.parseDouble(f[1]), v));
    }
    return out;
  }
}
