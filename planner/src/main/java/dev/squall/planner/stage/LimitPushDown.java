package dev.squall.planner.stage;

import dev.squall.proto.v1.Limit;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Sort;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.TopN;
import java.util.List;

/**
 * ORDER BY / LIMIT / OFFSET around the single edge that gathers rows into one task. Below the edge,
 * each producer task keeps only what can reach the result: {@code TopN(offset + limit)} when
 * ordered, {@code Limit(offset + limit)} when not, nothing when there is no limit (a full sort is
 * done once, in the consumer). Above the edge, the consumer applies the exact
 * {@code Sort}/{@code TopN}/{@code Limit} with the offset.
 *
 * @param keys sort keys (empty: no ORDER BY)
 * @param offset rows to skip, 0 when none
 * @param limit rows to return, -1 when no LIMIT
 */
public record LimitPushDown(List<SortKey> keys, long offset, long limit) {

  /** True when the node does nothing (no keys, no offset, no limit). */
  public boolean isNoOp() {
    return keys.isEmpty() && offset == 0 && limit < 0;
  }

  /** The local operator for each producer task, or the input unchanged when nothing can be cut. */
  public Operator local(Operator input) {
    if (limit < 0) {
      return input;
    }
    long keep = offset + limit;
    if (keys.isEmpty()) {
      return Operator.newBuilder().setOutputSchema(input.getOutputSchema())
          .setLimit(Limit.newBuilder().setInput(input).setOffset(0).setLimit(keep)).build();
    }
    return Operator.newBuilder().setOutputSchema(input.getOutputSchema())
        .setTopN(TopN.newBuilder().setInput(input).addAllKeys(keys).setLimit(keep).setOffset(0)).build();
  }

  /** Rows a producer task emits at most after {@link #local}, or -1 when unbounded. */
  public long localRowBound() {
    return limit < 0 ? -1 : offset + limit;
  }

  /** The exact operator over all rows in one task. */
  public Operator exact(Operator input) {
    if (keys.isEmpty()) {
      return Operator.newBuilder().setOutputSchema(input.getOutputSchema())
          .setLimit(Limit.newBuilder().setInput(input).setOffset(offset).setLimit(limit)).build();
    }
    if (limit >= 0) {
      return Operator.newBuilder().setOutputSchema(input.getOutputSchema())
          .setTopN(TopN.newBuilder().setInput(input).addAllKeys(keys).setLimit(limit).setOffset(offset)).build();
    }
    Operator sorted = Operator.newBuilder().setOutputSchema(input.getOutputSchema())
        .setSort(Sort.newBuilder().setInput(input).addAllKeys(keys)).build();
    if (offset == 0) {
      return sorted;
    }
    return Operator.newBuilder().setOutputSchema(input.getOutputSchema())
        .setLimit(Limit.newBuilder().setInput(sorted).setOffset(offset).setLimit(-1)).build();
  }
}
