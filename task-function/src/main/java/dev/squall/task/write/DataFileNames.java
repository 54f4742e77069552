package dev.squall.task.write;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.ErrorCode;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.iceberg.FileFormat;

/**
 * Names of the data files a writer task attempt creates:
 * {@code squall-<jobId>-s<stage>-p<partition>-a<attempt>-<seq>.parquet}, with {@code seq} counting
 * the attempt's files from 0 (5 digits, more when needed). The directory is the table's data
 * location plus the partition path (Iceberg's location provider decides; by default
 * {@code <table>/data/<field>=<value>/...}).
 *
 * <p>Every attempt has its own name prefix, so a re-run attempt never overwrites another attempt's
 * files, and whoever knows a losing attempt's identity can find its files by name
 * ({@link #isFileOfAttempt}).
 */
public final class DataFileNames {
  private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private final String prefix;
  private final String extension;

  /**
   * @throws EngineException INTERNAL_ERROR when the job id is empty or has characters other than
   *     letters, digits, '.', '_' and '-' (it becomes part of an object key)
   */
  public DataFileNames(String jobId, int stageId, int partition, int attempt, FileFormat format) {
    this.prefix = attemptPrefix(jobId, stageId, partition, attempt);
    this.extension = format.name().toLowerCase(Locale.ROOT);
  }

  /** The name of the attempt's {@code seq}-th file (from 0). */
  public String fileName(int seq) {
    return prefix + String.format(Locale.ROOT, "%05d", seq) + "." + extension;
  }

  /**
   * The name prefix every file of one attempt starts with:
   * {@code squall-<jobId>-s<stage>-p<partition>-a<attempt>-}.
   *
   * @throws EngineException INTERNAL_ERROR for a job id that cannot be part of a file name
   */
  public static String attemptPrefix(String jobId, int stageId, int partition, int attempt) {
    if (jobId == null || !JOB_ID.matcher(jobId).matches()) {
      throw new EngineException(ErrorCode.INTERNAL_ERROR,
          "job id '" + jobId + "' cannot name data files: use 1 to 128 letters, digits, '.', '_' or '-'");
    }
    return "squall-" + jobId + "-s" + stageId + "-p" + partition + "-a" + attempt + "-";
  }

  /**
   * Whether a data file path (any directory) is a file of the given attempt.
   *
   * @param path a full location or a bare file name
   */
  public static boolean isFileOfAttempt(String path, String jobId, int stageId, int partition, int attempt) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    String p = attemptPrefix(jobId, stageId, partition, attempt);
    if (!name.startsWith(p)) {
      return false;
    }
    String rest = name.substring(p.length());
    int dot = rest.indexOf('.');
    return dot > 0 && rest.substring(0, dot).chars().allMatch(Character::isDigit);
  }

  /**
   * Deletes the files an aborted attempt created, best effort: a file that cannot be deleted is
   * logged (the coordinator finds it by name later), not thrown.
   *
   * @param kind what the files are, for the log ("delete file", ...)
   */
  static void deleteAttemptFiles(org.apache.iceberg.io.FileIO io, java.util.List<String> locations, String kind) {
    for (String location : locations) {
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(DataFileNames.class).warn("could not delete {} {} of an aborted attempt: {}",
            kind, location, e.toString());
      }
    }
  }
}
