package dev.squall.planner.optimize;

import dev.squall.planner.catalog.IcebergTable;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.BuiltInMetadata;
import org.apache.calcite.rel.metadata.MetadataDef;
import org.apache.calcite.rel.metadata.MetadataHandler;
import org.apache.calcite.rel.metadata.ReflectiveRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMdUtil;
import org.apache.calcite.rel.metadata.RelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Distinct values of columns of an Iceberg table scan, for join estimates ({@link JoinRowCount}):
 * a unique key's count is the row count; otherwise the product of each column's distinct values,
 * capped at the row count: the NDV of the snapshot's Puffin statistics file where ANALYZE (or
 * another engine) wrote one ({@link IcebergTable#distinctValues}), else the bound from its value
 * range ({@link IcebergTable#distinctValuesBound}). A predicate
 * scales the result by the expected distinct values left in the selected rows (Calcite's
 * {@link RelMdUtil#numDistinctVals}). Unknown (null, so Calcite's default applies) when a column
 * has neither.
 */
public final class ScanDistinctRowCount implements MetadataHandler<BuiltInMetadata.DistinctRowCount> {
  /** The provider to chain before Calcite's defaults. */
  public static final RelMetadataProvider SOURCE = ReflectiveRelMetadataProvider.reflectiveSource(
      new ScanDistinctRowCount(), BuiltInMetadata.DistinctRowCount.Handler.class);

  private ScanDistinctRowCount() {}

  @Override
  public MetadataDef<BuiltInMetadata.DistinctRowCount> getDef() {
    return BuiltInMetadata.DistinctRowCount.DEF;
  }

  /** Estimated distinct values of {@code groupKey} among the rows that pass {@code predicate}. */
  public Double getDistinctRowCount(TableScan scan, RelMetadataQuery mq, ImmutableBitSet groupKey,
      RexNode predicate) {
    IcebergTable table = scan.getTable().unwrap(IcebergTable.class);
    if (table == null) {
      return null;
    }
    double rows = Math.max(1.0, table.statistics().rowCount());
    double selected = predicate == null ? rows
        : rows * RelMdUtil.guessSelectivity(predicate);
    if (groupKey.isEmpty()) {
      return 1.0;
    }
    if (Boolean.TRUE.equals(mq.areColumnsUnique(scan, groupKey))) {
      return selected;
    }
    double domain = 1.0;
    for (int column : groupKey) {
      Double ndv = table.distinctValues(column);
      Double bound = ndv != null ? ndv : table.distinctValuesBound(column);
      if (bound == null) {
        return null;
      }
      domain = Math.min(rows, domain * bound);
    }
    return predicate == null ? domain : RelMdUtil.numDistinctVals(domain, selected);
  }
}
