package dev.squall.coordinator.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.s3.EmbeddedS3;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/**
 * Deleting a finished job's data through a real S3 API (S3Proxy): in the background the caller
 * does not wait for the LIST and DeleteObjects, a full queue deletes inline, and 0 pending means
 * inline always. A LIST of a job named "held-…" waits for {@link #release} (an interceptor on the
 * real client), so that a deletion in progress can be seen from outside.
 */
class JobDataDeleterTest {
  private static final String BUCKET = "deleter-test-bucket";
  private static EmbeddedS3 server;
  private static S3Client plain;
  private static volatile CountDownLatch release = new CountDownLatch(0);
  private static S3Client holding;

  @BeforeAll
  static void start() throws Exception {
    server = EmbeddedS3.startTransient(BUCKET);
    plain = server.newClient();
    holding = server.newClient(new ExecutionInterceptor() {
      @Override
      public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (context.request() instanceof ListObjectsV2Request list && list.prefix().startsWith("jobs/held-")) {
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
  }

  @AfterEach
  void letGo() {
    release.countDown();
  }

  @AfterAll
  static void stop() throws Exception {
    holding.close();
    plain.close();
    server.close();
  }

  @Test
  void inTheBackgroundTheCallerDoesNotWaitForTheDeletion() throws Exception {
    release = new CountDownLatch(1);
    putJobData("held-a");
    try (JobDataDeleter deleter = JobDataDeleter.background(holding, BUCKET, 4)) {
      deleter.deleteAfterAnswer("held-a"); // returns although the LIST is held
      assertThat(objectsOf("held-a")).isEqualTo(2);
      assertThat(deleter.awaitIdle(Duration.ofMillis(200))).as("deletion still held").isFalse();
      release.countDown();
      assertThat(deleter.awaitIdle(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(objectsOf("held-a")).isZero();
  }

  @Test
  void aFullQueueDeletesOnTheCallersThread() throws Exception {
    release = new CountDownLatch(1);
    putJobData("held-b");
    putJobData("held-c");
    putJobData("free-d");
    try (JobDataDeleter deleter = JobDataDeleter.background(holding, BUCKET, 1)) {
      deleter.deleteAfterAnswer("held-b"); // handed to the thread it starts, held
      deleter.deleteAfterAnswer("held-c"); // queued: the one place
      deleter.deleteAfterAnswer("free-d"); // no room: deleted before the call returns
      assertThat(objectsOf("free-d")).isZero();
      assertThat(objectsOf("held-b")).isEqualTo(2);
      assertThat(objectsOf("held-c")).isEqualTo(2);
      release.countDown();
      assertThat(deleter.awaitIdle(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(objectsOf("held-b")).isZero();
    assertThat(objectsOf("held-c")).isZero();
  }

  @Test
  void inlineAndDeleteNowDeleteBeforeReturning() throws Exception {
    putJobData("inline-e");
    putJobData("now-f");
    try (JobDataDeleter inline = JobDataDeleter.background(plain, BUCKET, 0);
        JobDataDeleter background = JobDataDeleter.background(plain, BUCKET, 8)) {
      inline.deleteAfterAnswer("inline-e");
      assertThat(objectsOf("inline-e")).isZero();
      background.deleteNow("now-f");
      assertThat(objectsOf("now-f")).isZero();
    }
  }

  @Test
  void closeWaitsForQueuedDeletions() throws Exception {
    putJobData("close-g");
    JobDataDeleter deleter = JobDataDeleter.background(plain, BUCKET, 8);
    deleter.deleteAfterAnswer("close-g");
    deleter.close();
    assertThat(objectsOf("close-g")).isZero();
  }

  @Test
  void refusesANegativeBound() {
    assertThatThrownBy(() -> JobDataDeleter.background(plain, BUCKET, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }

  private static void putJobData(String jobId) {
    plain.putObject(b -> b.bucket(BUCKET).key(PlanStore.jobPrefix(jobId) + "/plan.pb"), RequestBody.fromString("plan"));
    plain.putObject(b -> b.bucket(BUCKET).key(PlanStore.jobPrefix(jobId) + "/00/s0/m0/a0.arrows"),
        RequestBody.fromString("map output"));
  }

  private static int objectsOf(String jobId) {
    return plain.listObjectsV2(b -> b.bucket(BUCKET).prefix(PlanStore.jobPrefix(jobId) + "/")).keyCount();
  }
}
