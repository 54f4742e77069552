package dev.squall.planner.translate;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;

/**
 * Estimated rows and in-memory bytes (Arrow) of a plan node's output. Rows come from Calcite's
 * metadata (which starts from the Iceberg row counts); bytes are rows times a width per column
 * derived from its type: fixed-width types their Arrow width, DECIMAL 16, strings their declared
 * length up to 64 (32 when unbounded) plus a 4-byte offset, plus one validity byte per column.
 */
public final class SizeEstimator {
  private SizeEstimator() {}

  /** Output rows of a node, at least 1. */
  public static double rows(RelNode rel) {
    RelMetadataQuery mq = rel.getCluster().getMetadataQuery();
    Double rows = mq.getRowCount(rel);
    return rows == null || rows.isNaN() ? 1 : Math.max(1, rows);
  }

  /** Estimated bytes of a node's output. */
  public static double bytes(RelNode rel) {
    return rows(rel) * rowWidth(rel.getRowType());
  }

  /** Estimated bytes of one row of a row type. */
  public static int rowWidth(RelDataType rowType) {
    int width = 0;
    for (RelDataTypeField field : rowType.getFieldList()) {
      width += columnWidth(field.getType()) + 1;
    }
    return Math.max(1, width);
  }

  private static int columnWidth(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case BOOLEAN, TINYINT -> 1;
      case SMALLINT -> 2;
      case INTEGER, DATE, REAL -> 4;
      case DECIMAL -> 16;
      case CHAR, VARCHAR, BINARY, VARBINARY -> {
        int precision = type.getPrecision();
        yield 4 + (precision <= 0 || precision >= 65536 ? 32 : Math.min(precision, 64));
      }
      default -> 8;
    };
  }
}
