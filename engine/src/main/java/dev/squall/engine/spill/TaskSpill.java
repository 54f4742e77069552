package dev.squall.engine.spill;

import dev.squall.engine.EngineException;
import dev.squall.proto.v1.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spill files of one task attempt: made in a directory of the task's own (created on the first
 * spill), counted against the task's disk budget while they exist, and all deleted by
 * {@link #close()}, which the task runner calls in a finally block, so that a task that ends, fails
 * or is cancelled leaves nothing behind.
 *
 * <p>Thread-safe: the counters are shared by every operator of the task.
 */
public final class TaskSpill implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskSpill.class);

  private final SpillSettings settings;
  private final Set<SpillFile> files = new LinkedHashSet<>();
  private Path taskDirectory;
  private long onDisk;
  private long spilled;
  private int counter;
  private boolean closed;

  public TaskSpill(SpillSettings settings) {
    this.settings = settings;
  }

  /** A registry that never spills (spilling off). */
  public static TaskSpill disabled() {
    return new TaskSpill(SpillSettings.DISABLED);
  }

  public boolean enabled() {
    return settings.enabled();
  }

  /**
   * A new, empty spill file for {@code operator}.
   *
   * @throws EngineException INTERNAL_ERROR when spilling is off or the directory cannot be made
   */
  public synchronized SpillFile newFile(String operator) {
    if (!enabled() || closed) {
      throw new EngineException(ErrorCode.INTERNAL_ERROR, "operator " + operator + " tried to spill with spilling off");
    }
    try {
      if (taskDirectory == null) {
        Files.createDirectories(settings.directory());
        taskDirectory = Files.createDirectory(settings.directory().resolve("task-" + UUID.randomUUID()));
      }
      SpillFile f = new SpillFile(this, operator, taskDirectory.resolve("spill-" + (counter++) + ".arrows"));
      files.add(f);
      return f;
    } catch (IOException e) {
      LOG.warn("cannot create a spill file under {}", settings.directory(), e);
      throw new EngineException(ErrorCode.INTERNAL_ERROR, "operator " + operator + " cannot create a spill file", e);
    }
  }

  /**
   * Counts {@code bytes} more written by {@code file}.
   *
   * @throws SpillDiskExceededException when the task's spill files would pass the disk budget
   */
  synchronized void charge(SpillFile file, long bytes) {
    if (onDisk + bytes > settings.diskBudgetBytes()) {
      // What the operator holds on disk now, over all its files: the one being written may be empty yet.
      long operatorBytes = 0;
      for (SpillFile f : files) {
        operatorBytes += f.operator().equals(file.operator()) ? f.bytes() : 0;
      }
      throw new SpillDiskExceededException(file.operator(), operatorBytes, onDisk, settings.diskBudgetBytes());
    }
    onDisk += bytes;
    spilled += bytes;
  }

  /** Forgets a deleted file and gives back its bytes. */
  synchronized void deleted(SpillFile file, long bytes) {
    if (files.remove(file)) {
      onDisk -= bytes;
    }
  }

  /** Bytes written to spill files so far (compressed, as on disk), deleted ones included. */
  public synchronized long bytesSpilled() {
    return spilled;
  }

  /** Bytes of spill files that exist now. */
  public synchronized long bytesOnDisk() {
    return onDisk;
  }

  /** Deletes every spill file of the task and its directory. Idempotent. */
  @Override
  public void close() {
    SpillFile[] open;
    Path dir;
    synchronized (this) {
      closed = true;
      open = files.toArray(new SpillFile[0]);
      dir = taskDirectory;
    }
    for (SpillFile f : open) {
      f.delete();
    }
    if (dir != null) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        LOG.warn("cannot delete the spill directory {}", dir, e);
      }
    }
  }

  /** Rethrows an I/O failure of a spill file as an engine error that names no path. */
  static EngineException ioFailure(String operator, IOException e) {
    LOG.warn("spill I/O of operator {} failed", operator, e);
    return new EngineException(ErrorCode.INTERNAL_ERROR, "operator " + operator + " failed to read or write its spill file");
  }
}
