package dev.squall.coordinator.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The coordinator tells its own actions from API Gateway events. */
class CoordinatorActionsTest {
  @Test
  void resumeAndSweepPayloadsRoundTrip() {
    assertThat(CoordinatorActions.parse(CoordinatorActions.resume("123e4567-e89b-12d3-a456-426614174000")))
        .isEqualTo(new CoordinatorActions.Action("resume", "123e4567-e89b-12d3-a456-426614174000"));
    assertThat(CoordinatorActions.parse(CoordinatorActions.sweep())).isEqualTo(new CoordinatorActions.Action("sweep", null));
  }

  @Test
  void apiGatewayEventIsNoActionEvenWhenItsBodyNamesOne() {
    String event = "{\"version\":\"2.0\",\"rawPath\":\"/v1/queries\",\"requestContext\":{\"http\":{\"method\":\"POST\"}},"
        + "\"body\":\"{\\\"squallAction\\\":\\\"sweep\\\"}\"}";
    assertThat(CoordinatorActions.parse(event.getBytes(StandardCharsets.UTF_8))).isNull();
    assertThat(CoordinatorActions.parse("{\"squallAction\":".getBytes(StandardCharsets.UTF_8))).isNull();
    assertThat(CoordinatorActions.parse(new byte[0])).isNull();
  }
}
