package dev.squall.planner.analyze;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.catalog.ThetaStatisticsFile;
import dev.squall.planner.sql.AnalyzeStatement;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.proto.v1.AnalyzeRecord;
import dev.squall.proto.v1.StageGraph;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.Optionality;
import org.apache.iceberg.types.Types;

/**
 * Plans {@code ANALYZE t [WITH (columns = ARRAY[...])]}: the aggregate {@code COUNT(*),
 * $THETA_SKETCH(c1), ...} over the table's current snapshot, which the stage translator splits
 * as any global aggregate (partial sketches in the scan tasks, a single edge, their union in one
 * final task); the coordinator then writes the final row's sketches into a Puffin statistics file
 * and commits it for the scanned snapshot ({@link AnalyzeRecord}).
 *
 * <p>Analyzed columns: every top-level column of a type the scan reads (nested, time, uuid and
 * timestamp-with-zone columns are skipped), or the listed ones, each of which must exist and be of
 * such a type. Refused with the offending name's position: an unknown table or column, a metadata
 * table, a column listed twice, an empty list.
 */
public final class AnalyzePlanner {
  /**
   * THETA_SKETCH(value): the compact theta sketch of the non-NULL values (VARBINARY, never NULL);
   * internal to ANALYZE (the {@code $} keeps SQL text from naming it).
   */
  public static final SqlAggFunction THETA_SKETCH = new SqlAggFunction("$THETA_SKETCH", null, SqlKind.OTHER_FUNCTION,
      ReturnTypes.explicit(org.apache.calcite.sql.type.SqlTypeName.VARBINARY), null, OperandTypes.ANY,
      SqlFunctionCategory.USER_DEFINED_FUNCTION, false, false, Optionality.FORBIDDEN) {};

  private final SqlFrontEnd frontEnd;

  public AnalyzePlanner(SqlFrontEnd frontEnd) {
    this.frontEnd = frontEnd;
  }

  /**
   * An ANALYZE as planned: the logical plan (row count, then one sketch per analyzed column) and
   * the record the coordinator commits by, whose snapshot id is set by {@link #withSnapshot}.
   */
  public record Planned(RelNode plan, List<String> columnNames, AnalyzeRecord record) {
    /** The record with the snapshot the translated graph scans (none for a table without snapshots). */
    public AnalyzeRecord withSnapshot(StageGraph graph) {
      var snapshots = graph.getTableSnapshotIdsMap().values();
      return snapshots.isEmpty() ? record : record.toBuilder().setSnapshotId(snapshots.iterator().next()).build();
    }
  }

  /**
   * Refuses {@code ANALYZE t$snapshots} and the other metadata tables, whose rows are no data.
   *
   * @throws PlanningException UNSUPPORTED at the table name
   */
  public static void refuseMetadataTable(AnalyzeStatement statement) {
    NamePart last = statement.table().get(statement.table().size() - 1);
    if (last.text().indexOf('$') >= 0) {
      throw new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: ANALYZE of metadata table '" + last.text()
          + "'; analyze the table itself", last.line(), last.column());
    }
  }

  /**
   * @throws PlanningException UNKNOWN_COLUMN or VALIDATION_ERROR at a listed column, UNSUPPORTED
   *     for a metadata table, a table as of a snapshot or a column of a type ANALYZE cannot read
   */
  public Planned plan(AnalyzeStatement statement, IcebergTable resolved) {
    NamePart last = statement.table().get(statement.table().size() - 1);
    if (resolved.pinnedSnapshotId().isPresent()) {
      throw new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: ANALYZE of a table as of a snapshot",
          last.line(), last.column());
    }
    List<Types.NestedField> columns = resolved.schema().columns();
    List<Integer> chosen = new ArrayList<>();
    if (statement.columns().isEmpty()) {
      for (int i = 0; i < columns.size(); i++) {
        if (ThetaStatisticsFile.sketchable(columns.get(i).type())) {
          chosen.add(i);
        }
      }
    } else {
      List<NamePart> listed = statement.columns().get();
      if (listed.isEmpty()) {
        throw new PlanningException(Code.VALIDATION_ERROR, "ANALYZE columns must list at least one column",
            last.line(), last.column());
      }
      Set<Integer> seen = new HashSet<>();
      for (NamePart name : listed) {
        int index = indexOf(resolved.schema(), name.text());
        if (index < 0) {
          throw new PlanningException(Code.UNKNOWN_COLUMN, "Column '" + name.text() + "' does not exist in "
              + resolved.identifier(), name.line(), name.column());
        }
        if (!seen.add(index)) {
          throw new PlanningException(Code.VALIDATION_ERROR, "Column '" + name.text() + "' is listed twice",
              name.line(), name.column());
        }
        if (!ThetaStatisticsFile.sketchable(columns.get(index).type())) {
          throw new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: ANALYZE of column '" + name.text()
              + "' of type " + columns.get(index).type(), name.line(), name.column());
        }
        chosen.add(index);
      }
    }
    StringBuilder quoted = new StringBuilder();
    for (String level : resolved.identifier().namespace().levels()) {
      quoted.append('"').append(level.replace("\"", "\"\"")).append("\".");
    }
    quoted.append('"').append(resolved.identifier().name().replace("\"", "\"\"")).append('"');
    RelBuilder builder = frontEnd.relBuilder();
    builder.push(frontEnd.toRel(SqlFrontEnd.parse("SELECT * FROM " + quoted)).project());
    List<RelBuilder.AggCall> calls = new ArrayList<>();
    List<String> names = new ArrayList<>();
    calls.add(builder.countStar("rows"));
    names.add("rows");
    AnalyzeRecord.Builder record = AnalyzeRecord.newBuilder()
        .addAllNamespace(List.of(resolved.identifier().namespace().levels())).setTable(resolved.identifier().name());
    List<String> columnNames = new ArrayList<>();
    for (int i : chosen) {
      Types.NestedField field = columns.get(i);
      calls.add(builder.aggregateCall(THETA_SKETCH, builder.field(i)).as(field.name()));
      names.add(field.name());
      columnNames.add(field.name());
      record.addFieldIds(field.fieldId());
    }
    RelNode plan = builder.aggregate(builder.groupKey(), calls).build();
    record.setDescription(statement.describe(resolved.identifier().toString(), columnNames));
    return new Planned(plan, names, record.build());
  }

  /** The top-level column of that name, its exact spelling first, else ignoring case; -1 for none. */
  private static int indexOf(org.apache.iceberg.Schema schema, String name) {
    Types.NestedField exact = schema.findField(name);
    return schema.columns().indexOf(exact != null ? exact : schema.caseInsensitiveFindField(name));
  }
}
