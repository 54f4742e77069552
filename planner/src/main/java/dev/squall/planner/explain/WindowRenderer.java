package dev.squall.planner.explain;

import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Window;
import dev.squall.proto.v1.WindowCall;
import dev.squall.proto.v1.WindowFrame;
import java.util.ArrayList;
import java.util.List;

/**
 * EXPLAIN text of a window operator, e.g.
 * {@code Window partition=[o_custkey] order=[o_orderdate ASC NULLS LAST] calls=[RANK() AS r,
 * SUM(o_totalprice) ROWS 2 PRECEDING..CURRENT ROW AS s]}.
 */
final class WindowRenderer {
  private WindowRenderer() {}

  static String describe(Window w, Schema output) {
    List<String> in = output.getFieldsList().stream().map(Field::getName).toList();
    List<String> order = new ArrayList<>();
    for (SortKey k : w.getOrderKeysList()) {
      order.add(in.get(k.getColumn()) + (k.getDescending() ? " DESC" : " ASC")
          + (k.getNullsFirst() ? " NULLS FIRST" : " NULLS LAST"));
    }
    List<String> calls = new ArrayList<>();
    for (WindowCall c : w.getCallsList()) {
      List<String> args = new ArrayList<>(c.getArgsList().stream().map(in::get).toList());
      switch (c.getFunction()) {
        case NTILE, NTH_VALUE, LAG, LEAD -> args.add(Long.toString(c.getOffset()));
        default -> { }
      }
      if (c.hasDefaultValue()) {
        args.add(new ExprRenderer(in).render(c.getDefaultValue()));
      }
      String name = c.getFunction() == WindowCall.Function.COUNT_STAR ? "COUNT(*)"
          : c.getFunction() + "(" + String.join(", ", args) + ")";
      calls.add(name + (c.hasFrame() ? " " + frame(c.getFrame(), in) : "") + " AS " + c.getName());
    }
    return "Window partition=" + w.getPartitionKeysList().stream().map(in::get).toList()
        + " order=" + order + " calls=" + calls;
  }

  private static String frame(WindowFrame f, List<String> names) {
    return f.getUnit() + " " + bound(f.getStart(), names) + ".." + bound(f.getEnd(), names);
  }

  private static String bound(FrameBound b, List<String> names) {
    return switch (b.getKind()) {
      case UNBOUNDED_PRECEDING -> "UNBOUNDED PRECEDING";
      case UNBOUNDED_FOLLOWING -> "UNBOUNDED FOLLOWING";
      case CURRENT_ROW -> "CURRENT ROW";
      case PRECEDING -> new ExprRenderer(names).render(b.getOffset()) + " PRECEDING";
      case FOLLOWING -> new ExprRenderer(names).render(b.getOffset()) + " FOLLOWING";
      default -> "?";
    };
  }
}
