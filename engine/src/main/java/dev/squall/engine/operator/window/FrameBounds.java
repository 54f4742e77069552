package dev.squall.engine.operator.window;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.WindowFrame;

/**
 * The frame of every row as a row range {@code [start[i], end[i])} of the sorted rows (empty when
 * start &gt;= end). ROWS bounds count rows, clamped to the partition. RANGE bounds: CURRENT ROW
 * reaches to the edge of the row's peer group; an offset bound is the first row (for the start) or
 * one past the last row (for the end) whose order key lies within the offset of the row's key, found
 * by binary search among the partition's non-NULL keys; a row whose key is NULL has its NULL peers
 * as the offset bounds (as in Trino and DuckDB). Both ends never decrease from one row to the next.
 */
final class FrameBounds {
  final int[] start;
  final int[] end;

  FrameBounds(WindowFrame frame, PartitionLayout layout, Column[] sorted, java.util.List<SortKey> orderKeys) {
    int rows = layout.peerStart.length;
    start = new int[rows];
    end = new int[rows];
    boolean range = frame.getUnit() == WindowFrame.Unit.RANGE;
    boolean offsets = isOffset(frame.getStart()) || isOffset(frame.getEnd());
    Column key = null;
    boolean descending = false;
    boolean nullsFirst = false;
    RangeOffset startOffset = null;
    RangeOffset endOffset = null;
    if (range && offsets) {
      if (orderKeys.size() != 1) {
        throw EngineException.badPlan("a RANGE frame with an offset needs exactly one order key");
      }
      key = sorted[orderKeys.get(0).getColumn()];
      descending = orderKeys.get(0).getDescending();
      nullsFirst = orderKeys.get(0).getNullsFirst();
      startOffset = isOffset(frame.getStart()) ? new RangeOffset(key, frame.getStart().getOffset()) : null;
      endOffset = isOffset(frame.getEnd()) ? new RangeOffset(key, frame.getEnd().getOffset()) : null;
    }
    for (int p = 0; p < layout.partitions(); p++) {
      int ps = layout.partitionStarts[p];
      int pe = layout.partitionStarts[p + 1];
      int nonNullStart = ps;
      int nonNullEnd = pe;
      if (key != null) {
        // NULL keys sit together at one end of the partition.
        while (nullsFirst && nonNullStart < pe && key.isNull(nonNullStart)) {
          nonNullStart++;
        }
        while (!nullsFirst && nonNullEnd > ps && key.isNull(nonNullEnd - 1)) {
          nonNullEnd--;
        }
      }
      for (int i = ps; i < pe; i++) {
        if (!range) {
          start[i] = rowsBound(frame.getStart(), i, ps, pe, false);
          end[i] = rowsBound(frame.getEnd(), i, ps, pe, true);
        } else {
          boolean nullKey = key != null && key.isNull(i);
          start[i] = rangeBound(frame.getStart(), i, ps, pe, false, layout, startOffset, nullKey,
              descending, nonNullStart, nonNullEnd);
          end[i] = rangeBound(frame.getEnd(), i, ps, pe, true, layout, endOffset, nullKey,
              descending, nonNullStart, nonNullEnd);
        }
      }
    }
  }

  private static boolean isOffset(FrameBound b) {
    return b.getKind() == FrameBound.Kind.PRECEDING || b.getKind() == FrameBound.Kind.FOLLOWING;
  }

  /** A ROWS bound; {@code isEnd} gives the exclusive end. */
  private static int rowsBound(FrameBound b, int i, int ps, int pe, boolean isEnd) {
    int exclusive = isEnd ? 1 : 0;
    long at = switch (b.getKind()) {
      case UNBOUNDED_PRECEDING -> ps;
      case UNBOUNDED_FOLLOWING -> pe;
      case CURRENT_ROW -> (long) i + exclusive;
      case PRECEDING -> (long) i - rowCount(b) + exclusive;
      case FOLLOWING -> (long) i + rowCount(b) + exclusive;
      default -> throw EngineException.badPlan("window frame bound " + b.getKind());
    };
    return (int) Math.max(ps, Math.min(pe, at));
  }

  static long rowCount(FrameBound b) {
    var lit = b.getOffset().getLiteral();
    long n = switch (lit.getValueCase()) {
      case LONG_VALUE -> lit.getLongValue();
      case DECIMAL_UNSCALED -> new java.math.BigDecimal(new java.math.BigInteger(lit.getDecimalUnscaled()),
          b.getOffset().getType().getScale()).longValue();
      default -> throw EngineException.badPlan("ROWS frame offset " + lit);
    };
    if (n < 0) {
      throw EngineException.user("Window frame offset must not be negative: " + n);
    }
    return Math.min(n, Integer.MAX_VALUE);
  }

  private static int rangeBound(FrameBound b, int i, int ps, int pe, boolean isEnd, PartitionLayout layout,
      RangeOffset offset, boolean nullKey, boolean descending, int nonNullStart, int nonNullEnd) {
    switch (b.getKind()) {
      case UNBOUNDED_PRECEDING:
        return ps;
      case UNBOUNDED_FOLLOWING:
        return pe;
      case CURRENT_ROW:
        return isEnd ? layout.peerEnd[i] : layout.peerStart[i];
      case PRECEDING:
      case FOLLOWING:
        if (nullKey) {
          return isEnd ? layout.peerEnd[i] : layout.peerStart[i];
        }
        // PRECEDING moves against the sort direction: down for ASC, up for DESC.
        boolean up = (b.getKind() == FrameBound.Kind.FOLLOWING) != descending;
        offset.target(i, up ? 1 : -1);
        return search(offset, nonNullStart, nonNullEnd, descending, isEnd);
      default:
        throw EngineException.badPlan("window frame bound " + b.getKind());
    }
  }

  /**
   * The first row in [lo, hi) whose key is not before the target in sort order (for a start) or is
   * after it (for an end); hi when there is none.
   */
  private static int search(RangeOffset offset, int lo, int hi, boolean descending, boolean isEnd) {
    int threshold = isEnd ? 1 : 0;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      int c = offset.compareToTarget(mid);
      if (descending) {
        c = -c;
      }
      if (c >= threshold) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /** Heap bytes of the per-row arrays, for memory accounting. */
  static long bytesPerRow() {
    return 2L * Integer.BYTES;
  }
}
