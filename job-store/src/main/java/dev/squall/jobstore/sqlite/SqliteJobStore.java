package dev.squall.jobstore.sqlite;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.jobstore.AttemptState;
import dev.squall.jobstore.ConcurrencySlot;
import dev.squall.jobstore.ConditionalJobStore;
import dev.squall.jobstore.JobError;
import dev.squall.jobstore.JobRecord;
import dev.squall.jobstore.JobState;
import dev.squall.jobstore.JobStoreException;
import dev.squall.jobstore.JobUpdate;
import dev.squall.jobstore.Lease;
import dev.squall.jobstore.NewJob;
import dev.squall.jobstore.StageProgress;
import dev.squall.jobstore.TaskAttempt;
import dev.squall.jobstore.TaskWinner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * <p>Concurrency slots are rows of {@code slots} (key pool, slot; holder and lease expiry); a slot
 * is taken with {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE expires_at <= now}.
 *
 * <p>The protocol (checks, allowed transitions, refusal diagnosis) is {@link ConditionalJobStore}'s;
 * this class holds only the statements.
 *
 * <p>Expired jobs stay until {@link #purgeExpired} deletes them with their attempts and winners
 * (and lapsed slots).
 */
public final class SqliteJobStore extends ConditionalJobStore {
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
  private final BlockingQueue<Connection> pool = new ArrayBlockingQueue<>(POOL_SIZE);
  private final List<Connection> all = new ArrayList<>();
  private volatile boolean closed;

  private SqliteJobStore(Path file, boolean deleteOnClose, Duration retention) {
    super(retention);
    this.file = file;
    this.deleteOnClose = deleteOnClose;
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
        s.executeUpdate("CREATE TABLE IF NOT EXISTS slots (pool TEXT NOT NULL, slot INTEGER NOT NULL,"
            + " holder TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (pool, slot))");
      }
      return null;
    });
  }

  @Override
  protected Optional<JobRecord> insertJob(NewJob job, Instant now) {
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
        return ps.executeUpdate() == 0 ? Optional.<JobRecord>empty() : read(c, job.jobId());
      }
    });
  }

  @Override
  public Optional<JobRecord> get(String jobId) {
    return withConnection("read job " + jobId, c -> read(c, jobId));
  }

  @Override
  protected Optional<JobRecord> tryAcquire(String jobId, String owner, Instant now, Instant expires) {
    long t = now.toEpochMilli();
    return writeThenRead("acquire job " + jobId, jobId, "UPDATE jobs SET owner = ?, lease_epoch = lease_epoch + 1,"
        + " lease_expires_at = ?, version = version + 1, updated_at = ?"
        + " WHERE job_id = ? AND state NOT IN " + TERMINAL
        + " AND (owner IS NULL OR lease_expires_at <= ? OR owner = ?)",
        List.of(owner, expires.toEpochMilli(), t, jobId, t, owner));
  }

  @Override
  protected boolean tryRenew(Lease lease, Instant now, Instant expires) {
    return write("renew lease of job " + lease.jobId(), c -> execute(c, "UPDATE jobs SET lease_expires_at = ?,"
        + " version = version + 1, updated_at = ? WHERE job_id = ? AND lease_epoch = ? AND owner = ?"
        + " AND state NOT IN " + TERMINAL,
        List.of(expires.toEpochMilli(), now.toEpochMilli(), lease.jobId(), lease.epoch(), lease.owner())) == 1);
  }

  @Override
  protected boolean tryRelease(Lease lease, Instant now) {
    return write("release lease of job " + lease.jobId(), c -> execute(c, "UPDATE jobs SET owner = NULL,"
        + " lease_expires_at = NULL, version = version + 1, updated_at = ?"
        + " WHERE job_id = ? AND lease_epoch = ? AND owner = ?",
        List.of(now.toEpochMilli(), lease.jobId(), lease.epoch(), lease.owner())) == 1);
  }

  @Override
  protected Optional<JobRecord> tryTransition(Lease lease, JobState from, JobState to, JobUpdate u, Instant now,
      Terminal terminal) {
    List<Object> params = new ArrayList<>();
    StringBuilder set = new StringBuilder("state = ?");
    params.add(to.name());
    appendCommonSets(set, params, u, now);
    if (terminal != null) {
      set.append(", owner = NULL, lease_expires_at = NULL, finished_at = ?, expires_at = ?");
      params.add(terminal.finishedAt().toEpochMilli());
      params.add(terminal.expiresAt().toEpochMilli());
    }
    params.addAll(List.of(lease.jobId(), lease.epoch(), lease.owner(), from.name()));
    return writeThenRead("move job " + lease.jobId() + " from " + from + " to " + to, lease.jobId(),
        "UPDATE jobs SET " + set + " WHERE job_id = ? AND lease_epoch = ? AND owner = ? AND state = ?", params);
  }

  @Override
  protected Optional<JobRecord> tryUpdate(Lease lease, JobUpdate u, Instant now) {
    List<Object> params = new ArrayList<>();
    StringBuilder set = new StringBuilder("state = state");
    appendCommonSets(set, params, u, now);
    params.addAll(List.of(lease.jobId(), lease.epoch(), lease.owner()));
    return writeThenRead("update job " + lease.jobId(), lease.jobId(), "UPDATE jobs SET " + set
        + " WHERE job_id = ? AND lease_epoch = ? AND owner = ? AND state NOT IN " + TERMINAL, params);
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
  protected Optional<JobRecord> tryRequestCancel(String jobId, Instant now) {
    return writeThenRead("request cancel of job " + jobId, jobId, "UPDATE jobs SET cancel_requested = 1,"
        + " version = version + 1, updated_at = ? WHERE job_id = ? AND cancel_requested = 0 AND state NOT IN "
        + TERMINAL, List.of(now.toEpochMilli(), jobId));
  }

  /** One conditional UPDATE of a job row; the row after it, or empty when the condition refused it. */
  private Optional<JobRecord> writeThenRead(String what, String jobId, String sql, List<Object> params) {
    return write(what, c -> execute(c, sql, params) == 0 ? Optional.<JobRecord>empty() : read(c, jobId));
  }

  @Override
  protected List<JobRecord> listUnfinished(int limit) {
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
  protected boolean insertAttempt(String jobId, int stageId, int partition, int attempt, long leaseEpoch,
      Instant now) {
    return write("record start of attempt " + attempt + " of task " + stageId + "/" + partition + " of job " + jobId,
        c -> execute(c, "INSERT INTO attempts (job_id, stage_id, partition_id, attempt, lease_epoch, state,"
            + " started_at, finished_at, detail) VALUES (?, ?, ?, ?, ?, 'RUNNING', ?, NULL, NULL) ON CONFLICT DO NOTHING",
            List.of(jobId, stageId, partition, attempt, leaseEpoch, now.toEpochMilli())) == 1);
  }

  @Override
  protected boolean endAttempt(String jobId, int stageId, int partition, int attempt, AttemptState state,
      byte[] detail, Instant now) {
    List<Object> params = new ArrayList<>(List.of(jobId, stageId, partition, attempt, state.name(), now.toEpochMilli()));
    params.add(detail);
    return write("record end of attempt " + attempt + " of task " + stageId + "/" + partition + " of job " + jobId,
        c -> execute(c, "INSERT INTO attempts (job_id, stage_id, partition_id, attempt, lease_epoch, state,"
            + " started_at, finished_at, detail) VALUES (?, ?, ?, ?, 0, ?, NULL, ?, ?)"
            + " ON CONFLICT DO UPDATE SET state = excluded.state, finished_at = excluded.finished_at,"
            + " detail = excluded.detail WHERE attempts.state IN ('RUNNING', excluded.state)", params) == 1);
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
  protected TaskWinner insertWinnerIfAbsent(String jobId, int stageId, int partition, int attempt, byte[] result) {
    return write("record winner of task " + stageId + "/" + partition + " of job " + jobId, c -> {
      execute(c, "INSERT INTO winners (job_id, stage_id, partition_id, attempt, result) VALUES (?, ?, ?, ?, ?)"
          + " ON CONFLICT DO NOTHING", List.of(jobId, stageId, partition, attempt, result));
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
  protected boolean deleteWinner(String jobId, int stageId, int partition, int attempt) {
    return write("discard winner of task " + stageId + "/" + partition + " of job " + jobId, c -> execute(c,
        "DELETE FROM winners WHERE job_id = ? AND stage_id = ? AND partition_id = ? AND attempt = ?",
        List.of(jobId, stageId, partition, attempt)) == 1);
  }

  @Override
  protected List<ConcurrencySlot> readSlots(String pool) {
    return withConnection("read slot pool " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT slot, holder, expires_at FROM slots WHERE pool = ?")) {
        ps.setString(1, pool);
        List<ConcurrencySlot> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new ConcurrencySlot(pool, rs.getInt(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3))));
          }
        }
        return out;
      }
    });
  }

  @Override
  protected boolean tryTakeSlot(String pool, int index, String holder, Instant now, Instant expires) {
    return write("take slot " + index + " of pool " + pool, c -> execute(c, "INSERT INTO slots (pool, slot, holder,"
        + " expires_at) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET holder = excluded.holder,"
        + " expires_at = excluded.expires_at WHERE slots.expires_at <= ?",
        List.of(pool, index, holder, expires.toEpochMilli(), now.toEpochMilli())) == 1);
  }

  @Override
  protected boolean tryFreeSlot(ConcurrencySlot slot) {
    return write("free slot " + slot.index() + " of pool " + slot.pool(), c -> execute(c, "DELETE FROM slots"
        + " WHERE pool = ? AND slot = ? AND holder = ? AND expires_at = ?",
        List.of(slot.pool(), slot.index(), slot.holder(), slot.expiresAt().toEpochMilli())) == 1);
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
      execute(c, "DELETE FROM slots WHERE expires_at <= ?", List.of(t));
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
