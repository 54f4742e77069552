package dev.squall.local.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Payload format 2.0 response rules, function response to HTTP, without a server. */
class HttpApiResponseMapperTest {
  private static HttpApiResponse map(String payload) {
    return HttpApiResponseMapper.map(payload.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void jsonStringWithoutStatusCodeIsTheBodyAsIs() {
    HttpApiResponse response = map("\"just text\"");

    assertThat(response.status()).isEqualTo(200);
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("\"just text\"");
    assertThat(response.headers().get("Content-Type")).containsExactly("application/json");
  }

  @Test
  void objectWithoutStatusCodeIsTheBodyAsIs() {
    assertThat(map("{\"body\":\"not a structured response\"}").body())
        .isEqualTo("{\"body\":\"not a structured response\"}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void structuredResponseWithoutBodyHasAnEmptyBody() {
    HttpApiResponse response = map("{\"statusCode\":201,\"headers\":{\"x-job\":17}}");

    assertThat(response.status()).isEqualTo(201);
    assertThat(response.body()).isEmpty();
    assertThat(response.headers().get("x-job")).containsExactly("17");
  }

  @Test
  void malformedResponsesAreRefusedWith502NamingTheField() {
    assertThatThrownBy(() -> map("{\"statusCode\":\"two hundred\"}"))
        .isInstanceOfSatisfying(GatewayException.class, e -> assertThat(e.status()).isEqualTo(502))
        .hasMessageContaining("statusCode");
    assertThatThrownBy(() -> map("{\"statusCode\":999}")).hasMessageContaining("statusCode");
    assertThatThrownBy(() -> map("{\"statusCode\":200,\"body\":\"@@@\",\"isBase64Encoded\":true}"))
        .hasMessageContaining("isBase64Encoded");
    assertThatThrownBy(() -> map("{\"statusCode\":200,\"body\":{\"nested\":1}}")).hasMessageContaining("body");
    assertThatThrownBy(() -> map("{\"statusCode\":200,\"headers\":{\"x\":[1]}}")).hasMessageContaining("headers.x");
    assertThatThrownBy(() -> map("not json")).hasMessageContaining("not JSON");
    assertThatThrownBy(() -> map("")).isInstanceOf(GatewayException.class);
  }
}
