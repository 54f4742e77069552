package dev.squall.coordinator.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * The Quarkus Lambda adapter of the coordinator, driven through Quarkus' mock Lambda event server:
 * API Gateway 2.0 events in, API Gateway responses out.
 */
@QuarkusTest
class CoordinatorLambdaHandlerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonNode invoke(String event) throws Exception {
    int port = ConfigProvider.getConfig().getOptionalValue("quarkus.lambda.mock-event-server.test-port", Integer.class).orElse(8081);
    HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port))
        .POST(HttpRequest.BodyPublishers.ofString(event)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static String event(String method, String path, String body) {
    return "{\"version\":\"2.0\",\"rawPath\":\"" + path + "\",\"headers\":{\"content-type\":\"application/json\"},"
        + "\"requestContext\":{\"http\":{\"method\":\"" + method + "\",\"path\":\"" + path + "\"}}"
        + (body == null ? "" : ",\"body\":" + JSON.valueToTree(body) + ",\"isBase64Encoded\":false") + "}";
  }

  @Test
  void healthCheckAnswers() throws Exception {
    JsonNode r = invoke(event("GET", "/v1/health", null));
    assertThat(r.get("statusCode").asInt()).isEqualTo(200);
    assertThat(r.get("body").asText()).contains("ok");
  }

  @Test
  void queryOnUnconfiguredDeploymentNamesTheMissingSetting() throws Exception {
    JsonNode r = invoke(event("POST", "/v1/queries", "{\"sql\":\"select 1\"}"));
    assertThat(r.get("statusCode").asInt()).isEqualTo(500);
    assertThat(r.get("body").asText()).contains("SQUALL_TASK_FUNCTION");
  }

  @Test
  void emptyBodyIsAUserError() throws Exception {
    JsonNode r = invoke(event("POST", "/v1/queries", null));
    assertThat(r.get("statusCode").asInt()).isEqualTo(400);
  }
}
