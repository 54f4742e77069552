package dev.squall.task.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * The Quarkus Lambda adapter of the task function, driven through Quarkus' mock Lambda event
 * server (the Lambda runtime API polled by the real runtime loop): the payload reaches the core
 * and its TaskResult comes back.
 */
@QuarkusTest
class TaskLambdaHandlerTest {
  private HttpResponse<byte[]> invoke(byte[] payload) throws Exception {
    int port = ConfigProvider.getConfig().getOptionalValue("quarkus.lambda.mock-event-server.test-port", Integer.class).orElse(8081);
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port))
        .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void taskSpecOfAnotherContractVersionIsAnsweredWithIncompatiblePlan() throws Exception {
    TaskSpec spec = TaskSpec.newBuilder().setSchemaFingerprint("0123456789abcdef").setJobId("job-q").setStageId(2)
        .setPartition(5).setAttempt(1).build();
    HttpResponse<byte[]> response = invoke(TaskPayloads.encodeSpec(spec));
    assertThat(response.statusCode()).isEqualTo(200);
    TaskResult result = TaskPayloads.decodeResult(response.body());
    assertThat(result.getJobId()).isEqualTo("job-q");
    assertThat(result.getPartition()).isEqualTo(5);
    assertThat(result.getError().getCode()).isEqualTo(ErrorCode.INCOMPATIBLE_PLAN);
    assertThat(result.getError().getMessage()).contains("0123456789abcdef");
  }

  @Test
  void payloadThatIsNotATaskSpecIsAFunctionError() throws Exception {
    HttpResponse<byte[]> response = invoke("{\"hello\":1}".getBytes());
    assertThat(response.statusCode()).isGreaterThanOrEqualTo(400);
    assertThat(new String(response.body())).contains("taskSpec");
  }
}
