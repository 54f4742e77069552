package dev.squall.proto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TaskPayloadsTest {
  @Test
  void specRoundTripsThroughJsonPayload() {
    TaskSpec spec = TaskSpec.newBuilder().setJobId("job-1").setStageId(3).setPartition(7).setAttempt(2)
        .setSchemaFingerprint(WireContract.fingerprint()).setMemoryBudgetBytes(1L << 30).build();
    byte[] payload = TaskPayloads.encodeSpec(spec);
    assertThat(new String(payload, StandardCharsets.US_ASCII)).startsWith("{\"taskSpec\":\"");
    assertThat(TaskPayloads.decodeSpec(payload)).isEqualTo(spec);
  }

  @Test
  void resultRoundTripsThroughJsonPayload() {
    TaskResult result = TaskResult.newBuilder().setJobId("j").setStageId(1).setOutputObjectKey("k").build();
    assertThat(TaskPayloads.decodeResult(TaskPayloads.encodeResult(result))).isEqualTo(result);
  }

  @Test
  void malformedPayloadIsRefusedWithItsHead() {
    assertThatThrownBy(() -> TaskPayloads.decodeSpec("{\"sql\": 1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("taskSpec")
        .hasMessageContaining("{\"sql\": 1}");
  }

  @Test
  void payloadWithInvalidProtobufIsRefused() {
    assertThatThrownBy(() -> TaskPayloads.decodeSpec("{\"taskSpec\":\"/////w==\"}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("valid squall.v1.TaskSpec");
  }
}
