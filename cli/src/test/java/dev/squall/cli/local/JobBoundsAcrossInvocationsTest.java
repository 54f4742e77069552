package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.coordinator.job.JobSettings;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.local.lambda.LambdaHandler;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A job's bounds are kept in the job store, so that the coordinator invocations that take the job
 * over one after another do not start them afresh: the job's deadline counts from its submission,
 * and the number of invocations that took it up is capped. Each stack here has a coordinator with a
 * 12 s limit that hands its job over 9 s before it (about 3 s of work an invocation) and tasks that
 * take 1.5 s each, two at a time: the query's eight tasks need at least 6 s, so at least three
 * invocations, and would finish if either bound were reset by every invocation.
 */
class JobBoundsAcrossInvocationsTest {
  private static final String Q = "select o_orderpriority, count(*) as n from tpch.orders group by o_orderpriority";
  private static final Map<String, String> SMALL_TASKS = Map.of("target_split_size_bytes", "65536");

  private static LambdaHandler slow(LambdaHandler real) {
    return (payload, ctx) -> {
      Thread.sleep(1500);
      return real.handle(payload, ctx);
    };
  }

  private static TestStack stack(UnaryOperator<LocalDeployment.Options> more) throws Exception {
    return TestStack.startWith(0.01, 2_000, o -> more.apply(o.withTaskHandlerWrapper(JobBoundsAcrossInvocationsTest::slow)
        .withTaskConcurrency(2)
        .withCoordinatorTimeout(Duration.ofSeconds(12))
        .withSweepInterval(Duration.ZERO)
        .withJobSettings(JobSettings.defaults().withLease(Duration.ofSeconds(2)).withHandOffMargin(Duration.ofSeconds(9)))));
  }

  /** Waits for the job's end in the store (a status read would resume the job; only hand-overs move it here). */
  private static JobRecord awaitEnd(TestStack stack, String id) throws InterruptedException {
    JobStore store = stack.deployment.jobStore();
    long until = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    JobRecord job = store.get(id).orElseThrow();
    while (!job.state().isTerminal() && System.nanoTime() < until) {
      Thread.sleep(100);
      job = store.get(id).orElseThrow();
    }
    return job;
  }

  @Test
  void theDeadlineCountsFromSubmissionAcrossCoordinatorInvocations() throws Exception {
    try (TestStack stack = stack(o -> o.withJobTimeout(Duration.ofSeconds(5)))) {
      String id = stack.submitAsync(Q, SMALL_TASKS);
      JobRecord done = awaitEnd(stack, id);
      assertThat(done.state()).as(String.valueOf(done.error())).isEqualTo(JobState.FAILED);
      assertThat(done.error().code()).isEqualTo("TIMEOUT");
      // A later invocation than the first one found the deadline passed.
      assertThat(done.leaseEpoch()).as("invocations that held the job").isGreaterThanOrEqualTo(2);
      assertThat(Duration.between(done.createdAt(), done.finishedAt())).isLessThan(Duration.ofSeconds(12));
    }
  }

  @Test
  void aJobTakenUpByMoreInvocationsThanAllowedFails() throws Exception {
    try (TestStack stack = stack(o -> o.withJobSettings(o.jobSettings().withMaxInvocations(2)))) {
      String id = stack.submitAsync(Q, SMALL_TASKS);
      JobRecord done = awaitEnd(stack, id);
      assertThat(done.state()).as(String.valueOf(done.error())).isEqualTo(JobState.FAILED);
      assertThat(done.error().code()).isEqualTo("INSUFFICIENT_RESOURCES");
      assertThat(done.error().message()).contains("coordinator invocations").contains("limit of 2");
      assertThat(done.leaseEpoch()).isEqualTo(3);
    }
  }
}
