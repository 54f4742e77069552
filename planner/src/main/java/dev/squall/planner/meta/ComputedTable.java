package dev.squall.planner.meta;

import java.util.List;
import java.util.function.Supplier;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.impl.AbstractTable;

/**
 * A table whose rows the planner computes when a query that reads it is converted (information
 * schema tables, Iceberg metadata tables): it becomes a {@code VALUES} relation in the plan.
 */
public final class ComputedTable extends AbstractTable implements TranslatableTable {
  private final List<MetadataRelation.Column> columns;
  private final Supplier<List<List<Object>>> rows;

  public ComputedTable(List<MetadataRelation.Column> columns, Supplier<List<List<Object>>> rows) {
    this.columns = List.copyOf(columns);
    this.rows = rows;
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    return new MetadataRelation(columns, List.of()).rowType(typeFactory);
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    return new MetadataRelation(columns, rows.get()).toValues(context.getCluster());
  }
}
