package dev.squall.jobstore;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * dynalite (the npm package, a DynamoDB API on LevelDB) for tests: installs it with npm into a
 * cache directory once ({@code ${java.io.tmpdir}/squall-dynalite/<version>}, guarded by a file
 * lock so that parallel builds do not install over each other), starts it in memory on a free port
 * of 127.0.0.1 and stops it (with any child process) on {@link #close}. Needs {@code node} and
 * {@code npm} on the PATH and the npm registry reachable.
 */
public final class DynaliteServer implements AutoCloseable {
  /** The npm version range installed. */
  public static final String VERSION = "4";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final int port;
  private final Path log;

  private DynaliteServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Installs dynalite if needed and starts it.
   *
   * @throws IllegalStateException if node or npm is missing, the install fails, or the server does
   *     not answer within 30 s; the message names the cause and the log file
   */
  public static DynaliteServer start() {
    Path node = onPath("node").orElseThrow(() -> new IllegalStateException(
        "dynalite needs Node.js: 'node' is not on the PATH (" + System.getenv("PATH") + "); install Node 20"));
    Path home = Path.of(System.getProperty("java.io.tmpdir"), "squall-dynalite", VERSION);
    Path cli = home.resolve("node_modules").resolve("dynalite").resolve("cli.js");
    install(home, cli);
    int port = freePort();
    Path log = home.resolve("dynalite-" + port + ".log");
    ProcessBuilder pb = new ProcessBuilder(node.toString(), cli.toString(), "--host", "127.0.0.1",
        "--port", Integer.toString(port), "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot start dynalite with " + node + ": " + e.getMessage(), e);
    }
    DynaliteServer server = new DynaliteServer(process, port, log);
    server.awaitPort();
    return server;
  }

  /** The endpoint, {@code http://127.0.0.1:<port>}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  private void awaitPort() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("dynalite exited with code " + process.exitValue() + " before answering; "
            + "output: " + tail(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        sleep(100);
      }
    }
    close();
    throw new IllegalStateException("dynalite did not answer on 127.0.0.1:" + port + " within " + START_TIMEOUT
        + "; output: " + tail(log));
  }

  /** Stops the server and its child processes. */
  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private static void install(Path home, Path cli) {
    Path done = home.resolve(".installed");
    try {
      Files.createDirectories(home);
      try (FileChannel lockFile = FileChannel.open(home.resolve(".lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
        if (Files.exists(done) && Files.exists(cli)) {
          return;
        }
        Path npm = onPath("npm").orElseThrow(() -> new IllegalStateException(
            "dynalite is installed with npm, but 'npm' is not on the PATH; install Node 20 with npm"));
        Path installLog = home.resolve("npm-install.log");
        Process p = new ProcessBuilder(npm.toString(), "install", "--no-audit", "--no-fund", "--prefix",
            home.toString(), "dynalite@" + VERSION)
            .redirectErrorStream(true)
            .redirectOutput(installLog.toFile())
            .start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
          p.destroyForcibly();
          throw new IllegalStateException("npm install dynalite@" + VERSION + " took more than 5 minutes; output: "
              + tail(installLog));
        }
        if (p.exitValue() != 0 || !Files.exists(cli)) {
          throw new IllegalStateException("npm install dynalite@" + VERSION + " into " + home + " failed (exit "
              + p.exitValue() + "); output: " + tail(installLog));
        }
        Files.writeString(done, "dynalite@" + VERSION + "\n");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot install dynalite into " + home, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while installing dynalite", e);
    }
  }

  private static Optional<Path> onPath(String program) {
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

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free port for dynalite", e);
    }
  }

  private static String tail(Path file) {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for dynalite", e);
    }
  }
}
