package dev.squall.cli;

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
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;

/**
 * Renders an Arrow IPC stream as an aligned text table or as CSV (RFC 4180 quoting).
 * Values: decimals in plain notation, dates ISO-8601, binary as hex, NULL as {@code NULL} in
 * tables and as an empty field in CSV.
 */
final class ResultPrinter {
  private ResultPrinter() {}

  /** Reads the whole stream and prints it; IPC errors propagate as IOException. */
  static void print(InputStream arrowStream, ResultFormat format, PrintStream out) throws IOException {
    List<String> header = new ArrayList<>();
    List<String[]> rows = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        ArrowStreamReader reader = new ArrowStreamReader(arrowStream, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      root.getSchema().getFields().forEach(f -> header.add(f.getName()));
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
      printCsv(header, rows, out);
    } else if (header.size() == 1 && rows.size() == 1 && rows.get(0)[0] != null && rows.get(0)[0].contains("\n")) {
      // One multi-line value (EXPLAIN's plan): print it as text rather than as a padded table.
      out.println(rows.get(0)[0]);
    } else {
      printTable(header, rows, out);
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
    Object value = vector.getObject(row);
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    return String.valueOf(value);
  }

  private static void printTable(List<String> header, List<String[]> rows, PrintStream out) {
    int[] width = new int[header.size()];
    for (int c = 0; c < width.length; c++) {
      width[c] = header.get(c).length();
      for (String[] row : rows) {
        width[c] = Math.max(width[c], row[c] == null ? 4 : row[c].length());
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
        line.append(c == 0 ? "" : " | ").append(pad(row[c] == null ? "NULL" : row[c], width[c]));
      }
      out.println(line);
    }
    out.println("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(width - s.length());
  }

  private static void printCsv(List<String> header, List<String[]> rows, PrintStream out) {
    out.println(String.join(",", header.stream().map(ResultPrinter::csv).toList()));
    for (String[] row : rows) {
      List<String> fields = new ArrayList<>(row.length);
      for (String v : row) {
        fields.add(v == null ? "" : csv(v));
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
