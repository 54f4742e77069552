package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.local.faults.Faults;
import dev.squall.proto.TaskPayloads;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The fault wrapper around the local task function passes every payload form the coordinator sends. */
class LocalFaultsTest {
  @Test
  void aSpecStoredInS3ReachesTheTaskFunction() throws Exception {
    // Specs over the 6 MB inline limit travel as {"taskSpecRef": ...}; the wrapper is installed even
    // without a fault plan, so it must not try to decode them inline.
    byte[] payload = TaskPayloads.encodeSpecRef(new TaskPayloads.ObjectRef("shuffle", "jobs/j/specs/s0p0a0.pb"));
    byte[] answer = "{\"taskResult\":\"\"}".getBytes(StandardCharsets.UTF_8);
    byte[] got = new LocalFaults(new Faults()).task((p, ctx) -> answer).handle(payload, null);
    assertThat(got).isEqualTo(answer);
  }
}
