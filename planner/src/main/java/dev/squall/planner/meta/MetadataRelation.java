package dev.squall.planner.meta;

import com.google.common.collect.ImmutableList;
import java.math.BigDecimal;
import java.util.List;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.TimestampString;

/**
 * A small relation the coordinator computes while planning (metadata rows: schemas, tables,
 * columns, statistics, snapshots) as a Calcite {@code VALUES}: it runs as a one-task stage like
 * any {@code VALUES} query, so it can be filtered, joined and sorted.
 *
 * @param columns the relation's columns, in order
 * @param rows one list per row, values matching the column types: String (VARCHAR), Long
 *     (BIGINT), Double (DOUBLE), Boolean (BOOLEAN), epoch microseconds as Long (TIMESTAMP), or null
 */
public record MetadataRelation(List<Column> columns, List<List<Object>> rows) {
  /** One nullable column of VARCHAR, BIGINT, DOUBLE, BOOLEAN or TIMESTAMP. */
  public record Column(String name, SqlTypeName type) {}

  public MetadataRelation {
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
  }

  /** A VARCHAR column. */
  public static Column varchar(String name) {
    return new Column(name, SqlTypeName.VARCHAR);
  }

  /** The relation's row type: every column nullable. */
  public RelDataType rowType(RelDataTypeFactory factory) {
    RelDataTypeFactory.Builder b = factory.builder();
    for (Column c : columns) {
      RelDataType type = c.type() == SqlTypeName.TIMESTAMP
          ? factory.createSqlType(SqlTypeName.TIMESTAMP, 6) : factory.createSqlType(c.type());
      b.add(c.name(), factory.createTypeWithNullability(type, true));
    }
    return b.build();
  }

  /** The rows as a VALUES relation in {@code cluster}. */
  public LogicalValues toValues(RelOptCluster cluster) {
    RelDataType rowType = rowType(cluster.getTypeFactory());
    RexBuilder rex = cluster.getRexBuilder();
    ImmutableList.Builder<ImmutableList<RexLiteral>> tuples = ImmutableList.builder();
    for (List<Object> row : rows) {
      ImmutableList.Builder<RexLiteral> tuple = ImmutableList.builder();
      for (int c = 0; c < columns.size(); c++) {
        tuple.add(literal(rex, rowType.getFieldList().get(c).getType(), row.get(c)));
      }
      tuples.add(tuple.build());
    }
    return LogicalValues.create(cluster, rowType, tuples.build());
  }

  private static RexLiteral literal(RexBuilder rex, RelDataType type, Object value) {
    if (value == null) {
      return rex.makeNullLiteral(type);
    }
    Object calciteValue = switch (type.getSqlTypeName()) {
      case VARCHAR -> new NlsString(value.toString(), null, null);
      case BIGINT -> BigDecimal.valueOf(((Number) value).longValue());
      case DOUBLE -> BigDecimal.valueOf(((Number) value).doubleValue());
      case BOOLEAN -> value;
      case TIMESTAMP -> {
        long micros = (Long) value;
        yield TimestampString.fromMillisSinceEpoch(Math.floorDiv(micros, 1000L))
            .withNanos((int) (Math.floorMod(micros, 1_000_000L) * 1000));
      }
      default -> throw new IllegalArgumentException("metadata column type " + type);
    };
    return (RexLiteral) rex.makeLiteral(calciteValue, type, false);
  }
}
