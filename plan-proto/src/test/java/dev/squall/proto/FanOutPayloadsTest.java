package dev.squall.proto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.proto.v1.TaskSpec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The invoker payloads of two-level invocation: task payloads forwarded byte for byte, answers in order. */
class FanOutPayloadsTest {
  @Test
  void anInvokerRequestCarriesEachTaskPayloadUnchanged() {
    byte[] a = TaskPayloads.encodeSpec(TaskSpec.newBuilder().setJobId("j").setPartition(1).build());
    byte[] b = TaskPayloads.encodeSpecRef(new TaskPayloads.ObjectRef("bucket", "jobs/j/specs/s0-p2-a0.pb"));
    byte[] request = FanOutPayloads.encodeRequest(List.of(a, b));

    List<byte[]> decoded = FanOutPayloads.decodeRequest(request).orElseThrow();
    assertThat(decoded).hasSize(2);
    assertThat(decoded.get(0)).isEqualTo(a);
    assertThat(decoded.get(1)).isEqualTo(b);
    // A task's own payload is not an invoker request, nor the other way round.
    assertThat(FanOutPayloads.decodeRequest(a)).isEmpty();
    assertThat(TaskPayloads.specRef(request)).isEmpty();
  }

  @Test
  void answersKeepTheirOrderAndSayWhichTasksGotNone() {
    byte[] answer = "{\"taskResult\":\"AAE=\"}".getBytes(StandardCharsets.UTF_8);
    byte[] encoded = FanOutPayloads.encodeAnswer(List.of(FanOutPayloads.TaskAnswer.answered(answer),
        FanOutPayloads.TaskAnswer.failed("task function throttled: Rate Exceeded.")));

    List<FanOutPayloads.TaskAnswer> decoded = FanOutPayloads.decodeAnswer(encoded);
    assertThat(decoded).hasSize(2);
    assertThat(decoded.get(0).isAnswered()).isTrue();
    assertThat(decoded.get(0).answer()).isEqualTo(answer);
    assertThat(decoded.get(1).isAnswered()).isFalse();
    assertThat(decoded.get(1).invokeError()).isEqualTo("task function throttled: Rate Exceeded.");
    assertThat(FanOutPayloads.decodeAnswer(FanOutPayloads.encodeAnswer(List.of()))).isEmpty();
  }

  @Test
  void somethingElseIsNotTakenForAnAnswer() {
    assertThatThrownBy(() -> FanOutPayloads.decodeAnswer("{\"taskResult\":\"AAE=\"}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("taskAnswers");
    assertThatThrownBy(() -> FanOutPayloads.decodeAnswer("{\"taskAnswers\":[\"XAAE=\"]}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("R or E");
  }
}
