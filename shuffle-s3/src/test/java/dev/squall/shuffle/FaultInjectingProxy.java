package dev.squall.shuffle;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP-level HTTP/1.1 proxy on 127.0.0.1 in front of an S3 endpoint that answers the first
 * {@code n} GET requests with {@code 503 Slow Down} (S3's throttling answer, error code SlowDown)
 * and relays everything else byte for byte. Each relayed request gets {@code Connection: close},
 * so every request arrives on a fresh connection and is seen here. The Host header is relayed
 * unchanged, so SigV4 signatures made for the proxy's address stay valid.
 */
final class FaultInjectingProxy implements AutoCloseable {
  private static final byte[] SLOW_DOWN_BODY = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
      + "<Message>Please reduce your request rate.</Message><RequestId>fault-injected</RequestId></Error>")
      .getBytes(StandardCharsets.UTF_8);

  private final ServerSocket server;
  private final int upstreamPort;
  private final AtomicInteger faultsLeft;
  private final AtomicInteger injected = new AtomicInteger();
  private final AtomicInteger relayedGets = new AtomicInteger();
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-proxy");
    t.setDaemon(true);
    return t;
  });

  FaultInjectingProxy(int upstreamPort, int failFirstGets) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.upstreamPort = upstreamPort;
    this.faultsLeft = new AtomicInteger(failFirstGets);
    threads.submit(this::acceptLoop);
  }

  int port() {
    return server.getLocalPort();
  }

  /** 503 answers sent so far. */
  int injected() {
    return injected.get();
  }

  /** GET requests passed on to S3. */
  int relayedGets() {
    return relayedGets.get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        threads.submit(() -> handle(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void handle(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      String head = readHead(in);
      if (head == null) {
        return;
      }
      boolean get = head.startsWith("GET ");
      if (get && faultsLeft.getAndDecrement() > 0) {
        injected.incrementAndGet();
        OutputStream out = client.getOutputStream();
        out.write(("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: " + SLOW_DOWN_BODY.length
            + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(SLOW_DOWN_BODY);
        out.flush();
        return;
      }
      if (get) {
        relayedGets.incrementAndGet();
      }
      try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
        OutputStream up = upstream.getOutputStream();
        up.write(withConnectionClose(head).getBytes(StandardCharsets.ISO_8859_1));
        up.flush();
        // Request body (if any) upstream, response back, until either side closes.
        var requestBody = threads.submit(() -> pump(in, up));
        pump(upstream.getInputStream(), client.getOutputStream());
        requestBody.cancel(true);
      }
    } catch (IOException e) {
      // A client that went away; nothing to do.
    }
  }

  private static String withConnectionClose(String head) {
    StringBuilder out = new StringBuilder();
    for (String line : head.split("\r\n")) {
      if (!line.toLowerCase().startsWith("connection:") && !line.isEmpty()) {
        out.append(line).append("\r\n");
      }
    }
    return out.append("Connection: close\r\n\r\n").toString();
  }

  /** Reads the request line and headers, up to and including the blank line. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    int b;
    while ((b = in.read()) != -1) {
      head.write(b);
      matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
          ? matched + 1 : 0;
      if (matched == 4) {
        return head.toString(StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }

  private static Void pump(InputStream from, OutputStream to) {
    byte[] buffer = new byte[64 * 1024];
    try {
      int n;
      while ((n = from.read(buffer)) != -1) {
        to.write(buffer, 0, n);
        to.flush();
      }
    } catch (IOException e) {
      // closed by the other side
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    server.close();
    threads.shutdownNow();
  }
}
