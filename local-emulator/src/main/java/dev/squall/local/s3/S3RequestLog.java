package dev.squall.local.s3;

import java.lang.reflect.Field;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.shaded.org.eclipse.jetty.server.Request;
import org.gaul.shaded.org.eclipse.jetty.server.RequestLog;
import org.gaul.shaded.org.eclipse.jetty.server.Response;
import org.gaul.shaded.org.eclipse.jetty.server.Server;

/**
 * Every HTTP request the embedded S3 server answered, as its Jetty server logged it: the server's
 * own account of S3 traffic, independent of any client's counting. Requests are path-style
 * ({@code /bucket/key?query}); each is classed as S3 bills it ({@link Entry#kind()}).
 */
public final class S3RequestLog implements RequestLog {
  /**
   * One request.
   *
   * @param method HTTP method
   * @param bucket the bucket, empty for the service root
   * @param key the object key (decoded), empty for a bucket request
   * @param query the raw query string, empty when none
   * @param status the HTTP status answered
   * @param timeNanos when it was logged ({@link System#nanoTime()})
   */
  public record Entry(String method, String bucket, String key, String query, int status, long timeNanos) {
    /**
     * The billing class: PUT (object PUT, multipart POSTs), GET (object GET and other bucket
     * requests), LIST (GET of a bucket, except its location), HEAD, DELETE (object DELETE,
     * multi-object delete, aborting an upload).
     */
    public String kind() {
      boolean object = !key.isEmpty();
      return switch (method) {
        case "GET" -> object ? "GET" : query.contains("location") ? "GET" : "LIST";
        case "HEAD" -> "HEAD";
        case "PUT" -> "PUT";
        case "DELETE" -> "DELETE";
        case "POST" -> query.startsWith("delete") || query.contains("&delete") ? "DELETE" : "PUT";
        default -> "GET";
      };
    }
  }

  /** How many requests are kept; older ones are forgotten, so that a long-running stack stays bounded. */
  public static final int CAPACITY = 200_000;

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();

  /** Starts logging the requests of {@code proxy}, which must not have started yet. */
  static S3RequestLog attachTo(S3Proxy proxy) {
    S3RequestLog log = new S3RequestLog();
    serverOf(proxy).setRequestLog(log);
    return log;
  }

  /** S3Proxy's Jetty server, which it keeps to itself; changed only before it starts. */
  static Server serverOf(S3Proxy proxy) {
    try {
      Field field = S3Proxy.class.getDeclaredField("server");
      field.setAccessible(true);
      return (Server) field.get(proxy);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot reach S3Proxy's HTTP server", e);
    }
  }

  @Override
  public void log(Request request, Response response) {
    String path = request.getRequestURI() == null ? "/" : request.getRequestURI();
    String trimmed = path.startsWith("/") ? path.substring(1) : path;
    int slash = trimmed.indexOf('/');
    String bucket = slash < 0 ? trimmed : trimmed.substring(0, slash);
    String key = slash < 0 ? "" : URLDecoder.decode(trimmed.substring(slash + 1), StandardCharsets.UTF_8);
    String query = request.getQueryString() == null ? "" : request.getQueryString();
    Entry e = new Entry(request.getMethod().toUpperCase(Locale.ROOT), bucket, key, query, response.getStatus(),
        System.nanoTime());
    synchronized (entries) {
      if (entries.size() == CAPACITY) {
        entries.removeFirst();
      }
      entries.addLast(e);
    }
  }

  /** The requests logged so far (the last {@link #CAPACITY}), in order. */
  public List<Entry> entries() {
    synchronized (entries) {
      return List.copyOf(entries);
    }
  }

  /** The requests logged so far that {@code filter} accepts. */
  public List<Entry> entries(Predicate<Entry> filter) {
    return entries().stream().filter(filter).toList();
  }

  /** Forgets every request logged so far. */
  public void clear() {
    synchronized (entries) {
      entries.clear();
    }
  }
}
