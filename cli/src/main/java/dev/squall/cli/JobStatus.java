package dev.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's status, as {@code GET /v1/queries/{id}} and {@code DELETE /v1/queries/{id}} answer it:
 * {@code {"queryId", "state", "cancelRequested", "createdAt", "updatedAt", "finishedAt",
 * "stages": [{"stageId", "tasksDone", "tasksTotal"}], "error": {...}, "summary": {...}}}.
 * Timestamps are ISO-8601 instants and may be absent; {@code error} is present for FAILED and
 * CANCELLED jobs, {@code summary} (the sync answer's summary object, kept as JSON) for SUCCEEDED.
 *
 * @param finishedAt null until the job is terminal
 * @param error null unless the job FAILED or was CANCELLED
 * @param summary null unless the job SUCCEEDED
 */
record JobStatus(String queryId, JobState state, boolean cancelRequested, Instant createdAt, Instant updatedAt,
    Instant finishedAt, List<StageProgress> stages, JobError error, JsonNode summary) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Tasks done and total in one stage. */
  record StageProgress(int stageId, long tasksDone, long tasksTotal) {
    boolean isDone() {
      return tasksTotal > 0 && tasksDone >= tasksTotal;
    }
  }

  /**
   * Why a job failed.
   *
   * @param line 1-based line in the SQL text, 0 when it does not apply
   * @param column 1-based column in the SQL text, 0 when it does not apply
   */
  record JobError(String code, String message, int line, int column) {
    /** {@code CODE: message (line L, column C)}, the position only when known. */
    String oneLine() {
      String where = line > 0 ? " (line " + line + (column > 0 ? ", column " + column : "") + ")" : "";
      return code + ": " + message + where;
    }
  }

  /** Tasks done over all stages. */
  long tasksDone() {
    return stages.stream().mapToLong(StageProgress::tasksDone).sum();
  }

  /** Tasks over all stages known so far (stages are added as the job plans them). */
  long tasksTotal() {
    return stages.stream().mapToLong(StageProgress::tasksTotal).sum();
  }

  /**
   * Parses a status body.
   *
   * @throws IOException naming the problem when the body is not JSON or lacks/garbles a field
   */
  static JobStatus parse(byte[] body) throws IOException {
    JsonNode tree;
    try {
      tree = JSON.readTree(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IOException("the job status is not valid JSON: " + e.getOriginalMessage(), e);
    }
    if (tree == null || !tree.isObject()) {
      throw new IOException("the job status is not a JSON object");
    }
    return fromJson(tree);
  }

  /** Parses a status object; see {@link #parse(byte[])}. */
  static JobStatus fromJson(JsonNode tree) throws IOException {
    String queryId = requiredText(tree, "queryId");
    JobState state;
    try {
      state = JobState.parse(requiredText(tree, "state"));
    } catch (IllegalArgumentException e) {
      throw new IOException("job status of query " + queryId + ": " + e.getMessage(), e);
    }
    List<StageProgress> stages = new ArrayList<>();
    JsonNode stageArray = tree.path("stages");
    if (!stageArray.isMissingNode() && !stageArray.isNull()) {
      if (!stageArray.isArray()) {
        throw new IOException("job status field \"stages\" is not an array");
      }
      for (JsonNode s : stageArray) {
        stages.add(new StageProgress(requiredInt(s, "stageId"), requiredInt(s, "tasksDone"), requiredInt(s, "tasksTotal")));
      }
    }
    JobError error = null;
    JsonNode e = tree.path("error");
    if (e.isObject()) {
      error = new JobError(e.path("code").asText("UNKNOWN"), e.path("message").asText(""),
          e.path("line").asInt(0), e.path("column").asInt(0));
    }
    JsonNode summary = tree.path("summary").isObject() ? tree.get("summary") : null;
    return new JobStatus(queryId, state, tree.path("cancelRequested").asBoolean(false), instant(tree, "createdAt"),
        instant(tree, "updatedAt"), instant(tree, "finishedAt"), List.copyOf(stages), error, summary);
  }

  private static String requiredText(JsonNode tree, String field) throws IOException {
    JsonNode v = tree.get(field);
    if (v == null || !v.isTextual() || v.asText().isEmpty()) {
      throw new IOException("job status lacks the string field \"" + field + "\"");
    }
    return v.asText();
  }

  private static int requiredInt(JsonNode tree, String field) throws IOException {
    JsonNode v = tree.get(field);
    if (v == null || !v.canConvertToInt() || v.asInt() < 0) {
      throw new IOException("job status stage lacks the non-negative integer field \"" + field + "\"");
    }
    return v.asInt();
  }

  private static Instant instant(JsonNode tree, String field) throws IOException {
    JsonNode v = tree.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    try {
      return Instant.parse(v.asText());
    } catch (DateTimeParseException ex) {
      throw new IOException("job status field \"" + field + "\" is not an ISO-8601 instant: " + v.asText(), ex);
    }
  }
}
