package dev.squall.shuffle;

import dev.squall.engine.hash.Murmur3;

/**
 * Where shuffle objects live in S3.
 *
 * <pre>
 *   &lt;jobPrefix&gt;/&lt;hh&gt;/s&lt;stage&gt;/m&lt;mapPartition&gt;/a&lt;attempt&gt;.arrows
 * </pre>
 * {@code hh} is two lowercase hex digits, {@code Murmur3.hashInt(mapPartition,
 * Murmur3.hashInt(stage, 0)) & 0xff}: the map outputs of a stage spread evenly over 256 key
 * prefixes, so S3 can split the job's keys across partitions of its index (S3 scales request
 * rates per prefix: about 3,500 PUT and 5,500 GET per second each). Everything of a job is under
 * {@code <jobPrefix>/}, so one listing finds it for deletion. The attempt is part of the key: a
 * retried or speculative attempt writes its own object and never replaces another's.
 */
public final class ShuffleKeys {
  /** File name suffix of a map output: an Arrow IPC stream per partition, then the footer. */
  public static final String SUFFIX = ".arrows";

  private ShuffleKeys() {}

  /**
   * The key of one map task attempt's output object.
   *
   * @throws IllegalArgumentException on an empty job prefix or a negative id
   */
  public static String mapOutputKey(String jobPrefix, int stageId, int mapPartition, int attempt) {
    if (stageId < 0 || mapPartition < 0 || attempt < 0) {
      throw new IllegalArgumentException("Invalid map task id: stage " + stageId + ", partition " + mapPartition
          + ", attempt " + attempt);
    }
    int spread = Murmur3.hashInt(mapPartition, Murmur3.hashInt(stageId, 0)) & 0xff;
    return jobRoot(jobPrefix) + String.format("%02x/s%d/m%d/a%d%s", spread, stageId, mapPartition, attempt, SUFFIX);
  }

  /**
   * The job prefix with exactly one trailing slash: every shuffle key of the job starts with it.
   *
   * @throws IllegalArgumentException if the prefix is empty, only slashes, or starts with a slash
   */
  public static String jobRoot(String jobPrefix) {
    if (jobPrefix == null) {
      throw new IllegalArgumentException("Shuffle job prefix is null");
    }
    String trimmed = jobPrefix;
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    if (trimmed.isEmpty() || trimmed.startsWith("/")) {
      throw new IllegalArgumentException("Invalid shuffle job prefix '" + jobPrefix
          + "': must be non-empty and must not start with '/'");
    }
    return trimmed + "/";
  }
}
