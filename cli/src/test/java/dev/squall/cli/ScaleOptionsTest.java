package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.cli.local.ScaleEmulation;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The scale model options of {@code squall local}: parsed into the model, bad values named. */
class ScaleOptionsTest {
  private static ScaleOptions parse(String... args) {
    LocalCommand local = new LocalCommand();
    new CommandLine(local).parseArgs(args);
    return local.scale;
  }

  @Test
  void optionsBecomeTheLambdaAndS3Models() {
    ScaleEmulation e = parse("--lambda-cold-start-ms=250", "--lambda-latency-ms=10", "--lambda-scaling=1000/10",
        "--account-concurrency=1000", "--s3-latency-ms=20", "--s3-prefix-rates=3500/5500").toEmulation();
    assertThat(e.lambda().coldStart()).isEqualTo(Duration.ofMillis(250));
    assertThat(e.lambda().invocationLatency()).isEqualTo(Duration.ofMillis(10));
    assertThat(e.lambda().scalingBurst()).isEqualTo(1000);
    assertThat(e.lambda().scalingPeriod()).isEqualTo(Duration.ofSeconds(10));
    assertThat(e.accountConcurrency()).isEqualTo(1000);
    assertThat(e.s3().latency()).isEqualTo(Duration.ofMillis(20));
    assertThat(e.s3().writesPerSecond()).isEqualTo(3500);
    assertThat(e.s3().readsPerSecond()).isEqualTo(5500);
  }

  @Test
  void withoutOptionsNothingIsModeled() {
    ScaleEmulation e = parse().toEmulation();
    assertThat(e.lambda().scalingBurst()).isZero();
    assertThat(e.lambda().coldStart()).isZero();
    assertThat(e.s3().isOff()).isTrue();
    assertThat(e.accountConcurrency()).isZero();
  }

  @Test
  void aMalformedPairIsNamed() {
    assertThatThrownBy(() -> parse("--s3-prefix-rates=fast").toEmulation())
        .hasMessage("--s3-prefix-rates takes WRITES/READS (two whole numbers, 0 or more), not fast");
    assertThatThrownBy(() -> parse("--lambda-scaling=0/10").toEmulation()).hasMessageContaining("--lambda-scaling");
  }
}
