package dev.squall.engine.operator;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.memory.OperatorMemory;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ScanSplit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Reads the Iceberg splits of one scan input: each split is a {@link FileScanTask} (Iceberg's own
 * JSON, {@link ScanTaskParser}) over a Parquet data file, read through the injected {@link FileIO}
 * with Iceberg's generic Parquet reader, projected to the plan's field ids, with the pushed filter
 * and the split's residual used to skip row groups. Exact filtering is left to a Filter above.
 * Delete files are refused (this scan reads append-only tables).
 */
public final class ScanOperator extends BatchOperator {
  private final String table;
  private final org.apache.iceberg.Schema projected;
  private final int[] fieldPositions;
  private final Type[] fieldTypes;
  private final Expression filter;
  private final FileIO io;
  private final List<ScanSplit> splits;
  private int nextSplit;
  private CloseableIterable<Record> currentIterable;
  private Iterator<Record> current;

  public ScanOperator(OperatorMemory memory, Schema schema, Scan scan, List<ScanSplit> splits, FileIO io) {
    super(memory, schema, List.of());
    this.table = scan.getTable();
    this.io = io;
    this.splits = splits;
    org.apache.iceberg.Schema tableSchema = SchemaParser.fromJson(scan.getIcebergSchemaJson());
    Set<Integer> ids = new HashSet<>(scan.getProjectedFieldIdsList());
    this.projected = TypeUtil.select(tableSchema, ids);
    int n = scan.getProjectedFieldIdsCount();
    if (n != types.size()) {
      throw EngineException.badPlan("scan of " + table + " projects " + n + " fields but its output schema has " + types.size());
    }
    this.fieldPositions = new int[n];
    this.fieldTypes = new Type[n];
    List<Types.NestedField> columns = projected.columns();
    for (int i = 0; i < n; i++) {
      int id = scan.getProjectedFieldIds(i);
      int pos = -1;
      for (int p = 0; p < columns.size(); p++) {
        if (columns.get(p).fieldId() == id) {
          pos = p;
        }
      }
      if (pos < 0) {
        throw EngineException.badPlan("field id " + id + " is not a top-level column of " + table);
      }
      fieldPositions[i] = pos;
      fieldTypes[i] = columns.get(pos).type();
    }
    this.filter = scan.getIcebergFilterJson().isEmpty()
        ? Expressions.alwaysTrue()
        : ExpressionParser.fromJson(scan.getIcebergFilterJson(), tableSchema);
  }

  @Override
  protected ColumnBatch produce() {
    int n = types.size();
    Column[] cols = new Column[n];
    SqlType[] readTypes = new SqlType[n];
    for (int c = 0; c < n; c++) {
      readTypes[c] = icebergToSql(fieldTypes[c]);
      cols[c] = Column.empty(readTypes[c], BATCH_ROWS);
    }
    int rows = 0;
    while (rows < BATCH_ROWS) {
      if (current == null || !current.hasNext()) {
        if (!openNextSplit()) {
          break;
        }
        continue;
      }
      Record record = current.next();
      for (int c = 0; c < n; c++) {
        append(cols[c], record.get(fieldPositions[c]));
      }
      rows++;
    }
    if (rows == 0) {
      return null;
    }
    for (int c = 0; c < n; c++) {
      cols[c] = Casts.cast(cols[c], types.get(c));
    }
    return new ColumnBatch(cols, rows);
  }

  private boolean openNextSplit() {
    closeCurrent();
    if (nextSplit >= splits.size()) {
      return false;
    }
    ScanSplit split = splits.get(nextSplit++);
    FileScanTask task;
    try {
      task = ScanTaskParser.fromJson(split.getFileScanTaskJson(), true);
    } catch (RuntimeException e) {
      throw EngineException.badPlan("split of " + table + " (" + split.getDataFilePath() + ") is not Iceberg FileScanTask JSON: " + e.getMessage());
    }
    if (task.deletes() != null && !task.deletes().isEmpty()) {
      throw new EngineException(dev.squall.proto.v1.ErrorCode.USER_ERROR,
          "data file " + task.file().location() + " of " + table + " has delete files; row-level deletes are not supported");
    }
    if (!"PARQUET".equalsIgnoreCase(task.file().format().name())) {
      throw new EngineException(dev.squall.proto.v1.ErrorCode.USER_ERROR,
          "data file " + task.file().location() + " of " + table + " is " + task.file().format() + "; only Parquet is read");
    }
    Expression pruning = Expressions.and(filter, task.residual());
    currentIterable = Parquet.read(io.newInputFile(task.file().location()))
        .project(projected)
        .split(task.start(), task.length())
        .filter(pruning)
        .caseSensitive(true)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(projected, fileSchema))
        // Values are copied out of each record before the next is read, so one record is reused.
        .reuseContainers()
        .build();
    current = currentIterable.iterator();
    return true;
  }

  private void closeCurrent() {
    if (currentIterable != null) {
      try {
        currentIterable.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      currentIterable = null;
      current = null;
    }
  }

  @Override
  protected void releaseState() {
    closeCurrent();
  }

  /** The engine type a column of an Iceberg type is read as. */
  static SqlType icebergToSql(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> SqlType.BOOLEAN;
      case INTEGER -> SqlType.INTEGER;
      case LONG -> SqlType.BIGINT;
      case FLOAT -> new SqlType(Kind.REAL, 0, 0);
      case DOUBLE -> SqlType.DOUBLE;
      case DECIMAL -> SqlType.decimal(((Types.DecimalType) type).precision(), ((Types.DecimalType) type).scale());
      case DATE -> SqlType.DATE;
      case TIMESTAMP -> SqlType.TIMESTAMP;
      case STRING, UUID -> SqlType.VARCHAR;
      case BINARY, FIXED -> new SqlType(Kind.VARBINARY, 0, 0);
      default -> throw EngineException.badPlan("Iceberg type " + type + " is not supported by the engine");
    };
  }

  private static void append(Column col, Object v) {
    if (v == null) {
      col.appendNull();
    } else if (col instanceof LongColumn l) {
      if (v instanceof Number num) {
        l.append(num.longValue());
      } else if (v instanceof LocalDate d) {
        l.append(d.toEpochDay());
      } else if (v instanceof LocalDateTime t) {
        l.append(t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000);
      } else if (v instanceof OffsetDateTime t) {
        l.append(t.toEpochSecond() * 1_000_000L + t.getNano() / 1000);
      } else {
        throw EngineException.badPlan("unexpected value " + v.getClass() + " for " + col.type());
      }
    } else if (col instanceof DoubleColumn d) {
      d.append(((Number) v).doubleValue());
    } else if (col instanceof DecimalColumn d) {
      BigDecimal b = (BigDecimal) v;
      if (b.scale() != d.scale()) {
        b = b.setScale(d.scale());
      }
      d.appendUnscaled(b.unscaledValue());
    } else if (col instanceof BytesColumn b) {
      if (v instanceof CharSequence s) {
        b.append(s.toString().getBytes(StandardCharsets.UTF_8));
      } else if (v instanceof ByteBuffer buf) {
        byte[] bytes = new byte[buf.remaining()];
        buf.duplicate().get(bytes);
        b.append(bytes);
      } else if (v instanceof byte[] bytes) {
        b.append(bytes);
      } else {
        b.append(v.toString().getBytes(StandardCharsets.UTF_8));
      }
    } else if (col instanceof BoolColumn b) {
      b.append((Boolean) v);
    }
  }
}
