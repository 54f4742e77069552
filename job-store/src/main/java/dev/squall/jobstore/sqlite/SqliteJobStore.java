package dev.squall.jobstore.sqlite;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.jobstore.AttemptState;
import dev.squall.jobstore.JobError;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.JobStoreException;
import dev.squall.jobstore.JobStoreLimits;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.NewJob;
import dev.squall.jobstore.NoSuchJobException;
import dev.squall.jobstore.StageProgress;
import dev.squall.jobstore.StateConflictException;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.jobstore.TaskWinner;
import dev.squall.jobstore.WriteRefusals;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/**
 * The embedded job store: one SQLite database file (through the xerial JDBC driver), for the local
 * default. Same semantics as the DynamoDB store: every write that advances a job is one conditional
 * {@code UPDATE ... WHERE job_id = ? AND lease_epoch = ? AND owner = ? AND state = ?} whose update
 * count decides success; when it is 0 the row is read in the same transaction to throw the right
 * exception.
 *
 * <p>Tables: {@code jobs} (one row per job; properties and progress as JSON text, times as epoch
 * milliseconds), {@code attempts} (key job, stage, partition, attempt) and {@code winners} (key
 * job, stage, partition; first insert wins through {@code ON CONFLICT DO NOTHING}).
 *
 * <p>Concurrency: the database runs in WAL mode (readers never block the writer) with a busy
 * timeout; every write transaction starts with {@code BEGIN IMMEDIATE}, taking the write lock up
 * front so that two writers never deadlock upgrading read locks. Several stores (or processes) may
 * open the same file. A store keeps a small pool of connections and is thread-safe.
 *
 * <p>Expired jobs stay until {@link #purgeExpired} deletes them with their attempts and winners.
 */
public final class SqliteJobStore implements JobStore {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteJobStore.class);
  private static final int POOL_SIZE = 4;
  private static final int BUSY_TIMEOUT_MILLIS = 30_000;
  private static final String TERMINAL = "('SUCCEEDED','FAILED','CANCELLED')";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> PROPERTIES = new TypeReference<>() {};
  private static final TypeReference<List<StageProgress>> PROGRESS = new TypeReference<>() {};

  private static final String JOB_COLUMNS = "job_id, sql_text, properties, state, version, owner, lease_epoch,"
      + " lease_expires_at, cancel_requested, created_at, updated_at, finished_at, progress, error_code,"
      + " error_message, error_line, error_column, result_location, summary, expires_at, caller";

  private final Path file;
  private final boolean deleteOnClose;
  private final Duration retention;
  private final BlockingQueue<Connection> pool = new ArrayBlockingQueue<>(POOL_SIZE);
  private final List<Connection> all = new ArrayList<>();
  private volatile boolean closed;

  private SqliteJobStore(Path file, boolean deleteOnClose, Duration retention) {
    this.file = file;
    this.deleteOnClose = deleteOnClose;
    this.retention = Objects.requireNonNull(retention, "retention");
    if (retention.isNegative()) {
      throw new IllegalArgumentException("Invalid retention: " + retention + " (must not be negative)");
    }
    try {
      for (int i = 0; i < POOL_SIZE; i++) {
        Connection c = connect(file);
        all.add(c);
        pool.add(c);
      }
      createSchema();
    } catch (SQLException e) {
      closeConnections();
      throw new JobStoreException("Cannot open the job store database " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Opens (creating if needed) the job store in the SQLite file {@code file}.
   *
   * @param retention how long finished jobs are kept: their {@code expiresAt} is the finish time
   *     plus this
   * @throws JobStoreException if the file cannot be opened as a SQLite database
   */
  public static SqliteJobStore open(Path file, Duration retention) {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      try {
        Files.createDirectories(parent);
      } catch (IOException e) {
        throw new JobStoreException("Cannot create the directory of the job store database " + file, e);
      }
    }
    return new SqliteJobStore(file, false, retention);
  }

  /** A job store in a new temporary file, deleted (with its WAL files) on {@link #close}: for tests. */
  public static SqliteJobStore temporary(Duration retention) {
    try {
      Path f = Files.createTempFile("squall-jobs-", ".db");
      return new SqliteJobStore(f, true, retention);
    } catch (IOException e) {
      throw new JobStoreException("Cannot create a temporary job store database", e);
    }
  }

  /** The database file. */
  public Path file() {
    return file;
  }

  private static Connection connect(Path file) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
    config.setBusyTimeout(BUSY_TIMEOUT_MILLIS);
    config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    return config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  private void createSchema() throws SQLException {
    inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.executeUpdate("CREATE TABLE IF NOT EXISTS jobs ("
            + " job_id TEXT PRIMARY KEY, sql_text TEXT NOT NULL, properties TEXT NOT NULL, state TEXT NOT NULL,"
            + " version INTEGER NOT NULL, owner TEXT, lease_epoch INTEGER NOT NULL, lease_expires_at INTEGER,"
            + " cancel_requested INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
            + " finished_at INTEGER, progress TEXT NOT NULL, error_code TEXT, error_message TEXT,"
            + " error_line INTEGER, error_column INTEGER, result_location TEXT, summary BLOB, expires_at INTEGER,"
            + " caller TEXT NOT NULL DEFAULT '')");
        addCallerColumn(c);
        s.executeUpdate("CREATE INDEX IF NOT EXISTS jobs_unfinished ON jobs (created_at, job_id)"
            + " WHERE state NOT IN " + TERMINAL);
        s.executeUpdate("CREATE INDEX IF NOT EXISTS jobs_expiry ON jobs (expires_at) WHERE expires_at IS NOT NULL");
        s.executeUpdate("CREATE TABLE IF NOT EXISTS attempts ("
            + " job_id TEXT NOT NULL, stage_id INTEGER NOT NULL, partition_id INTEGER NOT NULL,"
            + " attempt INTEGER NOT NULL, lease_epoch INTEGER NOT NULL, state TEXT NOT NULL, started_at INTEGER,"
            + " finished_at INTEGER, detail BLOB, PRIMARY KEY (job_id, stage_id, partition_id, attempt))");
        s.executeUpdate("CREATE TABLE IF NOT EXISTS winners ("
            + " job_id TEXT NOT NULL, stage_id INTEGER NOT NULL, partition_id INTEGER NOT NULL,"
            + " attempt INTEGER NOT NULL, result BLOB NOT NULL, PRIMARY KEY (job_id, stage_id, partition_id))");
      }
      return null;
    });
  }

  @Override
  public JobRecord create(NewJob job, Instant now) {
    JobStoreLimits.check(job);
    long t = now.toEpochMilli();
    return write("create job " + job.jobId(), c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO jobs (" + JOB_COLUMNS + ")"
          + " VALUES (?, ?, ?, 'QUEUED', 1, NULL, 0, NULL, 0, ?, ?, NULL, '[]', NULL, NULL, NULL, NULL, NULL, NULL, NULL, ?)"
          + " ON CONFLICT (job_id) DO NOTHING")) {
        ps.setString(1, job.jobId());
        ps.setString(2, job.sql());
        ps.setString(3, toJson(job.properties()));
        ps.setLong(4, t);
        ps.setLong(5, t);
        ps.setString(6, job.caller());
        if (ps.executeUpdate() == 0) {
          throw new StateConflictException("Job " + job.jobId() + " exists already");
        }
      }
      return read(c, job.jobId()).orElseThrow();
    });
  }

  @Override
  public Optional<JobRecord> get(String jobId) {
    return withConnection("read job " + jobId, c -> read(c, jobId));
  }

  @Override
  public Optional<Lease> acquire(String jobId, String owner, Instant now, Duration leaseFor) {
    Objects.requireNonNull(owner, "owner");
    long t = now.toEpochMilli();
    Instant expires = now.plus(leaseFor);
    return write("acquire job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET owner = ?, lease_epoch = lease_epoch + 1,"
          + " lease_expires_at = ?, version = version + 1, updated_at = ?"
          + " WHERE job_id = ? AND state NOT IN " + TERMINAL
          + " AND (owner IS NULL OR lease_expires_at <= ? OR owner = ?)")) {
        ps.setString(1, owner);
        ps.setLong(2, expires.toEpochMilli());
        ps.setLong(3, t);
        ps.setString(4, jobId);
        ps.setLong(5, t);
        ps.setString(6, owner);
        int n = ps.executeUpdate();
        JobRecord job = read(c, jobId).orElseThrow(() -> new NoSuchJobException(jobId));
        if (n == 0) {
          return Optional.<Lease>empty();
        }
        return Optional.of(new Lease(jobId, owner, job.leaseEpoch(), job.leaseExpiresAt()));
      }
    });
  }

  @Override
  public Lease renew(Lease lease, Instant now, Duration leaseFor) {
    Instant expires = now.plus(leaseFor);
    return write("renew lease of job " + lease.jobId(), c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET lease_expires_at = ?, version = version + 1,"
          + " updated_at = ? WHERE job_id = ? AND lease_epoch = ? AND owner = ? AND state NOT IN " + TERMINAL)) {
        ps.setLong(1, expires.toEpochMilli());
        ps.setLong(2, now.toEpochMilli());
        ps.setString(3, lease.jobId());
        ps.setLong(4, lease.epoch());
        ps.setString(5, lease.owner());
        if (ps.executeUpdate() == 0) {
          throw WriteRefusals.leaseLost(lease, read(c, lease.jobId()));
        }
      }
      return new Lease(lease.jobId(), lease.owner(), lease.epoch(), Instant.ofEpochMilli(expires.toEpochMilli()));
    });
  }

  @Override
  public void release(Lease lease, Instant now) {
    write("release lease of job " + lease.jobId(), c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET owner = NULL, lease_expires_at = NULL,"
          + " version = version + 1, updated_at = ? WHERE job_id = ? AND lease_epoch = ? AND owner = ?")) {
        ps.setLong(1, now.toEpochMilli());
        ps.setString(2, lease.jobId());
        ps.setLong(3, lease.epoch());
        ps.setString(4, lease.owner());
        ps.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public JobRecord transition(Lease lease, JobState from, JobState to, JobUpdate update, Instant now) {
    if (!from.canMoveTo(to)) {
      throw new StateConflictException("Job " + lease.jobId() + " may not move from " + from + " to " + to);
    }
    JobUpdate u = JobStoreLimits.check(lease.jobId(), update);
    return write("move job " + lease.jobId() + " from " + from + " to " + to, c -> {
      List<Object> params = new ArrayList<>();
      StringBuilder set = new StringBuilder("state = ?");
      params.add(to.name());
      appendCommonSets(set, params, u, now);
      if (to.isTerminal()) {
        set.append(", owner = NULL, lease_expires_at = NULL, finished_at = ?, expires_at = ?");
        params.add(now.toEpochMilli());
        params.add(now.plus(retention).toEpochMilli());
      }
      String sql = "UPDATE jobs SET " + set + " WHERE job_id = ? AND lease_epoch = ? AND owner = ? AND state = ?";
      params.add(lease.jobId());
      params.add(lease.epoch());
      params.add(lease.owner());
      params.add(from.name());
      if (execute(c, sql, params) == 0) {
        Optional<JobRecord> current = read(c, lease.jobId());
        throw WriteRefusals.ofTransition(lease, current, from, to);
      }
      return read(c, lease.jobId()).orElseThrow();
    });
  }

  @Override
  public JobRecord update(Lease lease, JobUpdate update, Instant now) {
    JobUpdate u = JobStoreLimits.check(lease.jobId(), update);
    return write("update job " + lease.jobId(), c -> {
      List<Object> params = new ArrayList<>();
      StringBuilder set = new StringBuilder("state = state");
      appendCommonSets(set, params, u, now);
      String sql = "UPDATE jobs SET " + set + " WHERE job_id = ? AND lease_epoch = ? AND owner = ?"
          + " AND state NOT IN " + TERMINAL;
      params.add(lease.jobId());
      params.add(lease.epoch());
      params.add(lease.owner());
      if (execute(c, sql, params) == 0) {
        Optional<JobRecord> current = read(c, lease.jobId());
        throw WriteRefusals.ofUpdate(lease, current);
      }
      return read(c, lease.jobId()).orElseThrow();
    });
  }

  /** Appends the version bump, the update time and the update's non-null fields. */
  private static void appendCommonSets(StringBuilder set, List<Object> params, JobUpdate u, Instant now) {
    set.append(", version = version + 1, updated_at = ?");
    params.add(now.toEpochMilli());
    if (u.progress() != null) {
      set.append(", progress = ?");
      params.add(toJson(u.progress()));
    }
    if (u.error() != null) {
      set.append(", error_code = ?, error_message = ?, error_line = ?, error_column = ?");
      params.add(u.error().code());
      params.add(u.error().message());
      params.add(u.error().line());
      params.add(u.error().column());
    }
    if (u.resultLocation() != null) {
      set.append(", result_location = ?");
      params.add(u.resultLocation());
    }
    if (u.summary() != null) {
      set.append(", summary = ?");
      params.add(u.summary());
    }
  }

  @Override
  public JobRecord requestCancel(String jobId, Instant now) {
    return write("request cancel of job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET cancel_requested = 1, version = version + 1,"
          + " updated_at = ? WHERE job_id = ? AND cancel_requested = 0 AND state NOT IN " + TERMINAL)) {
        ps.setLong(1, now.toEpochMilli());
        ps.setString(2, jobId);
        ps.executeUpdate();
      }
      return read(c, jobId).orElseThrow(() -> new NoSuchJobException(jobId));
    });
  }

  @Override
  public List<JobRecord> unfinished(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("Invalid limit: " + limit);
    }
    return withConnection("list unfinished jobs", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT " + JOB_COLUMNS + " FROM jobs WHERE state NOT IN "
          + TERMINAL + " ORDER BY created_at, job_id LIMIT ?")) {
        ps.setInt(1, limit);
        List<JobRecord> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(toRecord(rs));
          }
        }
        return out;
      }
    });
  }

  @Override
  public void attemptStarted(String jobId, int stageId, int partition, int attempt, long leaseEpoch, Instant now) {
    JobStoreLimits.checkTask(stageId, partition, attempt);
    write("record start of attempt " + attempt + " of task " + stageId + "/" + partition + " of job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO attempts (job_id, stage_id, partition_id, attempt,"
          + " lease_epoch, state, started_at, finished_at, detail) VALUES (?, ?, ?, ?, ?, 'RUNNING', ?, NULL, NULL)"
          + " ON CONFLICT DO NOTHING")) {
        ps.setString(1, jobId);
        ps.setInt(2, stageId);
        ps.setInt(3, partition);
        ps.setInt(4, attempt);
        ps.setLong(5, leaseEpoch);
        ps.setLong(6, now.toEpochMilli());
        if (ps.executeUpdate() == 0) {
          throw new StateConflictException("Attempt " + attempt + " of task " + stageId + "/" + partition + " of job "
              + jobId + " was recorded before");
        }
      }
      return null;
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>An attempt whose start was not recorded gets lease epoch 0 and a null start time. Finishing
   * an attempt again in the same state does nothing more than overwrite the detail; finishing it
   * in the other state is refused with {@link StateConflictException}.
   */
  @Override
  public void attemptFinished(String jobId, int stageId, int partition, int attempt, AttemptState state,
      byte[] detail, Instant now) {
    JobStoreLimits.checkTask(stageId, partition, attempt);
    JobStoreLimits.checkDetail(jobId, stageId, partition, attempt, detail);
    if (state == AttemptState.RUNNING) {
      throw new IllegalArgumentException("An attempt finishes as SUCCEEDED or FAILED, not RUNNING");
    }
    write("record end of attempt " + attempt + " of task " + stageId + "/" + partition + " of job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO attempts (job_id, stage_id, partition_id, attempt,"
          + " lease_epoch, state, started_at, finished_at, detail) VALUES (?, ?, ?, ?, 0, ?, NULL, ?, ?)"
          + " ON CONFLICT DO UPDATE SET state = excluded.state, finished_at = excluded.finished_at,"
          + " detail = excluded.detail WHERE attempts.state IN ('RUNNING', excluded.state)")) {
        ps.setString(1, jobId);
        ps.setInt(2, stageId);
        ps.setInt(3, partition);
        ps.setInt(4, attempt);
        ps.setString(5, state.name());
        ps.setLong(6, now.toEpochMilli());
        if (detail == null) {
          ps.setNull(7, Types.BLOB);
        } else {
          ps.setBytes(7, detail);
        }
        if (ps.executeUpdate() == 0) {
          throw new StateConflictException("Attempt " + attempt + " of task " + stageId + "/" + partition + " of job "
              + jobId + " finished before in another state than " + state);
        }
      }
      return null;
    });
  }

  @Override
  public List<TaskAttempt> attempts(String jobId) {
    return withConnection("list attempts of job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT stage_id, partition_id, attempt, lease_epoch, state,"
          + " started_at, finished_at, detail FROM attempts WHERE job_id = ?"
          + " ORDER BY stage_id, partition_id, attempt")) {
        ps.setString(1, jobId);
        List<TaskAttempt> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new TaskAttempt(jobId, rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getLong(4),
                AttemptState.valueOf(rs.getString(5)), instant(rs, 6), instant(rs, 7), rs.getBytes(8)));
          }
        }
        return out;
      }
    });
  }

  @Override
  public TaskWinner recordWinner(String jobId, int stageId, int partition, int attempt, byte[] result) {
    JobStoreLimits.checkTask(stageId, partition, attempt);
    Objects.requireNonNull(result, "result");
    JobStoreLimits.checkResult(jobId, stageId, partition, attempt, result);
    return write("record winner of task " + stageId + "/" + partition + " of job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO winners (job_id, stage_id, partition_id, attempt,"
          + " result) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
        ps.setString(1, jobId);
        ps.setInt(2, stageId);
        ps.setInt(3, partition);
        ps.setInt(4, attempt);
        ps.setBytes(5, result);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT attempt, result FROM winners"
          + " WHERE job_id = ? AND stage_id = ? AND partition_id = ?")) {
        ps.setString(1, jobId);
        ps.setInt(2, stageId);
        ps.setInt(3, partition);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return new TaskWinner(jobId, stageId, partition, rs.getInt(1), rs.getBytes(2));
        }
      }
    });
  }

  @Override
  public boolean discardWinner(String jobId, int stageId, int partition, int lostAttempt) {
    return write("discard winner of task " + stageId + "/" + partition + " of job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM winners"
          + " WHERE job_id = ? AND stage_id = ? AND partition_id = ? AND attempt = ?")) {
        ps.setString(1, jobId);
        ps.setInt(2, stageId);
        ps.setInt(3, partition);
        ps.setInt(4, lostAttempt);
        return ps.executeUpdate() == 1;
      }
    });
  }

  @Override
  public List<TaskWinner> winners(String jobId) {
    return withConnection("list winners of job " + jobId, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT stage_id, partition_id, attempt, result FROM winners"
          + " WHERE job_id = ? ORDER BY stage_id, partition_id")) {
        ps.setString(1, jobId);
        List<TaskWinner> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new TaskWinner(jobId, rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getBytes(4)));
          }
        }
        return out;
      }
    });
  }

  @Override
  public int purgeExpired(Instant now) {
    long t = now.toEpochMilli();
    return write("purge expired jobs", c -> {
      String expired = "SELECT job_id FROM jobs WHERE expires_at IS NOT NULL AND expires_at <= ?";
      for (String table : List.of("attempts", "winners")) {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE job_id IN (" + expired + ")")) {
          ps.setLong(1, t);
          ps.executeUpdate();
        }
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM jobs WHERE expires_at IS NOT NULL AND expires_at <= ?")) {
        ps.setLong(1, t);
        int n = ps.executeUpdate();
        if (n > 0) {
          LOG.info("Purged {} expired jobs from {}", n, file);
        }
        return n;
      }
    });
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeConnections();
    if (deleteOnClose) {
      for (String suffix : List.of("", "-wal", "-shm")) {
        try {
          Files.deleteIfExists(Path.of(file + suffix));
        } catch (IOException e) {
          LOG.warn("Cannot delete temporary job store file {}{}: {}", file, suffix, e.toString());
        }
      }
    }
  }

  private void closeConnections() {
    for (Connection c : all) {
      try {
        c.close();
      } catch (SQLException e) {
        LOG.warn("Closing a job store connection failed: {}", e.toString());
      }
    }
  }

  // ---- reading rows

  private static Optional<JobRecord> read(Connection c, String jobId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + JOB_COLUMNS + " FROM jobs WHERE job_id = ?")) {
      ps.setString(1, jobId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(toRecord(rs)) : Optional.empty();
      }
    }
  }

  private static JobRecord toRecord(ResultSet rs) throws SQLException {
    String errorCode = rs.getString("error_code");
    JobError error = errorCode == null ? null
        : new JobError(errorCode, rs.getString("error_message"), rs.getInt("error_line"), rs.getInt("error_column"));
    return new JobRecord(
        rs.getString("job_id"),
        rs.getString("sql_text"),
        fromJson(rs.getString("properties"), PROPERTIES),
        JobState.valueOf(rs.getString("state")),
        rs.getLong("version"),
        rs.getString("owner"),
        rs.getLong("lease_epoch"),
        instant(rs, "lease_expires_at"),
        rs.getInt("cancel_requested") != 0,
        instant(rs, "created_at"),
        instant(rs, "updated_at"),
        instant(rs, "finished_at"),
        fromJson(rs.getString("progress"), PROGRESS),
        error,
        rs.getString("result_location"),
        rs.getBytes("summary"),
        instant(rs, "expires_at"),
        rs.getString("caller"));
  }

  /** Databases created before jobs recorded their caller get the column; their jobs have none. */
  private static void addCallerColumn(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA table_info(jobs)")) {
      while (rs.next()) {
        if (rs.getString("name").equals("caller")) {
          return;
        }
      }
    }
    try (Statement s = c.createStatement()) {
      s.executeUpdate("ALTER TABLE jobs ADD COLUMN caller TEXT NOT NULL DEFAULT ''");
    }
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  private static int execute(Connection c, String sql, List<Object> params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.size(); i++) {
        Object p = params.get(i);
        if (p instanceof byte[] b) {
          ps.setBytes(i + 1, b);
        } else {
          ps.setObject(i + 1, p);
        }
      }
      return ps.executeUpdate();
    }
  }

  private static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new JobStoreException("Cannot encode " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }

  private static <T> T fromJson(String json, TypeReference<T> type) {
    try {
      return JSON.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new JobStoreException("Corrupt JSON in the job store: " + e.getOriginalMessage(), e);
    }
  }

  // ---- connections and transactions

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T withConnection(String what, Work<T> work) {
    Connection c = borrow();
    try {
      return work.run(c);
    } catch (SQLException e) {
      throw new JobStoreException("Cannot " + what + " in " + file + ": " + e.getMessage(), e);
    } finally {
      pool.add(c);
    }
  }

  /** Runs {@code work} in one write transaction (BEGIN IMMEDIATE); a thrown exception rolls it back. */
  private <T> T write(String what, Work<T> work) {
    try {
      return inTransaction(work);
    } catch (SQLException e) {
      throw new JobStoreException("Cannot " + what + " in " + file + ": " + e.getMessage(), e);
    }
  }

  private <T> T inTransaction(Work<T> work) throws SQLException {
    Connection c = borrow();
    try {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException r) {
          e.addSuppressed(r);
        }
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } finally {
      pool.add(c);
    }
  }

  private Connection borrow() {
    if (closed) {
      throw new JobStoreException("The job store " + file + " is closed");
    }
    try {
      Connection c = pool.poll(BUSY_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      if (c == null) {
        throw new JobStoreException("No free connection to the job store " + file + " within "
            + BUSY_TIMEOUT_MILLIS + " ms");
      }
      return c;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JobStoreException("Interrupted while waiting for a job store connection", e);
    }
  }
}
