package dev.squall.jobstore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
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
    Path node = NpmPackages.onPath("node").orElseThrow(() -> new IllegalStateException(
        "dynalite needs Node.js: 'node' is not on the PATH (" + System.getenv("PATH") + "); install Node 20"));
    Path home = Path.of(System.getProperty("java.io.tmpdir"), "squall-dynalite", VERSION);
    Path cli = home.resolve("node_modules").resolve("dynalite").resolve("cli.js");
    NpmPackages.install("dynalite@" + VERSION, home, cli);
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
            + "output: " + NpmPackages.tail(log));
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
        + "; output: " + NpmPackages.tail(log));
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

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free port for dynalite", e);
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
