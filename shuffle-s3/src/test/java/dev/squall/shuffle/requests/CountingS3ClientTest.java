package dev.squall.shuffle.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.s3.EmbeddedS3;
import dev.squall.local.s3.S3RequestLog;
import dev.squall.proto.v1.S3RequestCounts;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/** Request counting against the embedded S3 server's own log of what it answered. */
class CountingS3ClientTest {
  private static final String BUCKET = "squall-counting";
  private static EmbeddedS3 server;
  private static S3Client withInterceptor;
  private static S3Client plain;

  @BeforeAll
  static void start() throws Exception {
    server = EmbeddedS3.startTransient(BUCKET);
    withInterceptor = server.newClient(CountingS3Client.interceptor());
    plain = server.newClient();
  }

  @AfterAll
  static void stop() throws Exception {
    withInterceptor.close();
    plain.close();
    server.close();
  }

  /** One PUT of 1,000 bytes, two GETs (one ranged), a HEAD, a LIST, a DELETE and a GET of a missing key. */
  private static void traffic(S3Client s3, String prefix) {
    s3.putObject(b -> b.bucket(BUCKET).key(prefix + "a"), RequestBody.fromBytes(new byte[1000]));
    s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(prefix + "a"));
    s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(prefix + "a").range("bytes=0-99"));
    s3.headObject(b -> b.bucket(BUCKET).key(prefix + "a"));
    s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix));
    s3.deleteObject(b -> b.bucket(BUCKET).key(prefix + "a"));
    assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(prefix + "missing")))
        .isInstanceOf(NoSuchKeyException.class);
  }

  /** Requests {@link #traffic} sends: PUT, GET, ranged GET, HEAD, LIST, DELETE, GET of a missing key. */
  private static final int TRAFFIC_REQUESTS = 7;

  /**
   * The server's log of {@link #traffic} under {@code prefix}, by billing class. Jetty logs a
   * request after its response is sent, so the last entries may land after the client has its
   * answer: wait (up to 10 s) for all of them.
   */
  private static Map<String, Long> serverSaw(String prefix) {
    long until = System.nanoTime() + 10_000_000_000L;
    while (true) {
      Map<String, Long> kinds = new TreeMap<>();
      server.requestLog().entries(e -> e.key().startsWith(prefix)
              || URLDecoder.decode(e.query(), StandardCharsets.UTF_8).contains("prefix=" + prefix))
          .forEach(e -> kinds.merge(e.kind(), 1L, Long::sum));
      if (kinds.values().stream().mapToLong(Long::longValue).sum() >= TRAFFIC_REQUESTS || System.nanoTime() > until) {
        return kinds;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return kinds;
      }
    }
  }

  private static Map<String, Long> counted(S3RequestCounts c) {
    Map<String, Long> kinds = new TreeMap<>();
    kinds.put("PUT", c.getPut());
    kinds.put("GET", c.getGet());
    kinds.put("HEAD", c.getHead());
    kinds.put("LIST", c.getList());
    kinds.put("DELETE", c.getDelete());
    kinds.values().removeIf(v -> v == 0);
    return kinds;
  }

  @Test
  void countsEveryRequestTheServerAnsweredByBillingClass() {
    S3RequestCounter counter = new S3RequestCounter();
    traffic(CountingS3Client.wrap(withInterceptor, counter), "sent/");
    S3RequestCounts c = counter.toProto();
    assertThat(counted(c)).isEqualTo(serverSaw("sent/"))
        .isEqualTo(Map.of("PUT", 1L, "GET", 3L, "HEAD", 1L, "LIST", 1L, "DELETE", 1L));
    assertThat(c.getBytesPut()).isEqualTo(1000);
    assertThat(c.getBytesGet()).isEqualTo(1000 + 100);
  }

  @Test
  void withoutTheInterceptorEachSucceededCallCountsOnce() {
    S3RequestCounter counter = new S3RequestCounter();
    traffic(CountingS3Client.wrap(plain, counter), "plain/");
    // The failed GET of a missing key is the one request it cannot see.
    Map<String, Long> saw = serverSaw("plain/");
    saw.merge("GET", -1L, Long::sum);
    assertThat(counted(counter.toProto())).isEqualTo(saw);
  }

  @Test
  void callsOfNoCounterAreNotCounted() {
    S3RequestCounter counter = new S3RequestCounter();
    S3Client s3 = CountingS3Client.wrap(withInterceptor,
        r -> r.getValueForField("Key", String.class).orElse("").startsWith("mine/") ? counter : null);
    s3.putObject(b -> b.bucket(BUCKET).key("mine/x"), RequestBody.fromBytes(new byte[10]));
    s3.putObject(b -> b.bucket(BUCKET).key("other/x"), RequestBody.fromBytes(new byte[10]));
    assertThat(counter.requests(S3RequestCounter.Kind.PUT)).isEqualTo(1);
  }

  @Test
  void closingTheViewLeavesTheWrappedClientOpen() {
    CountingS3Client.wrap(withInterceptor, new S3RequestCounter()).close();
    withInterceptor.headBucket(b -> b.bucket(BUCKET));
  }

  @Test
  void theServerLogClassesMultipartAndBatchDeletes() {
    S3RequestLog.Entry create = new S3RequestLog.Entry("POST", BUCKET, "k", "uploads", 200, 0);
    S3RequestLog.Entry batch = new S3RequestLog.Entry("POST", BUCKET, "", "delete", 200, 0);
    S3RequestLog.Entry list = new S3RequestLog.Entry("GET", BUCKET, "", "list-type=2&prefix=a", 200, 0);
    assertThat(create.kind()).isEqualTo("PUT");
    assertThat(batch.kind()).isEqualTo("DELETE");
    assertThat(list.kind()).isEqualTo("LIST");
  }
}
