package dev.squall.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A client of Squall's HTTP API (docs/api.md): {@code POST /v1/queries} with
 * {@code {"sql", "properties", "mode"}}, and the job resources {@code GET /v1/queries/{id}}
 * (status), {@code GET /v1/queries/{id}/result} and {@code DELETE /v1/queries/{id}} (cancel).
 * Paths are appended to the endpoint, so an endpoint with a stage path
 * ({@code https://…/prod}) keeps it. Every method returns the raw HTTP answer; interpreting the
 * status code is the caller's job.
 */
final class QueryClient {
  static final String ARROW_STREAM = "application/vnd.apache.arrow.stream";
  static final String JSON_TYPE = "application/json";
  /** Query ids the CLI accepts on its command line: what the service issues (UUIDs), safe in a URL path. */
  private static final Pattern QUERY_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How the service should run a submitted query. */
  enum Mode {
    /** Answer inline when the query finishes within the coordinator's wait, else 202 with a job. */
    SYNC,
    /** Always answer 202 with a job to poll. */
    ASYNC
  }

  /** Re-sends of a request answered 429 before the 429 is returned (about 30 s of backoff in all). */
  static final int THROTTLE_RETRIES = 8;
  /** Delay cap of the first re-send after a 429; doubles per re-send. */
  static final Duration THROTTLE_BASE_DELAY = Duration.ofMillis(250);
  /** Largest delay between re-sends after a 429. */
  static final Duration THROTTLE_MAX_DELAY = Duration.ofSeconds(8);

  private final URI endpoint;
  private final Duration timeout;
  private final Duration connectTimeout;
  private final HttpClient http;
  private final RequestSigner signer;
  private final int throttleRetries;
  private final Duration throttleBaseDelay;

  /**
   * @param timeout how long one HTTP request may take before it fails with
   *     {@link java.net.http.HttpTimeoutException}
   */
  QueryClient(URI endpoint, Duration timeout) {
    this(endpoint, timeout, Duration.ofSeconds(10));
  }

  /** @param connectTimeout how long opening a connection may take */
  QueryClient(URI endpoint, Duration timeout, Duration connectTimeout) {
    this(endpoint, timeout, connectTimeout, RequestSigner.NONE);
  }

  /** @param signer authenticates each request (SigV4, a bearer token, or nothing) */
  QueryClient(URI endpoint, Duration timeout, Duration connectTimeout, RequestSigner signer) {
    this(endpoint, timeout, connectTimeout, signer, THROTTLE_RETRIES, THROTTLE_BASE_DELAY);
  }

  private QueryClient(URI endpoint, Duration timeout, Duration connectTimeout, RequestSigner signer, int throttleRetries,
      Duration throttleBaseDelay) {
    this.endpoint = endpoint;
    this.timeout = timeout;
    this.connectTimeout = connectTimeout;
    this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
    this.signer = signer;
    this.throttleRetries = throttleRetries;
    this.throttleBaseDelay = throttleBaseDelay;
  }

  /** A client of the same endpoint whose requests time out after {@code requestTimeout}. */
  QueryClient withTimeout(Duration requestTimeout, Duration connectTimeout) {
    return new QueryClient(endpoint, requestTimeout, connectTimeout, signer, throttleRetries, throttleBaseDelay);
  }

  /** The same client re-sending a 429 at most {@code retries} times, the first after up to {@code baseDelay}. */
  QueryClient withThrottleRetries(int retries, Duration baseDelay) {
    return new QueryClient(endpoint, timeout, connectTimeout, signer, retries, baseDelay);
  }

  URI endpoint() {
    return endpoint;
  }

  /** {@code /v1/queries/<id>}. */
  static String statusPath(String queryId) {
    return "/v1/queries/" + queryId;
  }

  /** {@code /v1/queries/<id>/result}. */
  static String resultPath(String queryId) {
    return statusPath(queryId) + "/result";
  }

  /**
   * Checks a query id given on the command line.
   *
   * @throws IllegalArgumentException naming the id when it cannot be one the service issued
   */
  static String checkQueryId(String queryId) {
    if (!QUERY_ID.matcher(queryId).matches()) {
      throw new IllegalArgumentException("\"" + queryId + "\" is not a query id (letters, digits, '.', '_', '-'; as printed by squall query)");
    }
    return queryId;
  }

  /** The endpoint with {@code path} (absolute, starting with '/') appended to its own path. */
  URI resolve(String path) {
    String base = endpoint.toString();
    while (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return URI.create(base + (path.startsWith("/") ? path : "/" + path));
  }

  /**
   * Sends the query without a mode (the service's default, synchronous) and returns the raw answer.
   *
   * @param accept {@link #ARROW_STREAM} or {@code application/json}
   */
  HttpResponse<byte[]> send(String sql, Map<String, String> properties, String accept) throws IOException, InterruptedException {
    return submit(sql, properties, null, accept);
  }

  /**
   * Submits the query: {@code 200} with the answer (synchronous mode, finished in time) or
   * {@code 202} with a {@link Submission}, or an error answer.
   *
   * @param mode null to leave the choice to the service
   */
  HttpResponse<byte[]> submit(String sql, Map<String, String> properties, Mode mode, String accept)
      throws IOException, InterruptedException {
    ObjectNode body = JSON.createObjectNode().put("sql", sql);
    if (!properties.isEmpty()) {
      ObjectNode props = body.putObject("properties");
      properties.forEach(props::put);
    }
    if (mode != null) {
      body.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
    }
    return send("POST", "/v1/queries", accept, JSON.writeValueAsBytes(body));
  }

  /** {@code GET} of a job's status path; 200 with a {@link JobStatus} body, 404 for an unknown id. */
  HttpResponse<byte[]> status(String statusPath) throws IOException, InterruptedException {
    return send("GET", statusPath, JSON_TYPE, null);
  }

  /**
   * {@code GET} of a job's result path: what a synchronous POST answers on success, 409 while the
   * job runs, the job's error when it failed or was cancelled.
   */
  HttpResponse<byte[]> result(String resultPath, String accept) throws IOException, InterruptedException {
    return send("GET", resultPath, accept, null);
  }

  /** {@code DELETE /v1/queries/<id>}: 202 with the job's status once the cancel is recorded, 409 when it had finished. */
  HttpResponse<byte[]> cancel(String queryId) throws IOException, InterruptedException {
    return send("DELETE", statusPath(queryId), JSON_TYPE, null);
  }

  /**
   * Sends one request, authenticated by the signer; {@code body} null for none. An answer 429 (Too
   * Many Requests: API Gateway or Lambda throttled the coordinator, which therefore never ran) is
   * sent again, at most {@link #THROTTLE_RETRIES} times, after the answer's {@code Retry-After}
   * seconds or else a full-jitter backoff from {@link #THROTTLE_BASE_DELAY} capped at
   * {@link #THROTTLE_MAX_DELAY}. Other answers are never sent again: a submission that reached the
   * coordinator must not run twice.
   *
   * @throws ThrottledException when the last re-send is answered 429 too
   */
  private HttpResponse<byte[]> send(String method, String path, String accept, byte[] body)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    for (int retry = 0; ; retry++) {
      HttpResponse<byte[]> response = sendOnce(method, path, accept, body);
      if (response.statusCode() != 429) {
        return response;
      }
      if (retry >= throttleRetries) {
        throw new ThrottledException(retry + 1, Duration.ofNanos(System.nanoTime() - start));
      }
      Thread.sleep(throttleDelay(response, retry).toMillis());
    }
  }

  /**
   * The pause before re-send {@code retry} (0-based) of a throttled request: the answer's {@code
   * Retry-After} seconds (at most {@link #THROTTLE_MAX_DELAY}) when it gives them, else a random
   * pause below a cap that starts at the base delay and doubles per re-send up to
   * {@link #THROTTLE_MAX_DELAY} ("full jitter").
   */
  private Duration throttleDelay(HttpResponse<byte[]> throttled, int retry) {
    var retryAfter = throttled.headers().firstValue("Retry-After").map(String::strip);
    if (retryAfter.isPresent() && retryAfter.get().matches("\\d{1,4}")) {
      return Duration.ofSeconds(Math.min(Long.parseLong(retryAfter.get()), THROTTLE_MAX_DELAY.toSeconds()));
    }
    long capMs = Math.min(THROTTLE_MAX_DELAY.toMillis(), throttleBaseDelay.toMillis() << Math.min(retry, 20));
    return Duration.ofMillis(capMs <= 0 ? 0 : java.util.concurrent.ThreadLocalRandom.current().nextLong(capMs));
  }

  private HttpResponse<byte[]> sendOnce(String method, String path, String accept, byte[] body)
      throws IOException, InterruptedException {
    URI uri = resolve(path);
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    headers.put("Accept", accept);
    if (body != null) {
      headers.put("Content-Type", JSON_TYPE);
    }
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(timeout)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(builder::header);
    signer.sign(builder, method, uri, headers, body == null ? new byte[0] : body);
    return http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
  }
}
