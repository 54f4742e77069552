package dev.squall.cli.local;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.util.Text;

/**
 * Query answers as lists of rows of plain Java values, and their comparison under the rules of the
 * differential tests: decimals exact (numerically, whatever their scale), doubles within 1e-9
 * relative (NaN equal to NaN), dates as LocalDate, strings exact; order matters only for ordered queries.
 */
public final class ResultRows {
  private ResultRows() {}

  /** Reads an Arrow IPC stream. */
  public static List<List<Object>> fromArrow(byte[] ipc) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (RootAllocator allocator = new RootAllocator();
        ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc), allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      while (reader.loadNextBatch()) {
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(normalize(v.isNull(r) ? null
                : v instanceof DateDayVector d ? LocalDate.ofEpochDay(d.get(r)) : v.getObject(r)));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** Reads a JDBC result set (DuckDB's answer). */
  public static List<List<Object>> fromJdbc(ResultSet rs) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    ResultSetMetaData md = rs.getMetaData();
    while (rs.next()) {
      List<Object> row = new ArrayList<>();
      for (int c = 1; c <= md.getColumnCount(); c++) {
        row.add(normalize(rs.getObject(c)));
      }
      rows.add(row);
    }
    return rows;
  }

  /** DuckDB's answer to a query over a connection. */
  public static List<List<Object>> fromDuckDb(java.sql.Connection duck, String sql) throws SQLException {
    try (java.sql.Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return fromJdbc(rs);
    }
  }

  static Object normalize(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof Text t) {
      return t.toString();
    }
    if (v instanceof java.sql.Date d) {
      return d.toLocalDate();
    }
    if (v instanceof java.sql.Timestamp t) {
      return t.toLocalDateTime();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof java.math.BigInteger) {
      return new BigDecimal(v.toString());
    }
    if (v instanceof Long l) {
      return BigDecimal.valueOf(l);
    }
    return v;
  }

  /** Whether two values are equal under the rules above. */
  static boolean same(Object a, Object b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a instanceof BigDecimal d && b instanceof Double x) {
      return decimalMatchesDouble(d, x);
    }
    if (a instanceof Double x && b instanceof BigDecimal d) {
      return decimalMatchesDouble(d, x);
    }
    if (a instanceof Double || b instanceof Double) {
      if (!(a instanceof Number) || !(b instanceof Number)) {
        return false;
      }
      double x = ((Number) a).doubleValue();
      double y = ((Number) b).doubleValue();
      return x == y || (Double.isNaN(x) && Double.isNaN(y)) || Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      return x.compareTo(y) == 0;
    }
    if (a instanceof LocalDateTime || a instanceof LocalDate) {
      return a.equals(b);
    }
    return a.equals(b);
  }

  /**
   * A DECIMAL answer against a DOUBLE one (a type-system difference: Calcite keeps decimal division
   * and averages in DECIMAL, DuckDB turns them into DOUBLE): the decimal must be the double rounded
   * to the decimal's scale, i.e. within half a unit of its last digit (plus the double's own error).
   */
  static boolean decimalMatchesDouble(BigDecimal d, double x) {
    double halfUnit = 0.5 * Math.pow(10, -d.scale());
    return Math.abs(d.doubleValue() - x) <= halfUnit + 1e-9 * Math.abs(x);
  }

  /**
   * Compares two answers; returns null when they agree, else a description of the first difference.
   *
   * @param ordered whether the order of rows matters
   */
  public static String difference(List<List<Object>> actual, List<List<Object>> expected, boolean ordered) {
    if (actual.size() != expected.size()) {
      return "row count " + actual.size() + " != expected " + expected.size() + "\nactual head: "
          + head(actual) + "\nexpected head: " + head(expected);
    }
    List<List<Object>> a = actual;
    List<List<Object>> e = expected;
    if (!ordered) {
      a = sorted(actual);
      e = sorted(expected);
    }
    for (int i = 0; i < a.size(); i++) {
      List<Object> x = a.get(i);
      List<Object> y = e.get(i);
      if (x.size() != y.size()) {
        return "row " + i + " has " + x.size() + " columns, expected " + y.size();
      }
      for (int c = 0; c < x.size(); c++) {
        if (!same(x.get(c), y.get(c))) {
          return "row " + i + " column " + c + ": " + x.get(c) + " (" + type(x.get(c)) + ") != expected "
              + y.get(c) + " (" + type(y.get(c)) + ")\nactual row: " + x + "\nexpected row: " + y;
        }
      }
    }
    return null;
  }

  private static String type(Object o) {
    return o == null ? "null" : o.getClass().getSimpleName();
  }

  private static String head(List<List<Object>> rows) {
    return rows.subList(0, Math.min(3, rows.size())).toString();
  }

  /** Rows sorted by a total order over their values' text, with doubles rounded so near-equal values sort alike. */
  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(ResultRows::sortKey));
    return copy;
  }

  private static String sortKey(List<Object> row) {
    StringBuilder b = new StringBuilder();
    for (Object v : row) {
      if (v instanceof Double d) {
        b.append(String.format("%.6e", d));
      } else if (v instanceof BigDecimal d) {
        b.append(d.stripTrailingZeros().toPlainString());
      } else {
        b.append(v);
      }
      b.append('\u0001');
    }
    return b.toString();
  }
}
