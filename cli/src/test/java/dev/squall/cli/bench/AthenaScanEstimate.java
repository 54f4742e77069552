package dev.squall.cli.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The bytes Athena would scan for a TPC-H query over the same Iceberg tables: Athena bills the
 * compressed bytes of the Parquet column chunks it reads, so per table the query scans, the sum
 * over the current data files of the column sizes (Iceberg's {@code column_sizes} metrics) of the
 * columns the query text names, once per time the table is named.
 *
 * <p>An estimate for TPC-H's text only: its column names carry their table's prefix ({@code
 * l_orderkey}), so a column named anywhere in the query belongs to that table, and a table named
 * twice (Q21's {@code lineitem l1, lineitem l3}) is read twice. It overstates a little where two
 * reads of a table need different columns, or a word in the text equals a table name (Q8's
 * {@code as nation}); it ignores row groups Athena skips by their statistics (TPC-H's tables are
 * not sorted by the filtered columns, so few are).
 */
final class AthenaScanEstimate {
  /** Per table: bytes of each column (by lower-case name) over the current data files. */
  private final Map<String, Map<String, Long>> columnBytes;

  private AthenaScanEstimate(Map<String, Map<String, Long>> columnBytes) {
    this.columnBytes = columnBytes;
  }

  /** Reads the column sizes of every table of {@code namespace} named in {@code tables}. */
  static AthenaScanEstimate of(Catalog catalog, String namespace, Iterable<String> tables) {
    Map<String, Map<String, Long>> bytes = new LinkedHashMap<>();
    for (String name : tables) {
      Table table = catalog.loadTable(TableIdentifier.of(namespace, name));
      Map<Integer, Long> byField = new HashMap<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
        for (FileScanTask task : tasks) {
          Map<Integer, Long> sizes = task.file().columnSizes();
          if (sizes != null) {
            sizes.forEach((field, size) -> byField.merge(field, size, Long::sum));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Map<String, Long> byName = new LinkedHashMap<>();
      for (Types.NestedField field : table.schema().columns()) {
        byName.put(field.name().toLowerCase(Locale.ROOT), byField.getOrDefault(field.fieldId(), 0L));
      }
      bytes.put(name.toLowerCase(Locale.ROOT), byName);
    }
    return new AthenaScanEstimate(bytes);
  }

  /** The estimate for one query's SQL text, in bytes. */
  long bytes(String sql) {
    String text = sql.toLowerCase(Locale.ROOT);
    long total = 0;
    for (Map.Entry<String, Map<String, Long>> table : columnBytes.entrySet()) {
      int reads = count(text, table.getKey());
      if (reads == 0) {
        continue;
      }
      long perRead = 0;
      for (Map.Entry<String, Long> column : table.getValue().entrySet()) {
        if (count(text, column.getKey()) > 0) {
          perRead += column.getValue();
        }
      }
      total += reads * perRead;
    }
    return total;
  }

  /** Occurrences of {@code word} in {@code text} as a whole word (letters, digits and '_' around it do not count). */
  static int count(String text, String word) {
    Matcher m = Pattern.compile("(?<![a-z0-9_])" + Pattern.quote(word) + "(?![a-z0-9_])").matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
