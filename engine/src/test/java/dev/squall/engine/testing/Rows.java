package dev.squall.engine.testing;

import dev.squall.engine.FragmentExecutor;
import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import dev.squall.engine.input.InputProvider;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.Operator;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Result rows from the engine and from DuckDB in one comparable form, and their comparison. */
public final class Rows {
  private Rows() {}

  /** Runs a fragment in-process and returns its rows (values normalised by {@link #normalise}). */
  public static List<List<Object>> run(Operator plan, InputProvider inputs, long budget) {
    List<List<Object>> rows = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      FragmentExecutor.run(plan, inputs, allocator, budget, batch -> rows.addAll(rowsOf(batch)));
    }
    return rows;
  }

  public static List<List<Object>> rowsOf(VectorSchemaRoot batch) {
    Column[] cols = ArrowColumns.read(batch);
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < batch.getRowCount(); r++) {
      List<Object> row = new ArrayList<>();
      for (Column c : cols) {
        row.add(engineValue(c, r));
      }
      rows.add(row);
    }
    return rows;
  }

  private static Object engineValue(Column c, int r) {
    Object v = c.get(r);
    if (v == null) {
      return null;
    }
    SqlType t = c.type();
    if (t.kind() == Kind.DATE) {
      return LocalDate.ofEpochDay((Long) v);
    } else if (t.kind() == Kind.TIMESTAMP) {
      long micros = (Long) v;
      return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    }
    return normalise(v);
  }

  /** Numbers as BigDecimal (exact) or Double; dates as LocalDate; strings as String. */
  public static Object normalise(Object v) {
    if (v == null) {
      return null;
    } else if (v instanceof Double || v instanceof Float) {
      return ((Number) v).doubleValue();
    } else if (v instanceof BigDecimal b) {
      return b;
    } else if (v instanceof BigInteger b) {
      return new BigDecimal(b);
    } else if (v instanceof Number n) {
      return BigDecimal.valueOf(n.longValue());
    } else if (v instanceof java.sql.Date d) {
      return d.toLocalDate();
    } else if (v instanceof java.sql.Timestamp t) {
      return t.toLocalDateTime();
    } else if (v instanceof byte[] b) {
      return Arrays.toString(b);
    }
    return v;
  }

  /** Runs SQL on DuckDB and returns its rows normalised. */
  public static List<List<Object>> duckdb(Connection conn, String sql) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          Object v = rs.getObject(i);
          if (v instanceof java.time.OffsetDateTime o) {
            v = o.toLocalDateTime();
          }
          row.add(normalise(v));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /**
   * Compares two results: the same number of rows, and row by row equal values (after sorting both
   * when order does not matter). Decimals and integers compare exactly; a double compares within
   * 1e-9 relative to the other value.
   *
   * @return null when equal, else a description of the first difference
   */
  public static String difference(List<List<Object>> expected, List<List<Object>> actual, boolean ordered) {
    if (expected.size() != actual.size()) {
      return "row count: expected " + expected.size() + " got " + actual.size()
          + "\n expected (first 5): " + expected.subList(0, Math.min(5, expected.size()))
          + "\n actual   (first 5): " + actual.subList(0, Math.min(5, actual.size()));
    }
    List<List<Object>> e = expected;
    List<List<Object>> a = actual;
    if (!ordered) {
      e = new ArrayList<>(expected);
      a = new ArrayList<>(actual);
      e.sort(Rows::compareRows);
      a.sort(Rows::compareRows);
    }
    for (int r = 0; r < e.size(); r++) {
      List<Object> x = e.get(r);
      List<Object> y = a.get(r);
      if (x.size() != y.size()) {
        return "row " + r + ": expected " + x.size() + " columns, got " + y.size();
      }
      for (int c = 0; c < x.size(); c++) {
        if (!valueEquals(x.get(c), y.get(c))) {
          return "row " + r + " column " + c + ": expected " + x.get(c) + " got " + y.get(c) + "\n expected row " + x + "\n actual row   " + y;
        }
      }
    }
    return null;
  }

  static boolean valueEquals(Object x, Object y) {
    if (x == null || y == null) {
      return x == y;
    }
    if (x instanceof Double || y instanceof Double) {
      if (!(x instanceof Number) || !(y instanceof Number)) {
        return false;
      }
      double a = ((Number) x).doubleValue();
      double b = ((Number) y).doubleValue();
      if (a == b) {
        return true;
      }
      return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
    }
    if (x instanceof BigDecimal a && y instanceof BigDecimal b) {
      return a.compareTo(b) == 0;
    }
    return x.equals(y);
  }

  /** A total order on normalised rows; doubles by value rounded to 9 significant digits. */
  static int compareRows(List<Object> a, List<Object> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = compareValues(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compareValues(Object x, Object y) {
    if (x == null || y == null) {
      return x == null ? (y == null ? 0 : -1) : 1;
    }
    if (x instanceof Number && y instanceof Number) {
      BigDecimal a = key((Number) x);
      BigDecimal b = key((Number) y);
      return a.compareTo(b);
    }
    if (x.getClass() == y.getClass() && x instanceof Comparable) {
      return ((Comparable) x).compareTo(y);
    }
    return x.toString().compareTo(y.toString());
  }

  private static BigDecimal key(Number n) {
    if (n instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        return BigDecimal.ZERO;
      }
      return new BigDecimal(d).round(new java.math.MathContext(9));
    }
    return (BigDecimal) n;
  }
}
