package dev.squall.engine.testing;

import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.FrameBound;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.Window;
import dev.squall.proto.v1.WindowCall;
import dev.squall.proto.v1.WindowFrame;
import java.util.ArrayList;
import java.util.List;

/**
 * Window operators over a {@link Rel}, with the DuckDB text of the same windows: the plan's calls
 * with their SQL, a specification (PARTITION BY, ORDER BY) and the frame's SQL.
 */
public final class WindowRel {
  private WindowRel() {}

  /**
   * One call: its plan form and DuckDB's text for it, either a call to which {@code OVER (...)} is
   * appended or a text with {@code %s} where the window specification goes.
   */
  public record Call(WindowCall.Builder call, String sql) {
    public static Call of(WindowCall.Function function, SqlType type, String sql) {
      return new Call(WindowCall.newBuilder().setFunction(function).setType(type.toProto()), sql);
    }

    /** A call reading input column {@code arg}. */
    public Call arg(int arg) {
      call.addArgs(arg);
      return this;
    }

    public Call offset(long offset) {
      call.setOffset(offset);
      return this;
    }

    public Call frame(WindowFrame frame) {
      call.setFrame(frame);
      return this;
    }
  }

  /** PARTITION BY columns and ORDER BY keys (column names of the input). */
  public record Spec(List<String> partition, List<Rel.Key> order) {
    /** DuckDB's {@code (PARTITION BY ... ORDER BY ... frame)}. */
    public String sql(String frame) {
      List<String> keys = order.stream().map(k -> k.column() + (k.desc() ? " DESC" : " ASC")
          + (k.nullsFirst() ? " NULLS FIRST" : " NULLS LAST")).toList();
      return "(" + (partition.isEmpty() ? "" : "PARTITION BY " + String.join(", ", partition))
          + (keys.isEmpty() ? "" : " ORDER BY " + String.join(", ", keys)) + (frame.isEmpty() ? "" : " " + frame) + ")";
    }
  }

  public static FrameBound bound(FrameBound.Kind kind, X offset) {
    FrameBound.Builder b = FrameBound.newBuilder().setKind(kind);
    if (offset != null) {
      b.setOffset(offset.expr());
    }
    return b.build();
  }

  public static WindowFrame frame(WindowFrame.Unit unit, FrameBound start, FrameBound end) {
    return WindowFrame.newBuilder().setUnit(unit).setStart(start).setEnd(end).build();
  }

  /**
   * {@code input} with one window operator computing {@code calls} over {@code spec}; each call's
   * column is named {@code w<its column index>}.
   */
  public static Rel window(Rel input, Spec spec, List<Call> calls, String frameSql) {
    Window.Builder w = Window.newBuilder().setInput(input.op());
    spec.partition().forEach(p -> w.addPartitionKeys(input.index(p)));
    for (Rel.Key k : spec.order()) {
      w.addOrderKeys(SortKey.newBuilder().setColumn(input.index(k.column())).setDescending(k.desc()).setNullsFirst(k.nullsFirst()));
    }
    Schema.Builder schema = input.op().getOutputSchema().toBuilder();
    List<String> names = new ArrayList<>(input.names());
    List<SqlType> types = new ArrayList<>(input.types());
    List<String> select = new ArrayList<>();
    String over = spec.sql(frameSql);
    for (int c = 0; c < calls.size(); c++) {
      String name = "w" + names.size();
      WindowCall call = calls.get(c).call().setName(name).build();
      w.addCalls(call);
      schema.addFields(Field.newBuilder().setName(name).setType(call.getType()));
      names.add(name);
      types.add(SqlType.of(call.getType()));
      String text = calls.get(c).sql();
      select.add((text.contains("%s") ? text.formatted(over) : text + " OVER " + over) + " AS " + name);
    }
    Operator op = Operator.newBuilder().setOutputSchema(schema).setWindow(w).build();
    String sql = "SELECT *, " + String.join(", ", select) + " FROM (" + input.sql() + ")";
    return new Rel(op, names, types, sql, false, input.scanInputs());
  }
}
