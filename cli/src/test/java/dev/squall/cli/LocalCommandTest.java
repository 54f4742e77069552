package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code squall local} refuses a bad {@code --faults} file or scale factor before starting anything. */
class LocalCommandTest {
  private static String[] run(String... args) {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = new CommandLine(new LocalCommand()).execute(args);
    } finally {
      System.setErr(err);
    }
    return new String[] {String.valueOf(code), captured.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void aMissingFaultsFileIsNamedAsMissing(@TempDir Path dir) {
    Path missing = dir.resolve("faults.json");
    String[] r = run("--faults", missing.toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("--faults " + missing + ": no such file");
  }

  @Test
  void aFaultsFileWithANonNumericStageIsRefusedNamingTheField(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("faults.json"),
        "{\"rules\": [{\"target\": \"task\", \"stage\": \"one\", \"action\": \"crash\"}]}");
    String[] r = run("--faults", file.toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("fault rule 0").contains("\"stage\" must be a whole number");
  }

  @Test
  void aTpcdsScaleFactorThatIsNotPositiveIsRefused() {
    String[] r = run("--tpcds", "0");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("--tpcds must be a positive scale factor, got 0.0");
  }

  @Test
  void aTaskConcurrencyUnderOneIsAUsageErrorNamingTheFlag() {
    String[] r = run("--task-concurrency=0");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("--task-concurrency must be 1 or more, not 0");
  }
}
