package dev.squall.local.s3;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 API on 127.0.0.1: S3Proxy running in this JVM over a jclouds blob store.
 *
 * <p>With a data directory the blobs live on disk under it: object {@code s3://bucket/a/b/c} is the
 * plain file {@code dataDir/bucket/a/b/c} (S3Proxy's "filesystem-nio2" provider; object metadata in
 * extended attributes). Without one they live in memory ("transient" provider), as in tests.
 *
 * <p>Why nio2: the older jclouds "filesystem" provider lists every folder under a prefix as an
 * extra object ({@code a/}, {@code a/b/}, 4096 bytes each), which real S3 never does. The nio2
 * provider lists only objects, but cannot list files put into the directory by other means (they
 * lack its extended attributes; reading them by key works).
 * Requests are signed with SigV4 against the fixed local access key {@link #ACCESS_KEY}.
 *
 * <p>Clients must not send aws-chunked trailing checksums (S3Proxy 2.9 rejects them); use
 * {@link #newClient()} or set {@code aws.requestChecksumCalculation=when_required}.
 */
public final class EmbeddedS3 implements AutoCloseable {
  /** Access key of the local stack. Not a secret: it only opens this loopback server. */
  public static final String ACCESS_KEY = "squall-local";
  /** Secret key of the local stack (loopback only). */
  public static final String SECRET_KEY = "squall-local-secret";
  /** Region name clients sign for. */
  public static final Region REGION = Region.US_EAST_1;

  private final S3Proxy proxy;
  private final BlobStoreContext context;
  private final URI endpoint;
  private final Path dataDir;
  private final S3RequestLog requestLog;

  private EmbeddedS3(S3Proxy proxy, BlobStoreContext context, URI endpoint, Path dataDir, S3RequestLog requestLog) {
    this.requestLog = requestLog;
    this.proxy = proxy;
    this.context = context;
    this.endpoint = endpoint;
    this.dataDir = dataDir;
  }

  /**
   * Starts S3Proxy on 127.0.0.1.
   *
   * @param dataDir where blobs are stored, or {@code null} for an in-memory store
   * @param port TCP port, or 0 for any free port
   * @param buckets buckets to create at start (3 to 63 characters each)
   * @throws IllegalStateException if the server does not start within 30 seconds
   */
  public static EmbeddedS3 start(Path dataDir, int port, List<String> buckets) throws Exception {
    return start(dataDir, port, buckets, S3RequestModel.OFF);
  }

  /**
   * As {@link #start(Path, int, List)}, with request latency and per-prefix request-rate limits
   * ({@link S3RequestModel}; beyond a rate the server answers 503 SlowDown as S3 does).
   */
  public static EmbeddedS3 start(Path dataDir, int port, List<String> buckets, S3RequestModel model) throws Exception {
    Properties props = new Properties();
    String provider = "transient";
    if (dataDir != null) {
      Files.createDirectories(dataDir);
      props.setProperty("jclouds.filesystem.basedir", dataDir.toAbsolutePath().toString());
      provider = "filesystem-nio2";
    }
    // The nio2 provider insists on an identity; it is never checked.
    BlobStoreContext context = ContextBuilder.newBuilder(provider)
        .credentials("local", "local")
        .overrides(props)
        .buildView(BlobStoreContext.class);
    BlobStore store = context.getBlobStore();
    for (String bucket : buckets) {
      if (!store.containerExists(bucket)) {
        store.createContainerInLocation(null, bucket);
      }
    }
    S3Proxy proxy = S3Proxy.builder()
        .blobStore(store)
        .endpoint(URI.create("http://127.0.0.1:" + port))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .ignoreUnknownHeaders(true)
        .build();
    S3RequestLog requestLog = S3RequestLog.attachTo(proxy);
    if (!model.isOff()) {
      S3RequestLog.serverOf(proxy).insertHandler(new S3RequestThrottle(model));
    }
    proxy.start();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (!"STARTED".equals(proxy.getState())) {
      if (Instant.now().isAfter(deadline)) {
        proxy.stop();
        context.close();
        throw new IllegalStateException("S3Proxy did not start within 30 s, state " + proxy.getState());
      }
      Thread.sleep(10);
    }
    Path root = dataDir == null ? null : dataDir.toAbsolutePath();
    return new EmbeddedS3(proxy, context, URI.create("http://127.0.0.1:" + proxy.getPort()), root, requestLog);
  }

  /** Starts an in-memory S3 on a free port with the given buckets. */
  public static EmbeddedS3 startTransient(String... buckets) throws Exception {
    return start(null, 0, List.of(buckets));
  }

  /** The endpoint URI, {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return endpoint;
  }

  /** Every request this server answered, as its HTTP server logged them. */
  public S3RequestLog requestLog() {
    return requestLog;
  }

  public int port() {
    return proxy.getPort();
  }

  /**
   * The local file behind an object: {@code s3://bucket/key} maps to {@code dataDir/bucket/key}
   * (the jclouds filesystem layout), so that other local readers (DuckDB in tests) can open it.
   *
   * @throws IllegalStateException if this store keeps blobs in memory
   * @throws IllegalArgumentException if the URI is not {@code s3://bucket/key}
   */
  public Path localPathOf(String s3Uri) {
    if (dataDir == null) {
      throw new IllegalStateException("embedded S3 is in memory; no local file for " + s3Uri);
    }
    URI uri = URI.create(s3Uri);
    String key = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    if (!"s3".equals(uri.getScheme()) || uri.getHost() == null || key.isEmpty()) {
      throw new IllegalArgumentException("not an s3://bucket/key URI: " + s3Uri);
    }
    Path path = dataDir.resolve(uri.getHost()).resolve(key).normalize();
    if (!path.startsWith(dataDir)) {
      throw new IllegalArgumentException("object key escapes the data directory: " + s3Uri);
    }
    return path;
  }

  /** Creates a bucket if it does not exist. */
  public void createBucket(String bucket) {
    Objects.requireNonNull(bucket, "bucket");
    BlobStore store = context.getBlobStore();
    if (!store.containerExists(bucket)) {
      store.createContainerInLocation(null, bucket);
    }
  }

  /**
   * A new S3 client for this server: path-style, SigV4 with the local keys, checksums only when
   * an operation requires them. The caller closes it.
   */
  public S3Client newClient() {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(REGION)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }

  /** As {@link #newClient()}, with {@code interceptors} (in order) seeing (and possibly failing) every request. */
  public S3Client newClient(ExecutionInterceptor... interceptors) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(REGION)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.executionInterceptors(List.of(interceptors)))
        .build();
  }

  @Override
  public void close() throws Exception {
    try {
      proxy.stop();
    } finally {
      context.close();
    }
  }
}
