package dev.squall.coordinator.scheduler;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.squall.proto.v1.Operator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Rewrites of a stage fragment's operator tree that the coordinator makes at run time (runtime
 * filters on a probe scan, a join taken over by its probe side's stage). Operators nest directly
 * or inside an operator's own message (Filter, HashJoin, ...); the walk follows both through the
 * protobuf descriptors, so it needs no change when an operator is added.
 */
final class Fragments {
  private Fragments() {}

  /**
   * {@code op} with each operator that {@code replace} maps to another one put in its place, in
   * pre-order; a replaced operator's inputs are not visited. Unchanged subtrees keep their identity.
   */
  static Operator replace(Operator op, UnaryOperator<Operator> replace) {
    return (Operator) rewrite(op, replace);
  }

  /** The largest input index a leaf (Scan or ShuffleRead) of the fragment reads, or -1 when none. */
  static int maxInputIndex(Operator op) {
    int[] max = {-1};
    replace(op, o -> {
      if (o.hasScan()) {
        max[0] = Math.max(max[0], o.getScan().getInputIndex());
      } else if (o.hasShuffleRead()) {
        max[0] = Math.max(max[0], o.getShuffleRead().getInputIndex());
      }
      return o;
    });
    return max[0];
  }

  private static Message rewrite(Message m, UnaryOperator<Operator> replace) {
    if (m instanceof Operator op) {
      Operator r = replace.apply(op);
      if (r != op) {
        return r;
      }
    }
    Message.Builder b = null;
    for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
      FieldDescriptor fd = e.getKey();
      if (fd.getJavaType() != FieldDescriptor.JavaType.MESSAGE || !holdsOperators(fd)) {
        continue;
      }
      if (fd.isRepeated()) {
        @SuppressWarnings("unchecked")
        List<Message> items = (List<Message>) e.getValue();
        for (int i = 0; i < items.size(); i++) {
          Message r = rewrite(items.get(i), replace);
          if (r != items.get(i)) {
            b = b == null ? m.toBuilder() : b;
            b.setRepeatedField(fd, i, r);
          }
        }
      } else {
        Message v = (Message) e.getValue();
        Message r = rewrite(v, replace);
        if (r != v) {
          b = b == null ? m.toBuilder() : b;
          b.setField(fd, r);
        }
      }
    }
    return b == null ? m : b.build();
  }

  /** Operators nest directly (inputs) or inside the operator's own message (Filter, HashJoin, ...). */
  private static boolean holdsOperators(FieldDescriptor fd) {
    String full = fd.getMessageType().getFullName();
    return full.equals(Operator.getDescriptor().getFullName())
        || fd.getContainingType().getFullName().equals(Operator.getDescriptor().getFullName());
  }
}
