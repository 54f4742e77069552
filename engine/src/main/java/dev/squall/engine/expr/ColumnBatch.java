package dev.squall.engine.expr;

import dev.squall.engine.column.ArrowColumns;
import dev.squall.engine.column.Column;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The one batch form inside a task: a number of rows and their {@link Column}s. Operators hand
 * each other these; Arrow appears only at the task's edges ({@link #fromArrow}, {@link #toArrow}).
 *
 * <p>A batch made by {@link #select} is a selection vector over another batch (DuckDB's
 * {@code SelectionVector}): a column is gathered only when first asked for, so a filter copies only
 * the columns that something downstream reads. Batches live on the heap and need no closing.
 */
public final class ColumnBatch implements Batch {
  private final Column[] columns;
  private final int rows;
  private final ColumnBatch source;
  private final int[] selection;
  /** Makes column i when first read (a join's output gathered from both sides), or null. */
  private final IntFunction<Column> loader;
  /** For a recycling selection: per column, the column whose arrays a gather may overwrite, or null. */
  private final Column[] spare;

  /** A batch of materialised columns, each of at least {@code rows} rows. */
  public ColumnBatch(Column[] columns, int rows) {
    this.columns = columns;
    this.rows = rows;
    this.source = null;
    this.selection = null;
    this.loader = null;
    this.spare = null;
  }

  private ColumnBatch(ColumnBatch source, int[] selection, int rows, Column[] spare) {
    this.columns = new Column[source.width()];
    this.rows = rows;
    this.source = source;
    this.selection = selection;
    this.loader = null;
    this.spare = spare;
  }

  private ColumnBatch(int width, int rows, IntFunction<Column> loader) {
    this.columns = new Column[width];
    this.rows = rows;
    this.source = null;
    this.selection = null;
    this.loader = loader;
    this.spare = null;
  }

  /**
   * A batch of {@code width} columns of {@code rows} rows each made by {@code loader} when first
   * read, so that columns nobody reads are never built (a join's output: its consumer often reads
   * few of the columns of both sides).
   */
  public static ColumnBatch lazy(int width, int rows, IntFunction<Column> loader) {
    return new ColumnBatch(width, rows, loader);
  }

  /** Reads every column of an Arrow batch (the caller still owns and closes {@code root}). */
  public static ColumnBatch fromArrow(VectorSchemaRoot root) {
    return new ColumnBatch(ArrowColumns.read(root), root.getRowCount());
  }

  /** This batch as a new Arrow batch of {@code schema}, allocated from {@code allocator}; the caller closes it. */
  public VectorSchemaRoot toArrow(Schema schema, BufferAllocator allocator) {
    return ArrowColumns.toRoot(schema, columns(), rows, allocator);
  }

  @Override
  public int rows() {
    return rows;
  }

  public int width() {
    return columns.length;
  }

  @Override
  public Column column(int index) {
    Column c = columns[index];
    if (c == null) {
      if (loader != null) {
        c = loader.apply(index);
      } else if (spare != null) {
        c = source.column(index).gather(selection, rows, spare[index]);
        spare[index] = c;
      } else {
        c = source.column(index).gather(selection, rows);
      }
      columns[index] = c;
    }
    return c;
  }

  /**
   * Heap bytes of this batch: its materialised columns and, for a selection, the selection vector
   * plus the selected rows' share of the batch it selects from (a slice of a large result counts
   * its own rows, not the whole result, which its producer accounts). Reading it materialises
   * nothing.
   */
  public long bytes() {
    long bytes = 16L;
    for (Column c : columns) {
      if (c != null) {
        bytes += c.bytes();
      }
    }
    if (loader != null) {
      bytes += 8L * rows; // the row maps the columns are gathered through
    }
    if (source != null) {
      long sourceRows = Math.max(1, source.rows());
      bytes += 4L * selection.length + source.bytes() * Math.min(rows, sourceRows) / sourceRows;
    }
    return bytes;
  }

  /** Every column, materialised. */
  public Column[] columns() {
    for (int i = 0; i < columns.length; i++) {
      column(i);
    }
    return columns;
  }

  /**
   * The rows {@code rows[0..n)} of this batch, in that order (row -1 gives NULL), as a selection
   * over this batch: nothing is copied until a column is read.
   */
  @Override
  public ColumnBatch select(int[] rows, int n) {
    return new ColumnBatch(this, rows, n, null);
  }

  /**
   * {@link #select(int[], int)} that gathers column i into the arrays of {@code spare[i]} and
   * leaves the gathered column in {@code spare[i]}, so that the next selection made with the same
   * {@code spare} gathers into this one's arrays. Only for a consumer that keeps no batch: the
   * selection's columns are overwritten by the next selection's.
   *
   * @param spare one entry per column of this batch (null entries allocate), owned by the caller
   */
  public ColumnBatch select(int[] rows, int n, Column[] spare) {
    return new ColumnBatch(this, rows, n, spare);
  }

  /** Rows {@code [start, start + length)}. */
  public ColumnBatch slice(int start, int length) {
    int[] sel = new int[length];
    for (int i = 0; i < length; i++) {
      sel[i] = start + i;
    }
    return select(sel, length);
  }
}
