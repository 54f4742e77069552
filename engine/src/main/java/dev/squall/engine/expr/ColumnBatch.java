package dev.squall.engine.expr;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import org.apache.arrow.vector.VectorSchemaRoot;

/** A batch of already materialised columns, or of an Arrow batch's columns read on first use. */
public final class ColumnBatch implements Batch {
  private final Column[] columns;
  private final int rows;
  private final VectorSchemaRoot root;

  public ColumnBatch(Column[] columns, int rows) {
    this.columns = columns;
    this.rows = rows;
    this.root = null;
  }

  private ColumnBatch(VectorSchemaRoot root) {
    this.columns = new Column[root.getFieldVectors().size()];
    this.rows = root.getRowCount();
    this.root = root;
  }

  /** A batch over an Arrow batch; each column is converted when first asked for. */
  public static ColumnBatch of(VectorSchemaRoot root) {
    return new ColumnBatch(root);
  }

  @Override
  public int rows() {
    return rows;
  }

  @Override
  public Column column(int index) {
    Column c = columns[index];
    if (c == null && root != null) {
      c = ArrowColumns.read(root.getVector(index));
      columns[index] = c;
    }
    return c;
  }

  public int width() {
    return columns.length;
  }
}
