package dev.squall.shuffle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.io.HedgeSettings;
import dev.squall.local.faults.FaultPlan;
import dev.squall.local.faults.Faults;
import dev.squall.local.faults.S3FaultInterceptor;
import dev.squall.local.s3.EmbeddedS3;
import dev.squall.proto.v1.ShuffleSegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Hedged shuffle GETs against S3 (S3Proxy) whose requests a fault plan delays (the local stack's
 * S3 {@code delay} rule, docs/faults.md): a GET held up far past its peers' latency is overtaken by
 * its second copy, and when every GET is slow no more than the budget is sent twice.
 */
class HedgedShuffleReadTest {
  private static final String BUCKET = "squall-shuffle-hedged";
  private static final int MAP_OUTPUTS = 16;

  private static EmbeddedS3 server;
  private static S3Client direct;
  private static BufferAllocator allocator;
  private static List<ShuffleSegment> segments;
  private static List<List<Object>> rows;

  @BeforeAll
  static void writeMapOutputs() throws Exception {
    server = EmbeddedS3.startTransient(BUCKET);
    direct = server.newClient();
    allocator = new RootAllocator();
    rows = ShuffleTestData.rows(31, MAP_OUTPUTS * 50);
    segments = ShuffleTestData.writeMapOutputs(direct, allocator, BUCKET, "hedged", rows, 50);
  }

  @AfterAll
  static void stop() throws Exception {
    direct.close();
    server.close();
    allocator.close();
  }

  /** Reads every segment through a client under {@code plan}; returns the reader's hedged GETs and GET requests. */
  private long[] readUnder(String plan, HedgeSettings hedging, int inFlight) {
    Faults faults = new Faults();
    faults.install(FaultPlan.parse(plan.getBytes(StandardCharsets.UTF_8)));
    List<List<Object>> readBack = new ArrayList<>();
    long[] counts;
    try (S3Client faulty = server.newClient(new S3FaultInterceptor(faults, direct));
        ShuffleReader reader = ShuffleReader.open(faulty, allocator, segments,
            ShuffleReaderOptions.DEFAULT.withMaxInFlight(inFlight).withHedging(hedging))) {
      reader.forEachRemaining(batch -> readBack.addAll(ShuffleTestData.read(batch)));
      counts = new long[] {reader.hedgedGets(), reader.metrics().getRequests(), faults.plan().fired()};
    }
    assertThat(ShuffleTestData.multiset(readBack)).isEqualTo(ShuffleTestData.multiset(rows));
    return counts;
  }

  @Test
  void aGetDelayedFarPastItsPeersIsOvertakenByItsSecondCopy() {
    // The first GET of map output 12 waits 60 s; its peers answer in milliseconds.
    String plan = "{\"rules\": [{\"target\": \"s3\", \"operation\": \"GetObject\", \"key\": \".*/m12/.*\","
        + " \"action\": \"delay\", \"seconds\": 60}]}";
    long start = System.nanoTime();
    long[] counts = readUnder(plan, new HedgeSettings(95, Duration.ofMillis(20), Duration.ofMillis(500), 0.05), 2);
    assertThat(counts[2]).as("the delay acted").isEqualTo(1);
    assertThat(counts[0]).as("hedged GETs").isEqualTo(1);
    assertThat(counts[1]).as("GET requests: one per segment and the second copy").isEqualTo(MAP_OUTPUTS + 1);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the read did not wait for the delayed GET")
        .isLessThan(Duration.ofSeconds(30));
  }

  @Test
  void whenEveryGetIsSlowNoMoreThanTheBudgetIsSentTwice() {
    String plan = "{\"rules\": [{\"target\": \"s3\", \"operation\": \"GetObject\", \"action\": \"delay\","
        + " \"seconds\": 0.3, \"times\": -1}]}";
    HedgeSettings eager = new HedgeSettings(50, Duration.ofMillis(10), Duration.ofMillis(50), 0.1);
    long[] counts = readUnder(plan, eager, 8);
    long bound = 1 + (long) (eager.budget() * MAP_OUTPUTS);
    assertThat(counts[0]).as("hedged GETs").isBetween(1L, bound);
    assertThat(counts[1]).isEqualTo(MAP_OUTPUTS + counts[0]);
  }

  @Test
  void hedgingOffSendsEveryGetOnce() {
    String plan = "{\"rules\": [{\"target\": \"s3\", \"operation\": \"GetObject\", \"action\": \"delay\","
        + " \"seconds\": 0.05, \"times\": -1}]}";
    long[] counts = readUnder(plan, HedgeSettings.OFF, 4);
    assertThat(counts[0]).isZero();
    assertThat(counts[1]).isEqualTo(MAP_OUTPUTS);
  }
}
