package dev.squall.cli;

import dev.squall.coordinator.http.JsonResultWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Renders an Arrow IPC stream as an aligned text table or as CSV (RFC 4180 quoting).
 * Values: decimals in plain notation, dates ISO-8601, timestamps {@code yyyy-mm-dd hh:mm:ss} (with
 * the fraction when not zero), binary as hex. NULL is told apart from strings: in tables NULL is
 * {@code NULL}, and a string that is empty, reads NULL (any case) or starts with a single quote is
 * shown as a SQL literal ({@code ''}, {@code 'NULL'}); in CSV NULL is an empty field and the empty
 * string a quoted empty field ({@code ""}), as PostgreSQL's CSV format has it. Tables align by
 * display width, so wide (CJK) characters and emoji keep the columns straight.
 */
final class ResultPrinter {
  private ResultPrinter() {}

  /** Reads the whole stream and prints it; IPC errors propagate as IOException. */
  static void print(InputStream arrowStream, ResultFormat format, PrintStream out) throws IOException {
    List<String> header = new ArrayList<>();
    List<String[]> rows = new ArrayList<>();
    List<Boolean> strings = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        ArrowStreamReader reader = new ArrowStreamReader(arrowStream, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      root.getSchema().getFields().forEach(f -> header.add(f.getName()));
      root.getSchema().getFields().forEach(f -> strings.add(f.getType().getTypeID() == ArrowType.ArrowTypeID.Utf8
          || f.getType().getTypeID() == ArrowType.ArrowTypeID.LargeUtf8));
      while (reader.loadNextBatch()) {
        for (int r = 0; r < root.getRowCount(); r++) {
          String[] row = new String[header.size()];
          for (int c = 0; c < header.size(); c++) {
            row[c] = render(root.getVector(c), r);
          }
          rows.add(row);
        }
      }
    }
    if (format == ResultFormat.CSV) {
      printCsv(header, rows, strings, out);
    } else if (header.size() == 1 && rows.size() == 1 && rows.get(0)[0] != null && rows.get(0)[0].contains("\n")) {
      // One multi-line value (EXPLAIN's plan): print it as text rather than as a padded table.
      out.println(rows.get(0)[0]);
    } else {
      printTable(header, rows, strings, out);
    }
  }

  /** One value as text, or null for SQL NULL. */
  static String render(FieldVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    if (vector instanceof DateDayVector dates) {
      return LocalDate.ofEpochDay(dates.get(row)).toString();
    }
    if (vector instanceof VarBinaryVector binary) {
      return java.util.HexFormat.of().formatHex(binary.get(row));
    }
    if (vector instanceof TimeStampMicroVector timestamps) {
      return JsonResultWriter.timestamp(timestamps.getObject(row)).replace('T', ' ');
    }
    Object value = vector.getObject(row);
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    return String.valueOf(value);
  }

  /** How a table shows a value: NULL, or the text (a string that could pass for NULL or '' quoted). */
  static String tableText(String value, boolean string) {
    if (value == null) {
      return "NULL";
    }
    if (string && (value.isEmpty() || value.equalsIgnoreCase("NULL") || value.startsWith("'"))) {
      return "'" + value.replace("'", "''") + "'";
    }
    return value;
  }

  private static void printTable(List<String> header, List<String[]> rows, List<Boolean> strings, PrintStream out) {
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        row[c] = tableText(row[c], strings.get(c));
      }
    }
    int[] width = new int[header.size()];
    for (int c = 0; c < width.length; c++) {
      width[c] = DisplayWidth.of(header.get(c));
      for (String[] row : rows) {
        width[c] = Math.max(width[c], DisplayWidth.of(row[c]));
      }
    }
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < width.length; c++) {
      line.append(c == 0 ? "" : " | ").append(pad(header.get(c), width[c]));
    }
    out.println(line);
    line.setLength(0);
    for (int c = 0; c < width.length; c++) {
      line.append(c == 0 ? "" : "-+-").append("-".repeat(width[c]));
    }
    out.println(line);
    for (String[] row : rows) {
      line.setLength(0);
      for (int c = 0; c < width.length; c++) {
        line.append(c == 0 ? "" : " | ").append(pad(row[c], width[c]));
      }
      out.println(line);
    }
    out.println("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
  }

  private static String pad(String s, int width) {
    return DisplayWidth.pad(s, width);
  }

  private static void printCsv(List<String> header, List<String[]> rows, List<Boolean> strings, PrintStream out) {
    out.println(String.join(",", header.stream().map(ResultPrinter::csv).toList()));
    for (String[] row : rows) {
      List<String> fields = new ArrayList<>(row.length);
      for (int c = 0; c < row.length; c++) {
        String v = row[c];
        fields.add(v == null ? "" : v.isEmpty() && strings.get(c) ? "\"\"" : csv(v));
      }
      out.println(String.join(",", fields));
    }
  }

  private static String csv(String v) {
    if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0) {
      return '"' + v.replace("\"", "\"\"") + '"';
    }
    return v;
  }
}
