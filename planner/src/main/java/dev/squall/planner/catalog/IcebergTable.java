package dev.squall.planner.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * One Iceberg table as a Calcite table: its columns are the top-level fields of the current schema
 * (column i of the row type is {@code schema.columns().get(i)}), its row count comes from the
 * current snapshot's summary, and its identifier fields (if any) are its unique key.
 *
 * <p>The Iceberg table is loaded from the catalog on first use and then kept, so that one planning
 * run sees one snapshot.
 */
public final class IcebergTable extends AbstractTable {
  private final Catalog catalog;
  private final TableIdentifier identifier;
  private final Long snapshotId;
  private final boolean rowPositions;
  private volatile Table table;

  /** Name of the column holding a row's data file location in {@link #withRowPositions()}. */
  public static final String FILE_COLUMN = "_file";
  /** Name of the column holding a row's position in its data file in {@link #withRowPositions()}. */
  public static final String POSITION_COLUMN = "_pos";

  public IcebergTable(Catalog catalog, TableIdentifier identifier) {
    this(catalog, identifier, null, null);
  }

  /**
   * A table read as of one snapshot (time travel): its columns are that snapshot's schema and its
   * scans plan that snapshot's files.
   *
   * @param loaded the table already loaded, or null to load it on first use
   * @param snapshotId the snapshot, or null for the current one
   */
  public IcebergTable(Catalog catalog, TableIdentifier identifier, Table loaded, Long snapshotId) {
    this(catalog, identifier, loaded, snapshotId, false);
  }

  private IcebergTable(Catalog catalog, TableIdentifier identifier, Table loaded, Long snapshotId,
      boolean rowPositions) {
    this.catalog = catalog;
    this.identifier = identifier;
    this.table = loaded;
    this.snapshotId = snapshotId;
    this.rowPositions = rowPositions;
  }

  /**
   * The same table (same snapshot) with two more columns after its own: {@value #FILE_COLUMN}
   * (VARCHAR, the data file's location) and {@value #POSITION_COLUMN} (BIGINT, the row's position
   * in it), Iceberg's metadata columns {@code _file} and {@code _pos}. Row-level deletes name rows
   * by them.
   */
  public IcebergTable withRowPositions() {
    return new IcebergTable(catalog, identifier, table(), snapshotId, true);
  }

  /**
   * The Iceberg field id of row-type column {@code column}: a schema column's, or for the row
   * position columns Iceberg's metadata field ids.
   */
  public int fieldId(int column) {
    List<Types.NestedField> columns = schema().columns();
    if (column < columns.size()) {
      return columns.get(column).fieldId();
    }
    return column == columns.size() ? org.apache.iceberg.MetadataColumns.FILE_PATH.fieldId()
        : org.apache.iceberg.MetadataColumns.ROW_POSITION.fieldId();
  }

  /** The snapshot this table reads when pinned by time travel; empty for the current one. */
  public java.util.OptionalLong pinnedSnapshotId() {
    return snapshotId == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(snapshotId);
  }

  /** The snapshot read: the pinned one, else the current one (null for a table without snapshots). */
  public org.apache.iceberg.Snapshot snapshot() {
    return snapshotId == null ? table().currentSnapshot() : table().snapshot(snapshotId);
  }

  /** The loaded Iceberg table. */
  public Table table() {
    Table loaded = table;
    if (loaded == null) {
      synchronized (this) {
        if (table == null) {
          table = catalog.loadTable(identifier);
        }
        loaded = table;
      }
    }
    return loaded;
  }

  public TableIdentifier identifier() {
    return identifier;
  }

  /** The schema the row type was built from: the pinned snapshot's, else the current one. */
  public Schema schema() {
    return snapshotId == null ? table().schema() : org.apache.iceberg.util.SnapshotUtil.schemaFor(table(), snapshotId);
  }

  /** Figures of the snapshot read. */
  public TableStatistics statistics() {
    return TableStatistics.of(snapshot());
  }

  /**
   * The distinct values of column {@code column} (row-type index) in the snapshot read, from the
   * snapshot's Puffin statistics file ({@link ColumnNdvs}, written by ANALYZE), at least 1 and at
   * most the row count; null when the snapshot has no such figure for the column.
   */
  public Double distinctValues(int column) {
    List<Types.NestedField> columns = schema().columns();
    if (column < 0 || column >= columns.size()) {
      return null;
    }
    Long ndv = ColumnNdvs.of(table(), snapshot()).ndv(columns.get(column).fieldId());
    return ndv == null ? null : Math.max(1.0, Math.min(ndv, Math.max(1.0, statistics().rowCount())));
  }

  /**
   * An upper bound on the distinct values of column {@code column} (row-type index) in the current
   * snapshot: the width of its value range from the manifests' bounds ({@link ColumnRanges}),
   * capped at the row count; null when unknown (not integral, or a file without bounds).
   */
  public Double distinctValuesBound(int column) {
    ColumnRanges.Range range = valueRange(column);
    if (range == null) {
      return null;
    }
    return Math.min(range.width(), Math.max(1.0, statistics().rowCount()));
  }

  /**
   * The value range of column {@code column} (row-type index) in the current snapshot, from the
   * manifests' bounds ({@link ColumnRanges}); null when unknown (not INT, BIGINT or DATE, or a
   * file without bounds).
   */
  public ColumnRanges.Range valueRange(int column) {
    List<Types.NestedField> columns = schema().columns();
    if (column < 0 || column >= columns.size()) {
      return null;
    }
    return ColumnRanges.of(table()).range(columns.get(column).fieldId());
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    RelDataTypeFactory.Builder builder = typeFactory.builder();
    for (Types.NestedField field : schema().columns()) {
      builder.add(field.name(), IcebergTypeMapping.toSql(typeFactory, field.type(), field.isOptional()));
    }
    if (rowPositions) {
      builder.add(FILE_COLUMN, typeFactory.createSqlType(org.apache.calcite.sql.type.SqlTypeName.VARCHAR));
      builder.add(POSITION_COLUMN, typeFactory.createSqlType(org.apache.calcite.sql.type.SqlTypeName.BIGINT));
    }
    return builder.build();
  }

  @Override
  public Statistic getStatistic() {
    List<ImmutableBitSet> keys = new ArrayList<>();
    Set<Integer> identifierIds = schema().identifierFieldIds();
    if (!identifierIds.isEmpty()) {
      List<Types.NestedField> columns = schema().columns();
      ImmutableBitSet.Builder key = ImmutableBitSet.builder();
      for (int i = 0; i < columns.size(); i++) {
        if (identifierIds.contains(columns.get(i).fieldId())) {
          key.set(i);
        }
      }
      keys.add(key.build());
    }
    return Statistics.of((double) statistics().rowCount(), keys);
  }

  @Override
  public String toString() {
    return "IcebergTable(" + identifier + ")";
  }
}
