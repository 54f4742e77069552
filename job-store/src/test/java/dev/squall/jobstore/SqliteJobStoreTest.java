package dev.squall.jobstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.jobstore.sqlite.SqliteJobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job store contract against the embedded SQLite store, plus what only a file-backed store shows. */
class SqliteJobStoreTest extends JobStoreContract {
  @TempDir Path dir;

  @Override
  protected JobStore openStore(Duration retention) {
    return SqliteJobStore.open(dir.resolve("jobs.db"), retention);
  }

  @Override
  protected boolean purgeDeletesExpiredJobs() {
    return true;
  }

  @Test
  void twoStoresOnOneFileSeeEachOthersWritesAndLeases() {
    try (SqliteJobStore other = SqliteJobStore.open(dir.resolve("jobs.db"), RETENTION)) {
      store.create(new NewJob("job-shared", "SELECT 1", Map.of()), t0);
      assertThat(other.get("job-shared")).isPresent();
      assertThat(other.acquire("job-shared", "coord-a", t0, Duration.ofSeconds(30))).isPresent();
      assertThat(store.acquire("job-shared", "coord-b", t0.plusSeconds(1), Duration.ofSeconds(30))).isEmpty();
    }
  }

  @Test
  void jobsSurviveReopeningTheFile() {
    store.create(new NewJob("job-durable", "SELECT 2", Map.of("a", "b")), t0);
    store.close();
    store = SqliteJobStore.open(dir.resolve("jobs.db"), RETENTION);
    assertThat(store.get("job-durable").orElseThrow().properties()).isEqualTo(Map.of("a", "b"));
  }

  @Test
  void temporaryStoreDeletesItsFileOnClose() {
    SqliteJobStore temp = SqliteJobStore.temporary(RETENTION);
    Path file = temp.file();
    temp.create(new NewJob("job-t", "SELECT 3", Map.of()), Instant.EPOCH);
    assertThat(file).exists();
    temp.close();
    assertThat(file).doesNotExist();
  }

  @Test
  void databaseFromBeforeCallerIdentitiesGainsTheColumnAndKeepsItsJobs() throws Exception {
    Path file = dir.resolve("old.db");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
        java.sql.Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE jobs (job_id TEXT PRIMARY KEY, sql_text TEXT NOT NULL, properties TEXT NOT NULL,"
          + " state TEXT NOT NULL, version INTEGER NOT NULL, owner TEXT, lease_epoch INTEGER NOT NULL,"
          + " lease_expires_at INTEGER, cancel_requested INTEGER NOT NULL, created_at INTEGER NOT NULL,"
          + " updated_at INTEGER NOT NULL, finished_at INTEGER, progress TEXT NOT NULL, error_code TEXT,"
          + " error_message TEXT, error_line INTEGER, error_column INTEGER, result_location TEXT, summary BLOB,"
          + " expires_at INTEGER)");
      s.executeUpdate("INSERT INTO jobs VALUES ('job-old', 'SELECT 1', '{}', 'QUEUED', 1, NULL, 0, NULL, 0, 1000,"
          + " 1000, NULL, '[]', NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
    }
    try (SqliteJobStore old = SqliteJobStore.open(file, RETENTION)) {
      assertThat(old.get("job-old").orElseThrow().caller()).isEmpty();
      old.create(new NewJob("job-new", "SELECT 2", Map.of(), "jwt|https://issuer|bob"), Instant.ofEpochMilli(2000));
      assertThat(old.get("job-new").orElseThrow().caller()).isEqualTo("jwt|https://issuer|bob");
    }
  }
}
