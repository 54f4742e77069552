package dev.squall.engine.testing;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.ShuffleRead;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A small in-memory table: rows of Java values (Long, BigDecimal, Double, String, LocalDate,
 * Boolean, null) delivered to the engine as shuffle-input Arrow batches of a chosen size, and
 * loaded into DuckDB as a table of the same name for the expected answers.
 */
public final class MemTable {
  private final String name;
  private final List<String> columns;
  private final List<SqlType> types;
  private final List<Object[]> rows;

  public MemTable(String name, List<String> columns, List<SqlType> types, List<Object[]> rows) {
    this.name = name;
    this.columns = columns;
    this.types = types;
    this.rows = rows;
  }

  public List<Object[]> rows() {
    return rows;
  }

  /** A relation reading this table as shuffle input {@code inputIndex}. */
  public Rel rel(int inputIndex) {
    Operator op = Operator.newBuilder().setOutputSchema(Rel.schema(columns, types))
        .setShuffleRead(ShuffleRead.newBuilder().setInputIndex(inputIndex)).build();
    return new Rel(op, columns, types, "SELECT " + String.join(", ", columns) + " FROM " + name, false, 0);
  }

  /** The rows as Arrow batches of at most {@code batchRows} rows. */
  public List<VectorSchemaRoot> batches(BufferAllocator allocator, int batchRows) {
    List<Field> fields = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      fields.add(types.get(c).arrowField(columns.get(c)));
    }
    Schema schema = new Schema(fields);
    List<VectorSchemaRoot> out = new ArrayList<>();
    for (int start = 0; start < rows.size(); start += batchRows) {
      int n = Math.min(batchRows, rows.size() - start);
      Column[] cols = new Column[columns.size()];
      for (int c = 0; c < cols.length; c++) {
        cols[c] = Column.empty(types.get(c), n);
        for (int r = start; r < start + n; r++) {
          append(cols[c], rows.get(r)[c]);
        }
      }
      out.add(ArrowColumns.toRoot(schema, cols, n, allocator));
    }
    return out;
  }

  static void append(Column col, Object v) {
    if (v == null) {
      col.appendNull();
    } else if (col instanceof LongColumn l) {
      l.append(v instanceof LocalDate d ? d.toEpochDay() : ((Number) v).longValue());
    } else if (col instanceof DoubleColumn d) {
      d.append(((Number) v).doubleValue());
    } else if (col instanceof DecimalColumn d) {
      d.appendUnscaled(((BigDecimal) v).setScale(d.scale(), RoundingMode.UNNECESSARY).unscaledValue());
    } else if (col instanceof BytesColumn b) {
      b.append(((String) v).getBytes(StandardCharsets.UTF_8));
    } else if (col instanceof BoolColumn b) {
      b.append((Boolean) v);
    }
  }

  private static final java.util.Map<String, Object> LOADED = new java.util.HashMap<>();

  /** Creates (or replaces) the table in DuckDB with the same rows (skipped when this table is already loaded). */
  public synchronized void load(Connection conn) throws SQLException {
    synchronized (LOADED) {
      if (LOADED.get(name) == rows) {
        return;
      }
      LOADED.put(name, rows);
    }
    try (Statement st = conn.createStatement()) {
      List<String> defs = new ArrayList<>();
      for (int c = 0; c < columns.size(); c++) {
        defs.add(columns.get(c) + " " + X.sqlType(types.get(c)));
      }
      st.execute("CREATE OR REPLACE TABLE " + name + " (" + String.join(", ", defs) + ")");
      for (int start = 0; start < rows.size(); start += 500) {
        List<String> values = new ArrayList<>();
        for (int r = start; r < Math.min(rows.size(), start + 500); r++) {
          List<String> vals = new ArrayList<>();
          for (Object v : rows.get(r)) {
            vals.add(sqlLiteral(v));
          }
          values.add("(" + String.join(", ", vals) + ")");
        }
        st.execute("INSERT INTO " + name + " VALUES " + String.join(", ", values));
      }
    }
  }

  private static String sqlLiteral(Object v) {
    if (v == null) {
      return "NULL";
    } else if (v instanceof String s) {
      return "'" + s.replace("'", "''") + "'";
    } else if (v instanceof LocalDate d) {
      return "DATE '" + d + "'";
    } else if (v instanceof BigDecimal b) {
      return b.toPlainString();
    } else if (v instanceof Double d) {
      return "CAST(" + d + " AS DOUBLE)";
    }
    return v.toString();
  }

  /**
   * A random table t(id BIGINT, i INTEGER, d DECIMAL(12,2), x DOUBLE, s VARCHAR, dt DATE, b BOOLEAN)
   * with about {@code nullPercent}% NULLs in every column but id, and few distinct values in i and s
   * so that joins and groups have duplicates.
   */
  private static final java.util.Map<String, MemTable> RANDOM = new java.util.HashMap<>();

  public static synchronized MemTable random(String name, int rows, int nullPercent, long seed) {
    return RANDOM.computeIfAbsent(name + "/" + rows + "/" + nullPercent + "/" + seed, k -> generate(name, rows, nullPercent, seed));
  }

  private static MemTable generate(String name, int rows, int nullPercent, long seed) {
    Random rnd = new Random(seed);
    String[] words = {"alpha", "beta", "gamma", "delta", "épsilon", "zeta_", "eta%", "ALPHA", ""};
    List<Object[]> data = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      Object[] row = new Object[7];
      row[0] = (long) r;
      row[1] = nul(rnd, nullPercent, (long) (rnd.nextInt(21) - 10));
      row[2] = nul(rnd, nullPercent, BigDecimal.valueOf(rnd.nextInt(2_000_001) - 1_000_000, 2));
      row[3] = nul(rnd, nullPercent, Math.round(rnd.nextDouble() * 1e6) / 1e3);
      row[4] = nul(rnd, nullPercent, words[rnd.nextInt(words.length)]);
      row[5] = nul(rnd, nullPercent, LocalDate.of(1990, 1, 1).plusDays(rnd.nextInt(4000)));
      row[6] = nul(rnd, nullPercent, rnd.nextBoolean());
      data.add(row);
    }
    return new MemTable(name, List.of("id", "i", "d", "x", "s", "dt", "b"),
        List.of(SqlType.BIGINT, SqlType.INTEGER, SqlType.decimal(12, 2), SqlType.DOUBLE, SqlType.VARCHAR, SqlType.DATE, SqlType.BOOLEAN), data);
  }

  /** The same columns as {@link #random} but renamed with a prefix (for joins). */
  public MemTable renamed(String newName, String prefix) {
    synchronized (RANDOM) {
      return RANDOM.computeIfAbsent("renamed/" + System.identityHashCode(this) + "/" + newName + "/" + prefix, k -> {
        List<String> cols = columns.stream().map(c -> prefix + c).toList();
        return new MemTable(newName, cols, types, new ArrayList<>(rows));
      });
    }
  }

  private static Object nul(Random rnd, int percent, Object v) {
    return rnd.nextInt(100) < percent ? null : v;
  }
}
