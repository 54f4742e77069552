package dev.squall.engine.operator.window;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.expr.Literals;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.WindowCall;

/**
 * The functions that pick one row's value: LAG and LEAD (a fixed number of rows before or after
 * within the partition, else the default or NULL), FIRST_VALUE, LAST_VALUE and NTH_VALUE (a row of
 * the frame, NULL when the frame has no such row). NULL values are returned as they are (RESPECT
 * NULLS).
 */
final class ValueFunctions {
  private ValueFunctions() {}

  static Column compute(WindowCall call, PartitionLayout layout, FrameBounds frames, Column arg, SqlType type) {
    int rows = layout.peerStart.length;
    Column out = Column.empty(type, rows);
    Column fallback = call.hasDefaultValue()
        ? Literals.column(call.getDefaultValue().getLiteral(), type, 1) : null;
    long offset = call.getOffset();
    for (int p = 0; p < layout.partitions(); p++) {
      int ps = layout.partitionStarts[p];
      int pe = layout.partitionStarts[p + 1];
      for (int i = ps; i < pe; i++) {
        long row = switch (call.getFunction()) {
          case LAG -> i - offset >= ps ? i - offset : -1;
          case LEAD -> i + offset < pe ? i + offset : -1;
          case FIRST_VALUE -> frames.start[i] < frames.end[i] ? frames.start[i] : -1;
          case LAST_VALUE -> frames.start[i] < frames.end[i] ? frames.end[i] - 1 : -1;
          case NTH_VALUE -> {
            if (offset <= 0) {
              throw EngineException.user("NTH_VALUE position must be positive: " + offset);
            }
            yield frames.start[i] + offset - 1 < frames.end[i] ? frames.start[i] + offset - 1 : -1;
          }
          default -> throw EngineException.badPlan("not a value function: " + call.getFunction());
        };
        if (row >= 0) {
          out.appendFrom(arg, (int) row);
        } else if (fallback != null) {
          out.appendFrom(fallback, 0);
        } else {
          out.appendNull();
        }
      }
    }
    return out;
  }
}
