package dev.squall.local.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JDK's HTTP server bound to 127.0.0.1 with one handler for every path, one daemon thread per
 * concurrent exchange, and TCP_NODELAY on its connections.
 *
 * <p>Why TCP_NODELAY: the JDK server writes response headers and body separately; with Nagle's
 * algorithm and the client's delayed ACK each small exchange then waits about 40 ms (measured with
 * {@code InvokeBenchmark}: 1 KB Invoke 48 ms without, 7 ms with). The JDK reads the switch,
 * {@code sun.net.httpserver.nodelay}, once per JVM when its first server starts, so it is set here
 * unless the user set it.
 */
public final class LoopbackHttpServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService threads;

  private LoopbackHttpServer(HttpServer server, ExecutorService threads) {
    this.server = server;
    this.threads = threads;
  }

  /** Pending connections the server's socket queues before it accepts them. */
  static final int ACCEPT_BACKLOG = 4096;

  /**
   * Binds and starts a server.
   *
   * @param port TCP port, or 0 for any free port
   * @param threadName prefix of the exchange threads' names
   * @param handler handles every request
   * @throws IOException if the port cannot be bound
   */
  public static LoopbackHttpServer start(int port, String threadName, HttpHandler handler) throws IOException {
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    // A deep accept queue: a thousand-task stage opens a thousand connections at once, and the
    // system default (50) would leave clients timing out on connect.
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), ACCEPT_BACKLOG);
    AtomicInteger count = new AtomicInteger();
    ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, threadName + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(threads);
    server.createContext("/", handler);
    server.start();
    return new LoopbackHttpServer(server, threads);
  }

  /** {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port());
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Stops listening at once and interrupts exchanges in flight. */
  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
