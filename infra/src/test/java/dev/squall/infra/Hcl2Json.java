package dev.squall.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.jobstore.NpmPackages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Terraform's HCL as JSON through {@code @cdktf/hcl2json} (npm; HashiCorp's HCL parser compiled to
 * WebAssembly), which the tests install with npm into {@code ${java.io.tmpdir}/squall-hcl2json/<version>}
 * once: Terraform itself is not needed. Blocks come out as in Terraform's JSON syntax, each block
 * body in a list; expressions that are not literals come out as {@code "${...}"} strings.
 */
final class Hcl2Json {
  static final String VERSION = "0.21.0";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCRIPT = """
      const { parse } = require('@cdktf/hcl2json');
      const fs = require('fs');
      (async () => {
        const out = {};
        for (const file of process.argv.slice(2)) {
          out[file] = await parse(file, fs.readFileSync(file, 'utf8'));
        }
        process.stdout.write(JSON.stringify(out));
      })().catch(e => { process.stderr.write(String(e && e.message || e)); process.exit(2); });
      """;

  private Hcl2Json() {}

  /**
   * Parses each file.
   *
   * @return an object from file path to its parsed JSON
   * @throws IllegalStateException when Node or npm is missing or a file does not parse; the
   *     message carries the parser's error (file and line)
   */
  static JsonNode parse(List<Path> files) {
    Path node = NpmPackages.onPath("node").orElseThrow(() -> new IllegalStateException(
        "the HCL parser needs Node.js: 'node' is not on the PATH; install Node 20"));
    Path home = Path.of(System.getProperty("java.io.tmpdir"), "squall-hcl2json", VERSION);
    NpmPackages.install("@cdktf/hcl2json@" + VERSION, home,
        home.resolve("node_modules").resolve("@cdktf").resolve("hcl2json").resolve("package.json"));
    try {
      Path script = home.resolve("parse.js");
      if (!Files.exists(script) || !Files.readString(script).equals(SCRIPT)) {
        Files.writeString(script, SCRIPT);
      }
      List<String> command = new ArrayList<>(List.of(node.toString(), script.toString()));
      files.forEach(f -> command.add(f.toAbsolutePath().toString()));
      Path out = Files.createTempFile("hcl2json", ".json");
      Path err = Files.createTempFile("hcl2json", ".err");
      try {
        Process p = new ProcessBuilder(command).directory(home.toFile())
            .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
          p.destroyForcibly();
          throw new IllegalStateException("hcl2json took more than 2 minutes");
        }
        if (p.exitValue() != 0) {
          throw new IllegalStateException("HCL does not parse: " + Files.readString(err, StandardCharsets.UTF_8));
        }
        return JSON.readTree(out.toFile());
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run hcl2json", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while parsing HCL", e);
    }
  }
}
