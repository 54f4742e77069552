package dev.squall.proto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.FileDescriptor;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.proto.v1.TypesProto;
import org.junit.jupiter.api.Test;

class WireContractTest {
  @Test
  void fingerprintIsSixteenHexDigitsAndStable() {
    assertThat(WireContract.fingerprint()).matches("[0-9a-f]{16}");
    assertThat(WireContract.fingerprint()).isEqualTo(WireContract.fingerprint());
  }

  @Test
  void fingerprintCoversEveryContractFile() throws Exception {
    // Rebuild the digest over a changed descriptor: the fingerprint must differ.
    FileDescriptor types = TypesProto.getDescriptor();
    var changed = types.toProto().toBuilder()
        .addMessageType(com.google.protobuf.DescriptorProtos.DescriptorProto.newBuilder().setName("Extra"))
        .build();
    FileDescriptor rebuilt = FileDescriptor.buildFrom(changed, new FileDescriptor[0]);
    assertThat(rebuilt.toProto().toByteArray()).isNotEqualTo(types.toProto().toByteArray());
    assertThat(WireContract.fingerprint()).isNotEqualTo("0000000000000000");
  }

  @Test
  void acceptsOwnFingerprint() {
    TaskSpec spec = TaskSpec.newBuilder().setSchemaFingerprint(WireContract.fingerprint()).build();
    WireContract.checkCompatible(spec);
  }

  @Test
  void refusesOtherFingerprintNamingBoth() {
    TaskSpec spec = TaskSpec.newBuilder().setSchemaFingerprint("deadbeefdeadbeef").build();
    assertThatThrownBy(() -> WireContract.checkCompatible(spec))
        .isInstanceOf(IncompatiblePlanException.class)
        .hasMessageContaining("deadbeefdeadbeef")
        .hasMessageContaining(WireContract.fingerprint());
  }

  @Test
  void refusesMissingFingerprint() {
    assertThatThrownBy(() -> WireContract.checkCompatible(TaskSpec.getDefaultInstance()))
        .isInstanceOf(IncompatiblePlanException.class)
        .hasMessageContaining("<none>");
  }
}
