package dev.squall.engine.scan;

import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/** Chooses the {@link ColumnChunkReader} for an Iceberg column stored as a Parquet primitive type. */
final class ColumnChunkReaders {
  private ColumnChunkReaders() {}

  /**
   * The reader of a column whose Iceberg type is {@code type} (the type the engine reads it as,
   * see {@link ParquetSplitReader#engineType}); the file's physical type may be a narrower one that
   * Iceberg's type promotion allows (INT32 for a long, FLOAT for a double).
   *
   * @throws dev.squall.engine.EngineException USER_ERROR when the file's type cannot be read as {@code type}
   */
  static ColumnChunkReader create(ColumnDescriptor column, Type type) {
    PrimitiveType p = column.getPrimitiveType();
    PrimitiveTypeName physical = p.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    switch (type.typeId()) {
      case BOOLEAN:
        if (physical == PrimitiveTypeName.BOOLEAN) {
          return new BooleanChunkReader(column);
        }
        break;
      case INTEGER:
      case LONG:
      case DATE:
        if (physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64) {
          return new LongChunkReader(column, physical == PrimitiveTypeName.INT32, LongChunkReader.Unit.SAME);
        }
        break;
      case TIMESTAMP:
        if (physical == PrimitiveTypeName.INT64) {
          LongChunkReader.Unit unit = LongChunkReader.Unit.SAME;
          if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
            unit = switch (ts.getUnit()) {
              case MILLIS -> LongChunkReader.Unit.MILLIS_TO_MICROS;
              case MICROS -> LongChunkReader.Unit.SAME;
              case NANOS -> LongChunkReader.Unit.NANOS_TO_MICROS;
            };
          }
          return new LongChunkReader(column, false, unit);
        }
        break;
      case FLOAT:
      case DOUBLE:
        if (physical == PrimitiveTypeName.FLOAT || physical == PrimitiveTypeName.DOUBLE) {
          return new DoubleChunkReader(column, physical == PrimitiveTypeName.FLOAT);
        }
        break;
      case DECIMAL:
        checkScale(column, logical, (Types.DecimalType) type);
        if (physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64) {
          return new LongChunkReader(column, physical == PrimitiveTypeName.INT32, LongChunkReader.Unit.SAME);
        }
        if (physical == PrimitiveTypeName.BINARY) {
          return new BinaryDecimalChunkReader(column, -1);
        }
        if (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
          return new BinaryDecimalChunkReader(column, p.getTypeLength());
        }
        break;
      case STRING:
      case BINARY:
        if (physical == PrimitiveTypeName.BINARY) {
          return new BinaryChunkReader(column, -1, false);
        }
        if (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
          return new BinaryChunkReader(column, p.getTypeLength(), false);
        }
        break;
      case FIXED:
        if (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || physical == PrimitiveTypeName.BINARY) {
          return new BinaryChunkReader(column, physical == PrimitiveTypeName.BINARY ? -1 : p.getTypeLength(), false);
        }
        break;
      case UUID:
        if (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY && p.getTypeLength() == 16) {
          return new BinaryChunkReader(column, 16, true);
        }
        break;
      default:
        throw ParquetScanException.unsupported("column " + ColumnChunkReader.name(column) + " has Iceberg type " + type
            + ", which the scan does not read");
    }
    throw ParquetScanException.unsupported("column " + ColumnChunkReader.name(column) + " is stored as " + physical
        + (logical == null ? "" : " (" + logical + ")") + " but its Iceberg type is " + type);
  }

  private static void checkScale(ColumnDescriptor column, LogicalTypeAnnotation logical, Types.DecimalType type) {
    if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d && d.getScale() != type.scale()) {
      throw ParquetScanException.unsupported("column " + ColumnChunkReader.name(column) + " has decimal scale " + d.getScale()
          + " in the data file but " + type.scale() + " in the table");
    }
  }
}
