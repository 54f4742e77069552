package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JobStatusTest {
  private static JobStatus parse(String json) throws IOException {
    return JobStatus.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void runningJobWithStagesParses() throws IOException {
    JobStatus s = parse("""
        {"queryId": "q-1", "state": "RUNNING", "cancelRequested": false,
         "createdAt": "2026-11-29T20:00:00Z", "updatedAt": "2026-11-29T20:00:03.250Z",
         "stages": [{"stageId": 0, "tasksDone": 4, "tasksTotal": 4}, {"stageId": 1, "tasksDone": 1, "tasksTotal": 3}]}
        """);
    assertThat(s.queryId()).isEqualTo("q-1");
    assertThat(s.state()).isEqualTo(JobState.RUNNING);
    assertThat(s.cancelRequested()).isFalse();
    assertThat(s.createdAt()).isEqualTo(Instant.parse("2026-11-29T20:00:00Z"));
    assertThat(s.updatedAt()).isEqualTo(Instant.parse("2026-11-29T20:00:03.250Z"));
    assertThat(s.finishedAt()).isNull();
    assertThat(s.stages()).containsExactly(new JobStatus.StageProgress(0, 4, 4), new JobStatus.StageProgress(1, 1, 3));
    assertThat(s.tasksDone()).isEqualTo(5);
    assertThat(s.tasksTotal()).isEqualTo(7);
    assertThat(s.error()).isNull();
    assertThat(s.summary()).isNull();
  }

  @Test
  void failedJobCarriesItsErrorWithPosition() throws IOException {
    JobStatus s = parse("""
        {"queryId": "q-2", "state": "FAILED", "cancelRequested": false, "createdAt": "2026-11-29T20:00:00Z",
         "finishedAt": "2026-11-29T20:00:01+00:00", "stages": [],
         "error": {"code": "USER_ERROR", "message": "Column 'N_NAM' not found", "line": 1, "column": 8}}
        """);
    assertThat(s.state().isTerminal()).isTrue();
    assertThat(s.finishedAt()).isEqualTo(Instant.parse("2026-11-29T20:00:01Z"));
    assertThat(s.error()).isEqualTo(new JobStatus.JobError("USER_ERROR", "Column 'N_NAM' not found", 1, 8));
    assertThat(s.error().oneLine()).isEqualTo("USER_ERROR: Column 'N_NAM' not found (line 1, column 8)");
  }

  @Test
  void errorWithoutPositionHasNoPositionInItsLine() {
    assertThat(new JobStatus.JobError("EXTERNAL", "task 0.3 failed", 0, 0).oneLine()).isEqualTo("EXTERNAL: task 0.3 failed");
  }

  @Test
  void succeededJobKeepsTheSummaryObject() throws IOException {
    JobStatus s = parse("""
        {"queryId": "q-3", "state": "SUCCEEDED", "cancelRequested": false,
         "stages": [{"stageId": 0, "tasksDone": 2, "tasksTotal": 2}],
         "summary": {"stages": 1, "tasks": 2, "rows": 25}}
        """);
    assertThat(s.summary().path("rows").asLong()).isEqualTo(25);
    assertThat(s.createdAt()).isNull();
  }

  @Test
  void cancelRequestedIsRead() throws IOException {
    assertThat(parse("{\"queryId\": \"q\", \"state\": \"RUNNING\", \"cancelRequested\": true}").cancelRequested()).isTrue();
  }

  @Test
  void unknownStateIsNamed() {
    assertThatThrownBy(() -> parse("{\"queryId\": \"q\", \"state\": \"PAUSED\"}"))
        .isInstanceOf(IOException.class).hasMessageContaining("PAUSED");
  }

  @Test
  void missingQueryIdIsNamed() {
    assertThatThrownBy(() -> parse("{\"state\": \"RUNNING\"}")).hasMessageContaining("queryId");
  }

  @Test
  void badTimestampIsNamed() {
    assertThatThrownBy(() -> parse("{\"queryId\": \"q\", \"state\": \"QUEUED\", \"createdAt\": \"yesterday\"}"))
        .hasMessageContaining("createdAt").hasMessageContaining("yesterday");
  }

  @Test
  void stageWithoutTaskCountsIsNamed() {
    assertThatThrownBy(() -> parse("{\"queryId\": \"q\", \"state\": \"RUNNING\", \"stages\": [{\"stageId\": 0, \"tasksDone\": 1}]}"))
        .hasMessageContaining("tasksTotal");
  }

  @Test
  void nonJsonBodyIsNamed() {
    assertThatThrownBy(() -> parse("<html>Bad Gateway</html>")).hasMessageContaining("not valid JSON");
  }

  @Test
  void submissionCarriesItsUrls() throws IOException {
    Submission s = Submission.parse("""
        {"queryId": "abc", "state": "QUEUED", "statusUrl": "/v1/queries/abc", "resultUrl": "/v1/queries/abc/result"}
        """.getBytes(StandardCharsets.UTF_8));
    assertThat(s).isEqualTo(new Submission("abc", JobState.QUEUED, "/v1/queries/abc", "/v1/queries/abc/result"));
  }

  @Test
  void submissionWithoutUrlsFallsBackToTheDocumentedPaths() throws IOException {
    Submission s = Submission.parse("{\"queryId\": \"abc\", \"state\": \"RUNNING\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(s.statusUrl()).isEqualTo("/v1/queries/abc");
    assertThat(s.resultUrl()).isEqualTo("/v1/queries/abc/result");
    assertThat(s.state()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void submissionWithoutQueryIdIsRefused() {
    assertThatThrownBy(() -> Submission.parse("{\"state\": \"QUEUED\"}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("queryId");
  }
}
