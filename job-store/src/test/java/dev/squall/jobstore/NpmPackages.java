package dev.squall.jobstore;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * npm packages for tests (dynalite, the HCL parser of the Terraform tests): installs one with npm
 * into a cache directory once ({@code ${java.io.tmpdir}/squall-<name>/<version>}), guarded by a file
 * lock so that parallel builds do not install over each other. Nothing lands in the source tree.
 */
public final class NpmPackages {
  private NpmPackages() {}

  /**
   * Installs {@code spec} (e.g. {@code dynalite@4}) under {@code home} unless {@code probe}, a file
   * the package installs, is already there.
   *
   * @return {@code home}
   * @throws IllegalStateException if npm is missing or the install fails; the message names the
   *     cause and shows the end of npm's output
   */
  public static Path install(String spec, Path home, Path probe) {
    Path done = home.resolve(".installed");
    try {
      Files.createDirectories(home);
      try (FileChannel lockFile = FileChannel.open(home.resolve(".lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
        if (Files.exists(done) && Files.exists(probe)) {
          return home;
        }
        Path npm = onPath("npm").orElseThrow(() -> new IllegalStateException(
            spec + " is installed with npm, but 'npm' is not on the PATH; install Node 20 with npm"));
        Path installLog = home.resolve("npm-install.log");
        Process p = new ProcessBuilder(npm.toString(), "install", "--no-audit", "--no-fund", "--prefix",
            home.toString(), spec)
            .redirectErrorStream(true)
            .redirectOutput(installLog.toFile())
            .start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
          p.destroyForcibly();
          throw new IllegalStateException("npm install " + spec + " took more than 5 minutes; output: "
              + tail(installLog));
        }
        if (p.exitValue() != 0 || !Files.exists(probe)) {
          throw new IllegalStateException("npm install " + spec + " into " + home + " failed (exit "
              + p.exitValue() + "); output: " + tail(installLog));
        }
        Files.writeString(done, spec + "\n");
        return home;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot install " + spec + " into " + home, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while installing " + spec, e);
    }
  }

  /** An executable on the PATH ({@code .cmd}/{@code .exe} on Windows), if any. */
  public static Optional<Path> onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    boolean windows = System.getProperty("os.name", "").toLowerCase().startsWith("windows");
    List<String> names = windows ? List.of(program + ".cmd", program + ".exe") : List.of(program);
    for (String dir : path.split(File.pathSeparator)) {
      for (String name : names) {
        Path candidate = Path.of(dir, name);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  /** The last 2,000 characters of a log file, for error messages. */
  public static String tail(Path file) {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }
}
