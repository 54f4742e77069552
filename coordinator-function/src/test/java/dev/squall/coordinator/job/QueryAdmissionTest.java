package dev.squall.coordinator.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.jobstore.JobError;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.NewJob;
import dev.squall.jobstore.sqlite.SqliteJobStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link QueryAdmission} over a real (SQLite) job store shared by two coordinators. */
class QueryAdmissionTest {
  private final JobStore store = SqliteJobStore.temporary(Duration.ofHours(1));
  private final QueryAdmission one = new QueryAdmission(store, Clock.systemUTC(), 2, Duration.ofHours(1));
  private final QueryAdmission other = new QueryAdmission(store, Clock.systemUTC(), 2, Duration.ofHours(1));

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void coordinatorsOnOneStoreAdmitNoMoreThanTheCapTogether() {
    assertThat(one.admit("a")).isTrue();
    assertThat(other.admit("b")).isTrue();
    assertThat(one.admit("c")).isFalse();
    assertThat(other.admit("c")).isFalse();

    other.release("a"); // whoever ends the job gives its place back
    assertThat(one.admit("c")).isTrue();
    assertThat(other.admit("d")).isFalse();
  }

  @Test
  void aJobStillRunningKeepsItsPlaceAndAnEndedOrVanishedOneGivesItBack() {
    create("running");
    create("ended");
    assertThat(one.admit("running")).isTrue();
    assertThat(one.admit("ended")).isTrue();
    end("ended");
    one.releaseIfEnded(store.get("running").orElseThrow());
    assertThat(one.admit("x")).isFalse();

    one.releaseIfEnded(store.get("ended").orElseThrow());
    assertThat(one.admit("gone")).isTrue(); // no job ever created under this id

    // The sweep gives back the places of ended and absent jobs, not of running ones.
    assertThat(other.releaseEnded()).isEqualTo(1);
    assertThat(other.admit("y")).isTrue();
    assertThat(other.admit("z")).isFalse();
  }

  @Test
  void noCapReadsNothingAndAdmitsEverything() {
    QueryAdmission open = new QueryAdmission(store, Clock.systemUTC(), 0, Duration.ofHours(1));
    for (int i = 0; i < 100; i++) {
      assertThat(open.admit("q" + i)).isTrue();
    }
    assertThat(open.releaseEnded()).isZero();
    assertThat(store.heldSlots(QueryAdmission.POOL, Instant.now())).isEmpty();
  }

  private void create(String id) {
    store.create(new NewJob(id, "SELECT 1", Map.of()), Instant.now());
  }

  private void end(String id) {
    Instant now = Instant.now();
    Lease lease = store.acquire(id, "driver", now, Duration.ofSeconds(30)).orElseThrow();
    store.transition(lease, JobState.QUEUED, JobState.FAILED,
        JobUpdate.error(new JobError("CANCELLED", "query was cancelled", 0, 0)), now);
  }
}
