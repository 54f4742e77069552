package dev.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * The one line the CLI prints after an answer to say what the query cost, from the summary's
 * {@code cost} object (docs/api.md):
 * {@code cost: $0.000031 (aws-us-east-1-2024-11): 4.1 GB-s tasks + 9.0 GB-s coordinator, 9 invocations,
 * S3 4 PUT 12 GET 1 LIST 8 HEAD 1 DELETE, job store 20 reads 31 writes, 1.2 MB scanned} (requests of
 * the tasks and the coordinator together).
 */
final class CostLine {
  private CostLine() {}

  /** The line, or null when the summary carries no cost. */
  static String of(JsonNode summary) {
    JsonNode c = summary == null ? null : summary.get("cost");
    if (c == null || !c.isObject()) {
      return null;
    }
    JsonNode t = c.path("s3");
    JsonNode k = c.path("coordinatorS3");
    return String.format(Locale.ROOT,
        "cost: $%.6f (%s): %.1f GB-s tasks + %.1f GB-s coordinator, %d invocations, S3 %d PUT %d GET %d LIST"
            + " %d HEAD %d DELETE, job store %d reads %d writes, %s scanned",
        c.path("dollars").asDouble(), c.path("priceTable").asText(), c.path("taskGbSeconds").asDouble(),
        c.path("coordinatorGbSeconds").asDouble(), c.path("invocations").asLong(),
        sum(t, k, "put"), sum(t, k, "get"), sum(t, k, "list"), sum(t, k, "head"), sum(t, k, "delete"),
        c.path("jobStoreReads").asLong(), c.path("jobStoreWrites").asLong(), bytes(c.path("bytesScanned").asLong()));
  }

  private static long sum(JsonNode a, JsonNode b, String field) {
    return a.path(field).asLong() + b.path(field).asLong();
  }

  private static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KB", "MB", "GB", "TB", "PB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
