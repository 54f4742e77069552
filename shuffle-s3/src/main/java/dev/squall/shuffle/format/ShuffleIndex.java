package dev.squall.shuffle.format;

import dev.squall.proto.v1.PartitionRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The index of a map output object: where each output partition lies in it.
 *
 * <p>The same index travels two ways: as {@code TaskResult.partitions} (what the scheduler uses),
 * and as a footer at the end of the object, so that the object describes itself (for recovery
 * and inspection without the task result). Footer layout, all integers big-endian:
 * <pre>
 *   entry × count : int32 partition, int64 offset, int64 length, int64 rows   (28 bytes each)
 *   trailer       : int32 partitionCount, int32 count, int64 MAGIC            (16 bytes)
 * </pre>
 * {@code MAGIC} is the ASCII of {@code "SQSHUF01"}. Entries are ordered by partition, then by
 * offset. A partition has one entry per spill run in which it received rows (a single entry
 * unless the writer spilled), and a partition that received no rows has exactly one entry of
 * length 0. Offsets count from the start of the object; the data region ends where the footer
 * begins.
 */
public final class ShuffleIndex {
  /** "SQSHUF01" in ASCII: marks a Squall shuffle object footer, format version 1. */
  public static final long MAGIC = 0x5351534855463031L;
  /** Bytes of one entry. */
  public static final int ENTRY_BYTES = 28;
  /** Bytes of the fixed trailer at the very end of the object. */
  public static final int TRAILER_BYTES = 16;

  private final int partitionCount;
  private final List<PartitionRange> ranges;

  /**
   * @param partitionCount number of output partitions of the map output
   * @param ranges entries ordered by partition, then offset
   */
  public ShuffleIndex(int partitionCount, List<PartitionRange> ranges) {
    this.partitionCount = partitionCount;
    this.ranges = List.copyOf(ranges);
  }

  public int partitionCount() {
    return partitionCount;
  }

  public List<PartitionRange> ranges() {
    return ranges;
  }

  /** The footer bytes: entries then trailer. */
  public byte[] encodeFooter() {
    ByteBuffer out = ByteBuffer.allocate(ranges.size() * ENTRY_BYTES + TRAILER_BYTES);
    for (PartitionRange r : ranges) {
      out.putInt(r.getPartition()).putLong(r.getOffset()).putLong(r.getLength()).putLong(r.getRows());
    }
    out.putInt(partitionCount).putInt(ranges.size()).putLong(MAGIC);
    return out.array();
  }

  /**
   * Reads the trailer (the last {@link #TRAILER_BYTES} bytes of an object).
   *
   * @return {partitionCount, entryCount}
   * @throws IllegalArgumentException if the bytes do not end with {@link #MAGIC}
   */
  public static int[] decodeTrailer(byte[] trailer, String objectName) {
    if (trailer.length != TRAILER_BYTES) {
      throw new IllegalArgumentException("Shuffle object " + objectName + " is too short for a footer");
    }
    ByteBuffer in = ByteBuffer.wrap(trailer);
    int partitions = in.getInt();
    int count = in.getInt();
    long magic = in.getLong();
    if (magic != MAGIC || partitions < 1 || count < partitions) {
      throw new IllegalArgumentException("Shuffle object " + objectName + " has no valid Squall shuffle footer");
    }
    return new int[] {partitions, count};
  }

  /** Decodes {@code count} entries (without the trailer). */
  public static ShuffleIndex decodeEntries(int partitionCount, int count, byte[] entries) {
    ByteBuffer in = ByteBuffer.wrap(entries);
    List<PartitionRange> ranges = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ranges.add(PartitionRange.newBuilder()
          .setPartition(in.getInt())
          .setOffset(in.getLong())
          .setLength(in.getLong())
          .setRows(in.getLong())
          .build());
    }
    return new ShuffleIndex(partitionCount, ranges);
  }
}
