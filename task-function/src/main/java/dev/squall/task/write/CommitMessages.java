package dev.squall.task.write;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.UncheckedIOException;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.util.JsonUtil;

/**
 * The commit messages of writer tasks ({@code TaskResult.commit_messages}): one JSON document per
 * data file, in Iceberg's own content-file JSON ({@link ContentFileParser}, the form Iceberg's REST
 * scan planning uses): spec id, content "data", file path, format, partition values, record count,
 * file size, column sizes, value/null/NaN counts, lower/upper bounds (base64), split offsets,
 * sort order id.
 *
 * <p>The coordinator turns them back into {@link DataFile}s with {@link #parse} and appends them
 * in one commit. Only iceberg-core is needed for that.
 */
public final class CommitMessages {
  private CommitMessages() {}

  /** The commit message of a data file written for {@code spec} (the file's spec). */
  public static String toJson(DataFile file, PartitionSpec spec) {
    return ContentFileParser.toJson(file, spec);
  }

  /**
   * The data file a commit message describes.
   *
   * @param json one commit message
   * @param spec the partition spec the file was written for (its spec id must match the message's)
   * @throws IllegalArgumentException when the message is not JSON, not a content file of that spec
   *     (names the problem), or describes a delete file rather than a data file
   */
  public static DataFile parse(String json, PartitionSpec spec) {
    JsonNode node;
    try {
      node = JsonUtil.mapper().readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("commit message is not JSON: " + e.getOriginalMessage(), e);
    } catch (UncheckedIOException e) {
      throw new IllegalArgumentException("commit message is not JSON: " + e.getMessage(), e);
    }
    JsonNode specId = node.get("spec-id");
    if (specId != null && specId.isInt() && specId.asInt() != spec.specId()) {
      throw new IllegalArgumentException("commit message is for partition spec " + specId.asInt()
          + ", not spec " + spec.specId() + ": " + node.path("file-path").asText());
    }
    ContentFile<?> file;
    try {
      file = ContentFileParser.fromJson(node, spec);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("commit message is not a data file of partition spec "
          + spec.specId() + ": " + e.getMessage(), e);
    }
    if (file.content() != FileContent.DATA || !(file instanceof DataFile data)) {
      throw new IllegalArgumentException("commit message describes a " + file.content() + " file, not a data file: "
          + file.location());
    }
    return data;
  }
}
