package dev.squall.shuffle;

import dev.squall.local.s3.EmbeddedS3;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Base of the tests that write and read shuffle objects: one transient embedded S3 with bucket
 * {@link #BUCKET} per test class, and a fresh Arrow allocator per test whose close fails the test
 * when a writer or reader leaked buffers. Test classes run one at a time, so the static server is
 * never shared by two classes at once.
 */
abstract class ShuffleStoreTest {
  static final String BUCKET = "squall-shuffle";
  static EmbeddedS3 server;
  static S3Client s3;
  BufferAllocator allocator;

  @BeforeAll
  static void startS3() throws Exception {
    server = EmbeddedS3.startTransient(BUCKET);
    s3 = server.newClient();
  }

  @AfterAll
  static void stopS3() throws Exception {
    s3.close();
    server.close();
  }

  @BeforeEach
  void newAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void closeAllocator() {
    allocator.close();
  }
}
