package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real SIGINT (what a terminal's Ctrl-C sends) to a JVM whose Ctrl-C cancel is armed, when the
 * endpoint cannot help: the JVM still exits, with 130, and says the query may still be running.
 * The cancel of a running query through the real stack is in {@link AsyncQueryEndToEndTest}.
 */
class CtrlCTest {
  /** Starts {@link InterruptProbe} for {@code endpoint}, waits until it is armed, sends SIGINT and returns its exit code and stderr. */
  private static String[] interruptProbe(String endpoint) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), InterruptProbe.class.getName(),
        endpoint, "q-probe").start();
    try {
      child.getOutputStream().close();
      StringBuffer err = new StringBuffer();
      Thread reader = drain(child.getErrorStream(), err);
      Instant deadline = Instant.now().plusSeconds(30);
      while (!err.toString().contains("armed") && child.isAlive() && Instant.now().isBefore(deadline)) {
        Thread.sleep(20);
      }
      assertThat(err.toString()).contains("armed");
      new ProcessBuilder("kill", "-INT", Long.toString(child.pid())).inheritIO().start().waitFor();
      // The hook's budget is 10 s plus one 2 s request; 30 s means it hangs.
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the JVM exits after SIGINT; stderr: %s", err).isTrue();
      reader.join(5_000);
      return new String[] {Integer.toString(child.exitValue()), err.toString()};
    } finally {
      child.destroyForcibly();
    }
  }

  static Thread drain(InputStream in, StringBuffer into) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[4096];
      try {
        for (int n; (n = in.read(buf)) > 0; ) {
          into.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
      } catch (IOException closed) {
        // The child is gone.
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Test
  void ctrlCExitsWith130WhenTheEndpointIsGone() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    String[] r = interruptProbe("http://127.0.0.1:" + port);
    assertThat(Integer.parseInt(r[0])).as(r[1]).isEqualTo(ExitCodes.INTERRUPTED);
    assertThat(r[1]).contains("query q-probe: could not reach the endpoint to cancel it");
  }

  @Test
  void ctrlCExitsWith130WhenTheEndpointNeverAnswers() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> held = new ArrayList<>();
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            held.add(silent.accept());
          }
        } catch (IOException closed) {
          // The test is over.
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      String[] r = interruptProbe("http://127.0.0.1:" + silent.getLocalPort());
      assertThat(Integer.parseInt(r[0])).as(r[1]).isEqualTo(ExitCodes.INTERRUPTED);
      assertThat(r[1]).contains("query q-probe: could not reach the endpoint to cancel it");
    }
  }
}
