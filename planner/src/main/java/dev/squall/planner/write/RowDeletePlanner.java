package dev.squall.planner.write;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.translate.IcebergFilterTranslator;
import dev.squall.proto.v1.DataFileWrite;
import dev.squall.proto.v1.DeleteFileWrite;
import dev.squall.proto.v1.RowDeleteRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.StrictMetricsEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Plans {@code DELETE FROM t [[AS] alias] [WHERE condition]} and
 * {@code UPDATE t [[AS] alias] SET c = expr, ... [WHERE condition]} on an Iceberg table (format v2
 * or later) as a scan of {@code t} that yields the data file and position of every
 * row to delete: {@code SELECT _file, _pos FROM t WHERE condition}, for UPDATE followed by the
 * row's new values. The root stage writes those positions as delete files
 * ({@link RowDeleteRecord#getDeleteFiles()}; merge-on-read) or rewrites the data files without
 * them (copy-on-write, when the table's {@code write.delete.mode} / {@code write.update.mode}
 * says so), and an UPDATE's new rows as data files; the coordinator commits them in one row
 * delta. {@link MergePlanner} builds on the same parts.
 *
 * <p>Data files whose every row matches by metadata alone are not read: when the whole condition
 * translates into an Iceberg expression, a file whose partition implies it (residual
 * {@code true}) or whose column bounds imply it (Iceberg's {@link StrictMetricsEvaluator}) is
 * removed whole by the commit, unless it has delete files already. The Iceberg form of the condition (weaker when it does not
 * translate whole) is the commit's conflict-detection filter.
 */
public final class RowDeletePlanner {
  /**
   * Suffix of the derived table name ({@code t$squall_row_positions}) that reads {@code t} with
   * its row positions ({@link IcebergTable#withRowPositions()}).
   */
  public static final String ROW_POSITIONS_SUFFIX = "squall_row_positions";

  private static final String MERGE_ON_READ = "merge-on-read";
  private static final String COPY_ON_WRITE = "copy-on-write";

  private final SqlFrontEnd frontEnd;

  public RowDeletePlanner(SqlFrontEnd frontEnd) {
    this.frontEnd = frontEnd;
  }

  /**
   * Plans a DELETE.
   *
   * @throws PlanningException UNKNOWN_TABLE for a missing table; UNSUPPORTED for a table of format
   *     v1, a mode other than merge-on-read or copy-on-write, a table as of a snapshot or a table with a column named
   *     {@code _file} or {@code _pos}; errors of the condition as for a query's WHERE, with positions
   */
  public WritePlanner.PlannedWrite delete(SqlDelete delete) {
    IcebergTable resolved = target(delete.getTargetTable(), "DELETE", TableProperties.DELETE_MODE);
    SqlIdentifier targetName = (SqlIdentifier) delete.getTargetTable();
    RelNode plan = frontEnd.toRel(positionsQuery(targetName, delete.getAlias(), List.of(), delete.getCondition()))
        .project();
    return planned(resolved, plan, delete.getCondition() != null, true, null, false,
        copyOnWrite(resolved, TableProperties.DELETE_MODE));
  }

  /**
   * Plans an UPDATE: the rows matching the condition are deleted by position and written again
   * with their new values, in one commit. The plan yields {@code _file, _pos} and then every
   * column of the table (the SET expression where one is given, cast to the column's type).
   *
   * @throws PlanningException as {@link #delete}; UNKNOWN_COLUMN for a SET column the table lacks,
   *     VALIDATION_ERROR for a column set twice or a value that cannot be assigned
   */
  public WritePlanner.PlannedWrite update(SqlUpdate update) {
    IcebergTable resolved = target(update.getTargetTable(), "UPDATE", TableProperties.UPDATE_MODE);
    SqlIdentifier targetName = (SqlIdentifier) update.getTargetTable();
    Schema schema = resolved.table().schema();
    List<Types.NestedField> columns = schema.columns();
    String alias = update.getAlias() != null ? update.getAlias().getSimple()
        : targetName.names.get(targetName.names.size() - 1);
    SqlNode[] values = new SqlNode[columns.size()];
    for (int k = 0; k < update.getTargetColumnList().size(); k++) {
      SqlNode item = update.getTargetColumnList().get(k);
      String name = item instanceof SqlIdentifier id ? id.names.get(id.names.size() - 1) : item.toString();
      int index = -1;
      for (int c = 0; c < columns.size(); c++) {
        if (columns.get(c).name().equalsIgnoreCase(name)) {
          index = c;
        }
      }
      if (index < 0) {
        // Named as written, as Trino names it (a qualified name keeps its qualifier).
        String written = item instanceof SqlIdentifier id ? String.join(".", id.names) : name;
        throw error(Code.UNKNOWN_COLUMN, "Column '" + written + "' cannot be resolved", item.getParserPosition());
      }
      if (values[index] != null) {
        throw error(Code.VALIDATION_ERROR, "Column '" + name + "' is set twice", item.getParserPosition());
      }
      values[index] = update.getSourceExpressionList().get(k);
    }
    List<SqlNode> select = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      select.add(values[c] != null ? values[c]
          : new SqlIdentifier(List.of(alias, columns.get(c).name()), targetName.getParserPosition()));
    }
    SqlSelect query = positionsQuery(targetName, update.getAlias(), select, update.getCondition());
    RelNode rows = frontEnd.toRel(query).project();
    int[] sourceOfColumn = new int[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      sourceOfColumn[c] = c + 2;
    }
    RelNode plan = assignColumns(rows, List.of(IcebergTable.FILE_COLUMN, IcebergTable.POSITION_COLUMN), schema,
        sourceOfColumn, query);
    return planned(resolved, plan, update.getCondition() != null, false, rewrittenRows(resolved), false,
        copyOnWrite(resolved, TableProperties.UPDATE_MODE));
  }

  /**
   * How the new rows of an UPDATE or MERGE are written: as data files of the table's current spec
   * (not clustered: they arrive hashed on the data file they replace), sorted by the table's sort
   * order.
   */
  static DataFileWrite rewrittenRows(IcebergTable resolved) {
    Table table = resolved.table();
    return new WriteTarget(resolved.identifier(), false, table.schema(), table.spec(), table.location(),
        table.properties(), OptionalLong.empty()).withSortOrder(table.sortOrder()).toDataFileWrite().toBuilder()
        .setClustered(false).build();
  }

  /**
   * {@code rows}' first {@code leading.size()} columns as they are, then the table's columns
   * assigned from {@code rows}' columns ({@link ColumnAssignment}).
   *
   * @param sourceOfColumn for each table column, the column of {@code rows} that feeds it, or -1
   */
  RelNode assignColumns(RelNode rows, List<String> leading, Schema schema, int[] sourceOfColumn, SqlNode query) {
    Project assigned = (Project) ColumnAssignment.project(frontEnd.relBuilder(), rows, schema, sourceOfColumn,
        query);
    // The builder may have merged the assignment into the query's own projection: then both sets
    // of expressions are over the query's input.
    RelNode input = assigned.getInput();
    RexBuilder rex = frontEnd.relBuilder().getRexBuilder();
    List<RexNode> expressions = new ArrayList<>();
    for (int k = 0; k < leading.size(); k++) {
      expressions.add(input == rows ? rex.makeInputRef(rows, k) : ((Project) rows).getProjects().get(k));
    }
    expressions.addAll(assigned.getProjects());
    List<String> names = new ArrayList<>(leading);
    schema.columns().forEach(f -> names.add(f.name()));
    return frontEnd.relBuilder().push(input).project(expressions, names, true).build();
  }

  /**
   * Resolves and checks the target of a DELETE, UPDATE or MERGE.
   *
   * @param modeProperty the table property that chooses merge-on-read or copy-on-write
   */
  IcebergTable target(SqlNode node, String statement, String modeProperty) {
    if (!(node instanceof SqlIdentifier targetName)) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: " + statement + " target must be a table name",
          node.getParserPosition());
    }
    SqlParserPos at = targetName.getParserPosition();
    IcebergTable resolved = frontEnd.resolveTable(targetName.names).orElseThrow(() -> error(Code.UNKNOWN_TABLE,
        "Table '" + targetName + "' does not exist", at));
    if (resolved.pinnedSnapshotId().isPresent()) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: " + statement + " of a table as of a snapshot (time travel)", at);
    }
    Table table = resolved.table();
    int formatVersion = TableUtil.formatVersion(table);
    if (formatVersion < 2) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: " + statement + " needs an Iceberg table of format version 2"
          + " or later; " + resolved.identifier() + " has format version " + formatVersion, at);
    }
    // Unset means merge-on-read, as in Trino.
    String mode = table.properties().getOrDefault(modeProperty, MERGE_ON_READ);
    if (!mode.equals(MERGE_ON_READ) && !mode.equals(COPY_ON_WRITE)) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: " + statement + " on a table whose " + modeProperty
          + " is '" + mode + "'; Squall writes '" + MERGE_ON_READ + "' or '" + COPY_ON_WRITE + "'", at);
    }
    Schema schema = table.schema();
    if (schema.findField(IcebergTable.FILE_COLUMN) != null || schema.findField(IcebergTable.POSITION_COLUMN) != null) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: " + statement + " on a table with a column named "
          + IcebergTable.FILE_COLUMN + " or " + IcebergTable.POSITION_COLUMN, at);
    }
    return resolved;
  }

  /** Whether the table's {@code modeProperty} ({@code write.delete.mode}, ...) asks for copy-on-write. */
  static boolean copyOnWrite(IcebergTable resolved, String modeProperty) {
    return resolved.table().properties().getOrDefault(modeProperty, MERGE_ON_READ).equals(COPY_ON_WRITE);
  }

  /**
   * The planned write of a DELETE or UPDATE whose plan yields positions first.
   *
   * @param removesWholeFiles true for DELETE: data files whose every row matches are removed whole
   * @param updatedRows for UPDATE and MERGE, how the new rows are written; null for DELETE
   * @param merge true for MERGE: the plan's rows carry a write flag after the positions
   * @param copyOnWrite true when the tasks rewrite data files instead of writing delete files
   */
  WritePlanner.PlannedWrite planned(IcebergTable resolved, RelNode plan, boolean hasCondition,
      boolean removesWholeFiles, DataFileWrite updatedRows, boolean merge, boolean copyOnWrite) {
    return planned(resolved, plan, hasCondition, removesWholeFiles, updatedRows, merge, copyOnWrite, null);
  }

  /**
   * As {@link #planned(IcebergTable, RelNode, boolean, boolean, DataFileWrite, boolean, boolean)},
   * with the commit's conflict-detection filter given ({@code null}: the condition's Iceberg form).
   */
  WritePlanner.PlannedWrite planned(IcebergTable resolved, RelNode plan, boolean hasCondition,
      boolean removesWholeFiles, DataFileWrite updatedRows, boolean merge, boolean copyOnWrite,
      Expression conflictFilter) {
    Table table = resolved.table();
    Schema schema = table.schema();
    int formatVersion = TableUtil.formatVersion(table);
    Expression exact = Expressions.alwaysTrue();
    Expression pruning = Expressions.alwaysTrue();
    if (hasCondition) {
      Filter filter = scanFilter(plan);
      IcebergFilterTranslator translator = new IcebergFilterTranslator(schema);
      // Literals still carry the casts validation gave them (CAST(3):DOUBLE): folded first.
      RexNode condition = filter == null ? null : foldLiteralCasts(filter.getCondition(),
          filter.getCluster().getRexBuilder());
      exact = condition == null ? null : translator.translateExact(condition);
      Expression weaker = condition == null ? null : translator.translate(condition);
      pruning = exact != null ? exact : weaker != null ? weaker : Expressions.alwaysTrue();
    }
    if (!removesWholeFiles) {
      exact = null;
    }
    Snapshot current = table.currentSnapshot();
    DeleteFileWrite.Builder tasks = DeleteFileWrite.newBuilder()
        .setTableLocation(table.location())
        .setIcebergSchemaJson(SchemaParser.toJson(schema))
        .setFormatVersion(formatVersion);
    table.specs().forEach((id, spec) -> tasks.putPartitionSpecsJson(id, PartitionSpecParser.toJson(spec)));
    table.properties().forEach((k, v) -> {
      if (k.startsWith(WriteTarget.WRITE_PROPERTY_PREFIX)) {
        tasks.putProperties(k, v);
      }
    });
    RowDeleteRecord.Builder record = RowDeleteRecord.newBuilder()
        .setConflictFilterJson(ExpressionParser.toJson(conflictFilter != null ? conflictFilter : pruning));
    java.util.Set<String> positionFiles = new java.util.HashSet<>();
    if (current != null) {
      try (CloseableIterable<FileScanTask> files = table.newScan().useSnapshot(current.snapshotId())
          .filter(pruning).planFiles()) {
        for (FileScanTask task : files) {
          DataFile file = task.file();
          String json = org.apache.iceberg.ContentFileParser.toJson(file.copyWithoutStats(), task.spec());
          // A file with delete files goes to a task instead: the answer counts only live rows.
          if (exact != null && task.deletes().isEmpty() && (task.residual().op() == Expression.Operation.TRUE
              || new StrictMetricsEvaluator(schema, exact).eval(file))) {
            record.addRemovedDataFilesJson(json);
            continue;
          }
          tasks.addDataFilesJson(json);
          for (DeleteFile d : task.deletes()) {
            if (copyOnWrite) {
              // The rewrite leaves out the rows the file's delete files delete.
              if (d.content() == FileContent.EQUALITY_DELETES) {
                throw PlanningException.unpositioned(Code.UNSUPPORTED, "Unsupported SQL: copy-on-write of a data"
                    + " file of " + resolved.identifier() + " that has equality delete files");
              }
              if (d.format() != FileFormat.PUFFIN && positionFiles.add(d.location())) {
                tasks.addPositionDeletesJson(org.apache.iceberg.ContentFileParser.toJson(d,
                    table.specs().get(d.specId())));
              }
            } else if (formatVersion >= 3 && d.content() == FileContent.POSITION_DELETES && d.format() != FileFormat.PUFFIN) {
              // A v3 reader takes a file's deletion vector instead of its older position deletes.
              throw PlanningException.unpositioned(Code.UNSUPPORTED, "Unsupported SQL: data file of "
                  + resolved.identifier() + " has position delete files from format version 2; rewrite the"
                  + " table's data files before deleting or updating rows in format version 3");
            }
            if (d.format() == FileFormat.PUFFIN) {
              tasks.addDeletionVectorsJson(org.apache.iceberg.ContentFileParser.toJson(d, table.specs().get(d.specId())));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (updatedRows != null) {
      tasks.setUpdatedRows(updatedRows);
    }
    tasks.setMerge(merge);
    tasks.setCopyOnWrite(copyOnWrite);
    tasks.setSortOrderJson(WriteSortOrder.json(WriteSortOrder.writable(table.sortOrder(), schema, table.spec())));
    record.setDeleteFiles(tasks);
    WriteTarget target = new WriteTarget(resolved.identifier(), false, schema, table.spec(), table.location(),
        table.properties(), current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId()),
        record.build()).withSortOrder(table.sortOrder());
    return new WritePlanner.PlannedWrite(plan, target);
  }

  /** The data files a planned DELETE removes whole (content-file paths), for the scan to skip. */
  public static List<String> removedPaths(RowDeleteRecord record) {
    List<String> paths = new ArrayList<>();
    for (String json : record.getRemovedDataFilesJsonList()) {
      paths.add(org.apache.iceberg.util.JsonUtil.parse(json, node -> node.get("file-path").asText()));
    }
    return paths;
  }

  /**
   * {@code SELECT _file, _pos FROM t$squall_row_positions AS alias WHERE condition}, the alias
   * being the DELETE's own or the table's name, so that the condition's names resolve as written.
   */
  private static SqlSelect positionsQuery(SqlIdentifier targetName, SqlIdentifier givenAlias, List<SqlNode> more,
      SqlNode condition) {
    SqlParserPos pos = targetName.getParserPosition();
    String last = targetName.names.get(targetName.names.size() - 1);
    SqlIdentifier alias = givenAlias != null ? givenAlias : new SqlIdentifier(last, pos);
    SqlNode from = new SqlBasicCall(SqlStdOperatorTable.AS, List.of(positionsTable(targetName), alias), pos);
    SqlNodeList select = SqlNodeList.of(
        new SqlIdentifier(List.of(alias.getSimple(), IcebergTable.FILE_COLUMN), pos),
        new SqlIdentifier(List.of(alias.getSimple(), IcebergTable.POSITION_COLUMN), pos));
    more.forEach(select::add);
    return new SqlSelect(pos, null, select, from, condition, null, null, null, null, null, null, null, null);
  }

  /** The name {@code t$squall_row_positions} of the table {@code t} read with its row positions. */
  static SqlIdentifier positionsTable(SqlIdentifier targetName) {
    List<String> names = new ArrayList<>(targetName.names);
    names.set(names.size() - 1, names.get(names.size() - 1) + "$" + ROW_POSITIONS_SUFFIX);
    return new SqlIdentifier(names, targetName.getParserPosition());
  }

  /** The condition with every CAST of a literal made a literal of the cast's type (where the builder can). */
  static RexNode foldLiteralCasts(RexNode condition, RexBuilder rex) {
    return condition.accept(new RexShuttle() {
      @Override
      public RexNode visitCall(RexCall call) {
        RexNode visited = super.visitCall(call);
        if (visited instanceof RexCall cast && cast.getKind() == SqlKind.CAST
            && cast.getOperands().get(0) instanceof RexLiteral literal) {
          return rex.makeCast(cast.getType(), literal, true, false);
        }
        return visited;
      }
    });
  }

  /** The Filter directly over the table scan of a {@code Project*(Filter(TableScan))} plan, or null. */
  private static Filter scanFilter(RelNode plan) {
    RelNode node = plan;
    while (node instanceof Project project) {
      node = project.getInput();
    }
    return node instanceof Filter filter && filter.getInput() instanceof TableScan ? filter : null;
  }

  private static PlanningException error(Code code, String message, SqlParserPos pos) {
    return new PlanningException(code, message, pos.getLineNum(), pos.getColumnNum());
  }
}
