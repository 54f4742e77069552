package dev.squall.planner.write;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.translate.IcebergFilterTranslator;
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
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
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

/**
 * Plans {@code DELETE FROM t [[AS] alias] [WHERE condition]} on an Iceberg table (format v2 or
 * later, merge-on-read) as a scan of {@code t} that yields the data file and position of every row
 * to delete: {@code SELECT _file, _pos FROM t WHERE condition}. The root stage writes those
 * positions as delete files ({@link RowDeleteRecord#getDeleteFiles()}); the coordinator commits
 * them in one row delta.
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

  private final SqlFrontEnd frontEnd;

  public RowDeletePlanner(SqlFrontEnd frontEnd) {
    this.frontEnd = frontEnd;
  }

  /**
   * Plans a DELETE.
   *
   * @throws PlanningException UNKNOWN_TABLE for a missing table; UNSUPPORTED for a table of format
   *     v1, a copy-on-write table, a table as of a snapshot or a table with a column named
   *     {@code _file} or {@code _pos}; errors of the condition as for a query's WHERE, with positions
   */
  public WritePlanner.PlannedWrite delete(SqlDelete delete) {
    if (!(delete.getTargetTable() instanceof SqlIdentifier targetName)) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: DELETE target must be a table name",
          delete.getTargetTable().getParserPosition());
    }
    SqlParserPos at = targetName.getParserPosition();
    IcebergTable resolved = frontEnd.resolveTable(targetName.names).orElseThrow(() -> error(Code.UNKNOWN_TABLE,
        "Table '" + targetName + "' not found", at));
    if (resolved.pinnedSnapshotId().isPresent()) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: DELETE FROM a table as of a snapshot (time travel)", at);
    }
    Table table = resolved.table();
    int formatVersion = TableUtil.formatVersion(table);
    if (formatVersion < 2) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: DELETE needs an Iceberg table of format version 2 or later; "
          + resolved.identifier() + " has format version " + formatVersion, at);
    }
    String mode = table.properties().getOrDefault(TableProperties.DELETE_MODE, "merge-on-read");
    if (!mode.equals("merge-on-read")) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: DELETE on a table whose " + TableProperties.DELETE_MODE
          + " is '" + mode + "'; Squall deletes merge-on-read only", at);
    }
    Schema schema = table.schema();
    if (schema.findField(IcebergTable.FILE_COLUMN) != null || schema.findField(IcebergTable.POSITION_COLUMN) != null) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: DELETE on a table with a column named "
          + IcebergTable.FILE_COLUMN + " or " + IcebergTable.POSITION_COLUMN, at);
    }

    RelNode plan = frontEnd.toRel(positionsQuery(delete, targetName)).project();
    Expression exact = Expressions.alwaysTrue();
    Expression pruning = Expressions.alwaysTrue();
    if (delete.getCondition() != null) {
      Filter filter = scanFilter(plan);
      IcebergFilterTranslator translator = new IcebergFilterTranslator(schema);
      exact = filter == null ? null : translator.translateExact(filter.getCondition());
      Expression weaker = filter == null ? null : translator.translate(filter.getCondition());
      pruning = exact != null ? exact : weaker != null ? weaker : Expressions.alwaysTrue();
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
        .setConflictFilterJson(ExpressionParser.toJson(pruning));
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
            if (d.format() == FileFormat.PUFFIN) {
              tasks.addDeletionVectorsJson(org.apache.iceberg.ContentFileParser.toJson(d, table.specs().get(d.specId())));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    record.setDeleteFiles(tasks);
    WriteTarget target = new WriteTarget(resolved.identifier(), false, schema, table.spec(), table.location(),
        table.properties(), current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId()),
        record.build());
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
  private static SqlSelect positionsQuery(SqlDelete delete, SqlIdentifier targetName) {
    SqlParserPos pos = targetName.getParserPosition();
    List<String> names = new ArrayList<>(targetName.names);
    String last = names.get(names.size() - 1);
    names.set(names.size() - 1, last + "$" + ROW_POSITIONS_SUFFIX);
    SqlIdentifier alias = delete.getAlias() != null ? delete.getAlias() : new SqlIdentifier(last, pos);
    SqlNode from = new SqlBasicCall(SqlStdOperatorTable.AS,
        List.of(new SqlIdentifier(names, pos), alias), pos);
    SqlNodeList select = SqlNodeList.of(
        new SqlIdentifier(List.of(alias.getSimple(), IcebergTable.FILE_COLUMN), pos),
        new SqlIdentifier(List.of(alias.getSimple(), IcebergTable.POSITION_COLUMN), pos));
    return new SqlSelect(pos, null, select, from, delete.getCondition(), null, null, null, null, null, null, null, null);
  }

  /** The Filter directly over the table scan of a {@code Project(Filter(TableScan))} plan, or null. */
  private static Filter scanFilter(RelNode plan) {
    RelNode node = plan instanceof Project project ? project.getInput() : plan;
    return node instanceof Filter filter && filter.getInput() instanceof TableScan ? filter : null;
  }

  private static PlanningException error(Code code, String message, SqlParserPos pos) {
    return new PlanningException(code, message, pos.getLineNum(), pos.getColumnNum());
  }
}
