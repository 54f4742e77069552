package dev.squall.planner.write;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTypeMapping;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The final projection of a write: from the query's columns to the target table's columns, in the
 * table's order, each cast to the SQL type of its Iceberg type ({@link IcebergTypeMapping}).
 * Table columns the statement gives no value get NULL.
 *
 * <p>Assignment rules (store assignment, stricter than SQL's): any numeric type to any numeric
 * column (a value out of the column's range fails the task at run time), CHAR/VARCHAR to string,
 * BOOLEAN to boolean, DATE to date or timestamp, TIMESTAMP to timestamp, BINARY/VARBINARY to
 * binary/fixed, NULL to anything. Everything else, e.g. VARCHAR into a long column, is refused.
 */
public final class ColumnAssignment {
  private static final Set<SqlTypeName> NUMERIC = EnumSet.of(SqlTypeName.TINYINT, SqlTypeName.SMALLINT,
      SqlTypeName.INTEGER, SqlTypeName.BIGINT, SqlTypeName.DECIMAL, SqlTypeName.REAL, SqlTypeName.FLOAT,
      SqlTypeName.DOUBLE);

  private ColumnAssignment() {}

  /**
   * Projects {@code query} onto {@code target}'s columns.
   *
   * @param sourceOfColumn for each target column (by position in {@code target.columns()}), the
   *     query column that feeds it, or -1 for NULL
   * @param source the parsed (and validated) query, for the positions of errors
   * @throws PlanningException VALIDATION_ERROR naming the column and both types for a value that
   *     cannot be assigned, or a NOT NULL column without a value; UNSUPPORTED for a column type
   *     Squall cannot write
   */
  public static RelNode project(RelBuilder builder, RelNode query, Schema target, int[] sourceOfColumn,
      SqlNode source) {
    RexBuilder rex = builder.getRexBuilder();
    RelDataTypeFactory types = rex.getTypeFactory();
    List<Types.NestedField> columns = target.columns();
    List<RelDataType> queryTypes = query.getRowType().getFieldList().stream().map(f -> f.getType()).toList();
    List<RexNode> expressions = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      Types.NestedField column = columns.get(c);
      int from = sourceOfColumn[c];
      RelDataType probe = IcebergTypeMapping.toSql(types, column.type(), true);
      if (probe.getSqlTypeName() == SqlTypeName.ANY) {
        SqlParserPos pos = source.getParserPosition();
        throw new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: column '" + column.name()
            + "' has type " + column.type() + ", which Squall cannot write", pos.getLineNum(), pos.getColumnNum());
      }
      if (from < 0) {
        if (column.isRequired()) {
          SqlParserPos pos = source.getParserPosition();
          throw new PlanningException(Code.VALIDATION_ERROR, "Column '" + column.name()
              + "' is NOT NULL and the INSERT gives it no value; name it in the column list",
              pos.getLineNum(), pos.getColumnNum());
        }
        expressions.add(rex.makeNullLiteral(probe));
      } else {
        RelDataType from1 = queryTypes.get(from);
        if (!assignable(from1.getSqlTypeName(), column.type())) {
          SqlParserPos pos = columnPosition(source, from);
          throw new PlanningException(Code.VALIDATION_ERROR, "Cannot assign a value of type "
              + dev.squall.planner.sql.SqlTypeNames.of(from1) + " to column '" + column.name()
              + "' of type " + dev.squall.planner.sql.SqlTypeNames.of(column.type()), pos.getLineNum(), pos.getColumnNum());
        }
        if (from1.getSqlTypeName() == SqlTypeName.NULL && column.isRequired()) {
          SqlParserPos pos = columnPosition(source, from);
          throw new PlanningException(Code.VALIDATION_ERROR, "Cannot assign NULL to column '" + column.name()
              + "', which is NOT NULL", pos.getLineNum(), pos.getColumnNum());
        }
        // A nullable value into a NOT NULL column passes here: whether a NULL arrives is known
        // only at run time, where the writer refuses it.
        RelDataType to = types.createTypeWithNullability(probe, from1.isNullable());
        RexNode input = rex.makeInputRef(query, from);
        expressions.add(to.equals(from1) ? input : rex.makeCast(to, input, true, false));
      }
      names.add(column.name());
    }
    return builder.push(query).project(expressions, names, true).build();
  }

  /** Whether a value of SQL type {@code from} may be stored in an Iceberg column of type {@code to}. */
  public static boolean assignable(SqlTypeName from, Type to) {
    if (from == SqlTypeName.NULL) {
      return true;
    }
    return switch (to.typeId()) {
      case INTEGER, LONG, FLOAT, DOUBLE, DECIMAL -> NUMERIC.contains(from);
      case STRING -> from == SqlTypeName.CHAR || from == SqlTypeName.VARCHAR;
      case BOOLEAN -> from == SqlTypeName.BOOLEAN;
      case DATE -> from == SqlTypeName.DATE;
      case TIMESTAMP -> from == SqlTypeName.TIMESTAMP || from == SqlTypeName.DATE;
      case BINARY, FIXED -> from == SqlTypeName.BINARY || from == SqlTypeName.VARBINARY;
      default -> false;
    };
  }

  /**
   * Where query column {@code i} is written: its select item, or its value in the first VALUES
   * row; the start of the query when neither is known (set operations, ...).
   */
  static SqlParserPos columnPosition(SqlNode source, int i) {
    SqlNode query = source instanceof SqlOrderBy orderBy ? orderBy.query : source;
    if (query instanceof SqlSelect select && select.getSelectList() != null
        && select.getSelectList().size() > i) {
      return select.getSelectList().get(i).getParserPosition();
    }
    if (query.getKind() == SqlKind.VALUES && query instanceof SqlCall values && values.operandCount() > 0
        && values.operand(0) instanceof SqlCall row && row.operandCount() > i) {
      return row.operand(i).getParserPosition();
    }
    return source.getParserPosition();
  }
}
