package dev.squall.planner.meta;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg's metadata tables as Trino names them, {@code "t$snapshots"}, {@code "t$history"},
 * {@code "t$files"}, {@code "t$partitions"} (and the other Iceberg metadata tables: {@code
 * $manifests}, {@code $refs}, ...), read from the table's metadata while planning
 * ({@link ComputedTable}). Columns are Iceberg's: integers become BIGINT, floating point DOUBLE,
 * timestamps TIMESTAMP (UTC), booleans BOOLEAN, and everything else VARCHAR, nested values (maps,
 * structs, lists such as {@code summary}, {@code partition}, {@code column_sizes}) as text like
 * {@code {key=value, ...}}, binary as hex.
 */
public final class IcebergMetadataTables {
  /** Separates a table name from its metadata table type. */
  public static final char MARK = '$';

  private IcebergMetadataTables() {}

  /** The metadata table type a {@code name$type} suffix names; empty for an unknown type. */
  public static Optional<MetadataTableType> type(String suffix) {
    try {
      return Optional.ofNullable(MetadataTableType.from(suffix.toUpperCase(Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The metadata table of {@code table} as a computed table. */
  public static ComputedTable of(Table table, MetadataTableType type) {
    Table meta = MetadataTableUtils.createMetadataTableInstance(table, type);
    List<Types.NestedField> fields = meta.schema().columns();
    List<MetadataRelation.Column> columns = new ArrayList<>();
    for (Types.NestedField f : fields) {
      columns.add(new MetadataRelation.Column(f.name(), sqlType(f.type())));
    }
    return new ComputedTable(columns, () -> rows(meta, fields));
  }

  private static List<List<Object>> rows(Table meta, List<Types.NestedField> fields) {
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = meta.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (!task.isDataTask()) {
          continue;
        }
        try (CloseableIterable<StructLike> data = task.asDataTask().rows()) {
          for (StructLike row : data) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < fields.size(); i++) {
              out.add(value(fields.get(i).type(), row.get(i, Object.class)));
            }
            rows.add(out);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading metadata table " + meta.name() + " failed", e);
    }
    return rows;
  }

  private static SqlTypeName sqlType(Type type) {
    return switch (type.typeId()) {
      case INTEGER, LONG -> SqlTypeName.BIGINT;
      case FLOAT, DOUBLE -> SqlTypeName.DOUBLE;
      case BOOLEAN -> SqlTypeName.BOOLEAN;
      case TIMESTAMP -> SqlTypeName.TIMESTAMP;
      default -> SqlTypeName.VARCHAR;
    };
  }

  private static Object value(Type type, Object v) {
    if (v == null) {
      return null;
    }
    return switch (type.typeId()) {
      case INTEGER, LONG, FLOAT, DOUBLE -> v;
      case BOOLEAN -> v;
      case TIMESTAMP -> ((Number) v).longValue();
      default -> text(type, v);
    };
  }

  private static String text(Type type, Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof ByteBuffer b) {
      ByteBuffer copy = b.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      return HexFormat.of().formatHex(bytes);
    }
    if (type.isStructType() && v instanceof StructLike struct) {
      List<Types.NestedField> fields = type.asStructType().fields();
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < fields.size() && i < struct.size(); i++) {
        parts.add(fields.get(i).name() + "=" + text(fields.get(i).type(), struct.get(i, Object.class)));
      }
      return "{" + String.join(", ", parts) + "}";
    }
    if (type.isMapType() && v instanceof Map<?, ?> map) {
      Type keyType = type.asMapType().keyType();
      Type valueType = type.asMapType().valueType();
      return map.entrySet().stream().map(e -> text(keyType, e.getKey()) + "=" + text(valueType, e.getValue()))
          .sorted().collect(Collectors.joining(", ", "{", "}"));
    }
    if (type.isListType() && v instanceof List<?> list) {
      Type element = type.asListType().elementType();
      return list.stream().map(e -> text(element, e)).collect(Collectors.joining(", ", "[", "]"));
    }
    return v.toString();
  }
}
