package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A query's data under {@code jobs/<id>/} is deleted after its answer, on a coordinator thread; the
 * local stack stopped right after an answer still finishes that deletion. The coordinator's LISTs of
 * job prefixes are held 1 s by the fault plan, so the deletion is surely still waiting when the
 * stack is told to stop; the objects are then looked for in the local S3's directory.
 */
class JobDataDeletionEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void stoppingTheStackFinishesTheDeletionsQueuedAfterAnswers() throws Exception {
    try (TestStack stack = TestStack.startWith(0.01, 1_000_000, o -> o)) {
      stack.installFaults("{\"rules\": [{\"target\": \"s3\", \"operation\": \"ListObjectsV2\", \"key\": \"jobs/.+\","
          + " \"action\": \"delay\", \"seconds\": 1, \"times\": -1}]}");
      HttpResponse<byte[]> r = stack.post("select count(*) from tpch.nation", Map.of(), "application/json");
      assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
      assertThat(JSON.readTree(r.body()).at("/rows/0/0").asLong()).isEqualTo(25);
      assertThat(jobObjects(stack)).as("the deletion waits in its held LIST").isNotEmpty();

      stack.deployment.close();

      assertThat(jobObjects(stack)).as("objects left under jobs/ after the stack stopped").isEmpty();
    }
  }

  /** Files under the shuffle bucket's jobs/ in the local S3's directory (the stack may be stopped). */
  private static List<Path> jobObjects(TestStack stack) throws Exception {
    Path jobs = stack.dataDir().resolve("s3").resolve(LocalDeployment.SHUFFLE_BUCKET).resolve("jobs");
    if (!Files.exists(jobs)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(jobs)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }
}
