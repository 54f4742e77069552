package dev.squall.engine.spill;

import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Rows spilled into {@value #FANOUT} files by bits of their row hash ({@code hash.RowHashes}, the
 * hash aggregation and joins use): level 0 takes the hash's top four bits, level 1 the next four,
 * and so on, so a partition that still does not fit is split again by bits its rows do not share.
 * The high bits are used because the rows of one shuffle partition agree in {@code hash mod
 * partitions}, which ties their low bits. Rows of equal keys (equal hashes) land in the same
 * partition at every level, on both sides of a join.
 */
public final class HashPartitionedSpill {
  /** Partitions per level. */
  public static final int FANOUT = 16;
  private static final int BITS = 4;
  /** Levels before the hash has no bits left to split by. */
  public static final int MAX_LEVELS = 32 / BITS;

  private final OperatorMemory memory;
  private final Schema schema;
  private final int level;
  private final SpillFile[] files = new SpillFile[FANOUT];

  /**
   * @param level which four bits of the hash choose the partition, 0 (top) to {@link #MAX_LEVELS} - 1
   */
  public HashPartitionedSpill(OperatorMemory memory, Schema schema, int level) {
    if (level < 0 || level >= MAX_LEVELS) {
      throw new IllegalArgumentException("spill level " + level);
    }
    this.memory = memory;
    this.schema = schema;
    this.level = level;
  }

  /** The partition of a row hash at {@code level}. */
  public static int partitionOf(int hash, int level) {
    return (hash >>> (32 - BITS * (level + 1))) & (FANOUT - 1);
  }

  /** Writes the {@code batch.rows()} rows of {@code batch} to the partitions of their hashes. */
  public void add(ColumnBatch batch, int[] hashes) {
    int n = batch.rows();
    int[] counts = new int[FANOUT];
    int[] parts = new int[n];
    for (int i = 0; i < n; i++) {
      int p = partitionOf(hashes[i], level);
      parts[i] = p;
      counts[p]++;
    }
    for (int p = 0; p < FANOUT; p++) {
      if (counts[p] == 0) {
        continue;
      }
      ColumnBatch part = batch;
      if (counts[p] != n) {
        int[] rows = new int[counts[p]];
        int m = 0;
        for (int i = 0; i < n; i++) {
          if (parts[i] == p) {
            rows[m++] = i;
          }
        }
        part = batch.select(rows, m);
      }
      file(p).write(part, schema, memory.allocator());
    }
  }

  private SpillFile file(int p) {
    if (files[p] == null) {
      files[p] = memory.spill().newFile(memory.operator());
    }
    return files[p];
  }

  /** Ends every file; the partitions in order, null where no row went. */
  public List<SpillFile> finish() {
    List<SpillFile> out = new ArrayList<>();
    for (SpillFile f : files) {
      if (f != null) {
        f.finish();
      }
      out.add(f);
    }
    return out;
  }

  /** Deletes every file (after a failure, or when the partitions are no longer needed). */
  public void delete() {
    for (SpillFile f : files) {
      if (f != null) {
        f.delete();
      }
    }
  }
}
