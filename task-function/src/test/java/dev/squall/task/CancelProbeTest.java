package dev.squall.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.CancelMarker;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/** The task's cancel check: it sees the job's cancel marker in S3 without waiting on S3 itself. */
class CancelProbeTest {
  private static final String BUCKET = "squall-shuffle";
  private static final CancelMarker MARKER =
      CancelMarker.newBuilder().setBucket(BUCKET).setObjectKey("jobs/j1/cancel").build();

  @Test
  void aMarkerCreatedAfterTheTaskStartedIsSeenByALaterCheck() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET); S3Client client = s3.newClient()) {
      BooleanSupplier probe = CancelProbe.of(client, MARKER, () -> false);
      assertThat(probe.getAsBoolean()).isFalse();
      client.putObject(b -> b.bucket(BUCKET).key(MARKER.getObjectKey()), RequestBody.fromString(""));
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      boolean seen = false;
      while (!seen && System.nanoTime() < until) {
        seen = probe.getAsBoolean();
        Thread.sleep(20);
      }
      assertThat(seen).as("cancel seen within 20 s of the marker's creation").isTrue();
      assertThat(probe.getAsBoolean()).as("a cancel stays seen").isTrue();
    }
  }

  @Test
  void aMarkerThatExistsBeforeTheTaskStartsIsSeenWithoutWaitingForTheInterval() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET); S3Client client = s3.newClient()) {
      client.putObject(b -> b.bucket(BUCKET).key(MARKER.getObjectKey()), RequestBody.fromString(""));
      BooleanSupplier probe = CancelProbe.of(client, MARKER, () -> false);
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!probe.getAsBoolean() && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      assertThat(probe.getAsBoolean()).isTrue();
    }
  }

  @Test
  void aStoppedProbeSendsNoMoreLookups() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET); S3Client client = s3.newClient()) {
      CancelProbe probe = CancelProbe.of(client, MARKER, () -> false);
      probe.stop();
      Thread.sleep(100); // the server logs a request as it answers it
      long heads = s3.requestLog().entries(e -> e.method().equals("HEAD")).size();
      long until = System.nanoTime() + 3 * CancelProbe.INTERVAL_NANOS;
      while (System.nanoTime() < until) {
        assertThat(probe.getAsBoolean()).isFalse();
        Thread.sleep(10);
      }
      assertThat(s3.requestLog().entries(e -> e.method().equals("HEAD"))).as("HEADs after stop").hasSize((int) heads);
      assertThat(heads).as("the first lookup, under way when stopped, was waited for").isEqualTo(1);
    }
  }

  @Test
  void theEndOfTheInvocationStopsTheTaskWhateverS3Says() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET); S3Client client = s3.newClient()) {
      assertThat(CancelProbe.of(client, MARKER, () -> true).getAsBoolean()).isTrue();
    }
  }

  @Test
  void checksDoNotWaitForAnS3ThatDoesNotAnswer() throws Exception {
    // A server that accepts connections and never answers: a lookup hangs until the client's timeout.
    List<Socket> held = new ArrayList<>();
    try (ServerSocket silent = new ServerSocket(0)) {
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            held.add(silent.accept());
          }
        } catch (Exception e) {
          // closed
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      try (S3Client client = S3Client.builder().endpointOverride(URI.create("http://127.0.0.1:" + silent.getLocalPort()))
          .region(EmbeddedS3.REGION).forcePathStyle(true)
          .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
          .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(30)))
          .build()) {
        BooleanSupplier probe = CancelProbe.of(client, MARKER, () -> false);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
          long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
          while (System.nanoTime() < until) {
            assertThat(probe.getAsBoolean()).isFalse();
            Thread.sleep(10);
          }
        });
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }
}
