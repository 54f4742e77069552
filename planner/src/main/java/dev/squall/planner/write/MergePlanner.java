package dev.squall.planner.write;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.sql.MergeStatement;
import dev.squall.planner.sql.MergeStatement.Action;
import dev.squall.planner.sql.MergeStatement.Clause;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.translate.IcebergFilterTranslator;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.tools.RelBuilder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * Plans {@code MERGE INTO t USING s ON condition WHEN ...} ({@link MergeStatement}) on an Iceberg
 * table of format v2 or later, merge-on-read, as a join of the target's rows (with their
 * {@code _file} and {@code _pos}) and the source: an inner join when every clause is WHEN
 * MATCHED, a right join when a WHEN NOT MATCHED clause needs the source rows without a match.
 * For each joined row the first clause whose condition holds applies (Trino's and the SQL
 * standard's order); rows no clause applies to are dropped. The plan yields
 * {@code _file, _pos, write, c1 ... cn}:
 *
 * <ul>
 *   <li>UPDATE: the target row's position, {@code write} TRUE, its new values;
 *   <li>DELETE: the target row's position, {@code write} FALSE;
 *   <li>INSERT: NULL positions, {@code write} TRUE, the VALUES (NULL for columns not named).
 * </ul>
 *
 * The writer stage deletes the positions and writes the rows to write ({@link RowDeletePlanner}
 * does the rest: the writer tasks' spec, a hash edge on {@code _file}, one row delta). A target
 * row that two source rows match is caught by the writer task holding its data file and fails
 * the statement with USER_ERROR before anything is committed.
 */
public final class MergePlanner {
  private final SqlFrontEnd frontEnd;
  private final RowDeletePlanner rowDeletes;

  public MergePlanner(SqlFrontEnd frontEnd) {
    this.frontEnd = frontEnd;
    this.rowDeletes = new RowDeletePlanner(frontEnd);
  }

  /**
   * Plans a MERGE.
   *
   * @throws PlanningException as {@link RowDeletePlanner#update}, with {@code write.merge.mode} as
   *     the mode property; UNKNOWN_COLUMN for a SET or INSERT column the table lacks;
   *     VALIDATION_ERROR for a column set or named twice, an INSERT whose column and value counts
   *     differ or that leaves a NOT NULL column without a value, a value that cannot be assigned
   */
  public WritePlanner.PlannedWrite merge(MergeStatement merge) {
    SqlIdentifier targetName = merge.target();
    IcebergTable resolved = rowDeletes.target(targetName, "MERGE", TableProperties.MERGE_MODE);
    Schema schema = resolved.table().schema();
    List<Types.NestedField> columns = schema.columns();
    SqlParserPos pos = targetName.getParserPosition();
    String targetAlias = merge.targetAlias() != null ? merge.targetAlias().getSimple()
        : targetName.names.get(targetName.names.size() - 1);

    // Per clause, the value of every column (null: NULL).
    List<SqlNode[]> clauseValues = new ArrayList<>();
    for (Clause clause : merge.clauses()) {
      clauseValues.add(values(clause, columns, resolved, targetAlias, pos));
    }
    SqlNodeList select = SqlNodeList.of(
        new SqlIdentifier(List.of(targetAlias, IcebergTable.FILE_COLUMN), pos),
        new SqlIdentifier(List.of(targetAlias, IcebergTable.POSITION_COLUMN), pos));
    SqlNodeList writeWhen = new SqlNodeList(pos);
    SqlNodeList writeThen = new SqlNodeList(pos);
    for (Clause clause : merge.clauses()) {
      writeWhen.add(guard(clause, targetAlias, pos));
      writeThen.add(SqlLiteral.createBoolean(clause.action() != Action.DELETE, pos));
    }
    select.add(as(new SqlCase(pos, null, writeWhen, writeThen, SqlLiteral.createBoolean(false, pos)), "write", pos));
    int[] sourceOfColumn = new int[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      SqlNodeList when = new SqlNodeList(pos);
      SqlNodeList then = new SqlNodeList(pos);
      SqlParserPos at = null;
      for (int k = 0; k < merge.clauses().size(); k++) {
        SqlNode value = clauseValues.get(k)[c];
        when.add(guard(merge.clauses().get(k), targetAlias, pos));
        then.add(value != null ? value : SqlLiteral.createNull(pos));
        if (value != null && at == null) {
          at = value.getParserPosition();
        }
      }
      if (at == null) {
        sourceOfColumn[c] = -1;
        continue;
      }
      sourceOfColumn[c] = select.size();
      // The CASE sits at its first value, so that an assignment error points there.
      select.add(as(new SqlCase(at, null, when, then, SqlLiteral.createNull(at)), "c" + c, at));
    }
    SqlNode where = null;
    for (Clause clause : merge.clauses()) {
      SqlNode applies = guard(clause, targetAlias, pos);
      where = where == null ? applies : SqlStdOperatorTable.OR.createCall(pos, where, applies);
    }

    boolean needsUnmatched = merge.clauses().stream().anyMatch(c -> !c.matched());
    SqlNode source = merge.source().parse();
    String sourceAlias = merge.sourceAlias() != null ? merge.sourceAlias().getSimple()
        : ((SqlIdentifier) source).names.get(((SqlIdentifier) source).names.size() - 1);
    SqlJoin join = new SqlJoin(pos,
        new SqlBasicCall(SqlStdOperatorTable.AS, List.of(RowDeletePlanner.positionsTable(targetName),
            new SqlIdentifier(targetAlias, pos)), pos),
        SqlLiteral.createBoolean(false, pos),
        (needsUnmatched ? JoinType.RIGHT : JoinType.INNER).symbol(pos),
        new SqlBasicCall(SqlStdOperatorTable.AS, List.of(source, new SqlIdentifier(sourceAlias, pos)), pos),
        JoinConditionType.ON.symbol(pos),
        merge.condition().parse());
    SqlSelect query = new SqlSelect(pos, null, select, join, where, null, null, null, null, null, null, null, null);
    RelNode rows = frontEnd.toRel(query).project();
    RelNode plan = rowDeletes.assignColumns(rows,
        List.of(IcebergTable.FILE_COLUMN, IcebergTable.POSITION_COLUMN, "write"), schema, sourceOfColumn, query);
    return rowDeletes.planned(resolved, plan, false, false, RowDeletePlanner.rewrittenRows(resolved), true,
        RowDeletePlanner.copyOnWrite(resolved, TableProperties.MERGE_MODE), targetFilter(rows, schema));
  }

  /**
   * The commit's conflict-detection filter: the Iceberg form of the ON condition's conjuncts on
   * the target's columns alone ({@code t.d >= DATE '2024-01-01'}; {@code true} when there are
   * none). It is safe: a row that fails them is matched by no source row, so a concurrent commit
   * of rows outside the filter cannot change what the MERGE does; every data file the MERGE
   * deletes rows of holds rows inside it.
   *
   * @param rows the unoptimized plan, whose join's left input is the target's scan (its columns
   *     first, in the schema's order, then the row positions)
   */
  static Expression targetFilter(RelNode rows, Schema schema) {
    Join join = firstJoin(rows);
    if (join == null || !(join.getLeft() instanceof TableScan)) {
      return Expressions.alwaysTrue();
    }
    // Conjuncts naming a source column (an index past the target's) do not translate and are left out.
    Expression filter = new IcebergFilterTranslator(schema).translate(
        RowDeletePlanner.foldLiteralCasts(join.getCondition(), join.getCluster().getRexBuilder()));
    return filter == null ? Expressions.alwaysTrue() : filter;
  }

  private static Join firstJoin(RelNode node) {
    if (node instanceof Join join) {
      return join;
    }
    for (RelNode input : node.getInputs()) {
      Join found = firstJoin(input);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /**
   * When a clause applies to a joined row: it is matched (or not) and its own condition holds.
   * Clauses are tried in order by the CASEs that use these guards.
   */
  private static SqlNode guard(Clause clause, String targetAlias, SqlParserPos pos) {
    SqlNode file = new SqlIdentifier(List.of(targetAlias, IcebergTable.FILE_COLUMN), pos);
    SqlNode matched = (clause.matched() ? SqlStdOperatorTable.IS_NOT_NULL : SqlStdOperatorTable.IS_NULL)
        .createCall(pos, file);
    return clause.condition() == null ? matched
        : SqlStdOperatorTable.AND.createCall(pos, matched, clause.condition().parse());
  }

  /** A clause's value of every table column, null where the clause gives NULL. */
  private static SqlNode[] values(Clause clause, List<Types.NestedField> columns, IcebergTable resolved,
      String targetAlias, SqlParserPos pos) {
    SqlNode[] values = new SqlNode[columns.size()];
    switch (clause.action()) {
      case DELETE -> {
        // Not written (the write flag is FALSE); the target's own values keep every column typed.
        for (int c = 0; c < columns.size(); c++) {
          values[c] = new SqlIdentifier(List.of(targetAlias, columns.get(c).name()), pos);
        }
        return values;
      }
      case UPDATE -> {
        boolean[] set = new boolean[columns.size()];
        for (int k = 0; k < clause.columns().size(); k++) {
          int c = column(clause.columns().get(k), columns, resolved, set, "set");
          values[c] = clause.values().get(k).parse();
        }
        for (int c = 0; c < columns.size(); c++) {
          if (!set[c]) {
            values[c] = new SqlIdentifier(List.of(targetAlias, columns.get(c).name()), pos);
          }
        }
        return values;
      }
      default -> {
        List<SqlIdentifier> named = clause.columns();
        int count = named == null ? columns.size() : named.size();
        if (clause.values().size() != count) {
          throw error(Code.VALIDATION_ERROR, "MERGE INSERT has " + clause.values().size() + " values for "
              + count + " columns", clause.position());
        }
        boolean[] set = new boolean[columns.size()];
        for (int k = 0; k < count; k++) {
          int c = named == null ? k : column(named.get(k), columns, resolved, set, "named");
          set[c] = true;
          values[c] = clause.values().get(k).parse();
        }
        for (int c = 0; c < columns.size(); c++) {
          if (!set[c] && columns.get(c).isRequired()) {
            throw error(Code.VALIDATION_ERROR, "Column '" + columns.get(c).name() + "' is NOT NULL and the MERGE"
                + " INSERT gives it no value; name it in the column list", clause.position());
          }
        }
        return values;
      }
    }
  }

  /**
   * A MERGE plan ({@code _file, _pos, write, c1 ... cn}) with the columns its hash edge into the
   * writer stage goes on: {@code _file}, then for every table column {@code CASE WHEN _file IS NULL
   * THEN ci END}, appended after the plan's columns. A row with a position hashes on its data file
   * alone (the appended keys are NULL), so one writer task still holds every position of a data
   * file; an inserted row (no {@code _file}) hashes on its values, so inserts spread over the writer
   * tasks as an INSERT's rows do, instead of all meeting in one.
   *
   * @param merge the optimized MERGE plan
   * @return the plan with the appended key columns (to be dropped after the edge) and the keys
   */
  public static InsertSpread spreadInserts(RelNode merge, RelBuilder builder) {
    RexBuilder rex = builder.getRexBuilder();
    builder.push(merge);
    int columns = merge.getRowType().getFieldCount();
    List<RexNode> projected = new ArrayList<>(builder.fields());
    List<Integer> keys = new ArrayList<>(List.of(0));
    RexNode inserted = builder.isNull(builder.field(0));
    for (int c = 3; c < columns; c++) {
      RexNode value = builder.field(c);
      keys.add(projected.size());
      projected.add(rex.makeCall(SqlStdOperatorTable.CASE, inserted, value,
          rex.makeNullLiteral(builder.getTypeFactory().createTypeWithNullability(value.getType(), true))));
    }
    return new InsertSpread(builder.project(projected).build(), keys);
  }

  /**
   * A MERGE plan ready for its hash edge.
   *
   * @param plan the MERGE plan's columns, then the appended key columns
   * @param keys the columns of {@code plan} to hash on
   */
  public record InsertSpread(RelNode plan, List<Integer> keys) {}

  /** The index of a named column, marked in {@code seen}. */
  private static int column(SqlIdentifier name, List<Types.NestedField> columns, IcebergTable resolved,
      boolean[] seen, String verb) {
    String simple = name.names.get(name.names.size() - 1);
    for (int c = 0; c < columns.size(); c++) {
      if (columns.get(c).name().equalsIgnoreCase(simple)) {
        if (seen[c]) {
          throw error(Code.VALIDATION_ERROR, "Column '" + simple + "' is " + verb + " twice", name.getParserPosition());
        }
        seen[c] = true;
        return c;
      }
    }
    throw error(Code.UNKNOWN_COLUMN, "Column '" + resolved.identifier() + "." + simple + "' cannot be resolved",
        name.getParserPosition());
  }

  private static SqlNode as(SqlNode node, String name, SqlParserPos pos) {
    return new SqlBasicCall(SqlStdOperatorTable.AS, List.of(node, new SqlIdentifier(name, pos)), pos);
  }

  private static PlanningException error(Code code, String message, SqlParserPos pos) {
    return new PlanningException(code, message, pos.getLineNum(), pos.getColumnNum());
  }
}
