package dev.squall.engine.operator.window;

import dev.squall.engine.column.Column;
import dev.squall.engine.operator.sort.RowOrder;
import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.List;

/**
 * Where partitions and peer groups begin and end in rows sorted by (partition keys, order keys):
 * the partitions as a list of start rows, and per row the bounds of its peer group (the rows
 * equal to it on every partition and order key). Equality is the engine's row order
 * ({@link RowOrder}), so NULLs are equal to each other, as window partitions need.
 */
final class PartitionLayout {
  /** Start rows of the partitions, then the row count. */
  final int[] partitionStarts;
  /** Per row, the first row of its peer group. */
  final int[] peerStart;
  /** Per row, one past the last row of its peer group. */
  final int[] peerEnd;

  PartitionLayout(Column[] sorted, int rows, List<Integer> partitionKeys, List<SortKey> orderKeys) {
    List<SortKey> partition = new ArrayList<>();
    for (int k : partitionKeys) {
      partition.add(SortKey.newBuilder().setColumn(k).build());
    }
    List<SortKey> all = new ArrayList<>(partition);
    all.addAll(orderKeys);
    RowOrder partitions = new RowOrder(sorted, partition);
    RowOrder peers = new RowOrder(sorted, all);
    List<Integer> starts = new ArrayList<>();
    peerStart = new int[rows];
    peerEnd = new int[rows];
    int groupStart = 0;
    for (int i = 0; i < rows; i++) {
      if (i == 0 || partitions.compare(i - 1, i) != 0) {
        starts.add(i);
        groupStart = i;
      } else if (peers.compare(i - 1, i) != 0) {
        groupStart = i;
      }
      peerStart[i] = groupStart;
    }
    int groupEnd = rows;
    for (int i = rows - 1; i >= 0; i--) {
      if (i + 1 < rows && peerStart[i + 1] != peerStart[i]) {
        groupEnd = i + 1;
      }
      peerEnd[i] = groupEnd;
    }
    partitionStarts = new int[starts.size() + 1];
    for (int p = 0; p < starts.size(); p++) {
      partitionStarts[p] = starts.get(p);
    }
    partitionStarts[starts.size()] = rows;
  }

  int partitions() {
    return partitionStarts.length - 1;
  }

  /** Heap bytes of the per-row arrays, for memory accounting. */
  static long bytesPerRow() {
    return 2L * Integer.BYTES;
  }
}
