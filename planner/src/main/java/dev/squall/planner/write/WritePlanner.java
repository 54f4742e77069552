package dev.squall.planner.write;

import dev.squall.planner.PlannerSettings;
import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.catalog.IcebergTypeMapping;
import dev.squall.planner.sql.CreateTableAsStatement;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.SqlFrontEnd;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlValidatorUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Plans the write part of {@code INSERT INTO t [(cols)] query} and
 * {@code CREATE TABLE t [PARTITIONED BY (...)] AS query}: resolves the target, checks the query's
 * columns against it and puts the final projection ({@link ColumnAssignment}) on top of the
 * query's plan. The result's plan produces exactly the target's columns; the caller optimizes it
 * and cuts it into stages like any query, and the root stage becomes the writer stage.
 *
 * <p>Choices: INSERT with a column list gives the other columns NULL (refused for a NOT NULL
 * column). CTAS refuses a namespace that does not exist (it never creates one), a table that
 * exists (also under another letter case, since names resolve case-insensitively), query columns
 * without a name ({@code EXPR$n}) or with the same name, and columns of types with no Iceberg
 * counterpart. CTAS columns are all optional. Nothing is created while planning.
 */
public final class WritePlanner {
  private final Catalog catalog;
  private final SqlFrontEnd frontEnd;
  private final PlannerSettings settings;

  /**
   * A planned write.
   *
   * @param plan the query's logical plan with the final projection, columns = target columns
   * @param target the table written
   */
  public record PlannedWrite(RelNode plan, WriteTarget target) {
    /** The target's column names, the root stage's output names. */
    public List<String> columnNames() {
      if (target.isRowDelete()) {
        return plan.getRowType().getFieldNames();
      }
      return target.schema().columns().stream().map(Types.NestedField::name).toList();
    }
  }

  public WritePlanner(Catalog catalog, SqlFrontEnd frontEnd, PlannerSettings settings) {
    this.catalog = catalog;
    this.frontEnd = frontEnd;
    this.settings = settings;
  }

  /**
   * Plans an INSERT.
   *
   * @throws PlanningException UNKNOWN_TABLE for a missing target, UNKNOWN_COLUMN for a column list
   *     entry the table lacks, VALIDATION_ERROR for a column count or type mismatch, UNSUPPORTED
   *     for UPSERT; all with positions
   */
  public PlannedWrite insert(SqlInsert insert) {
    if (insert.isUpsert()) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: UPSERT is not supported by Squall",
          insert.getParserPosition());
    }
    if (!(insert.getTargetTable() instanceof SqlIdentifier targetName)) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: INSERT target must be a table name",
          insert.getTargetTable().getParserPosition());
    }
    IcebergTable resolved = frontEnd.resolveTable(targetName.names).orElseThrow(() -> error(Code.UNKNOWN_TABLE,
        "Table '" + targetName + "' does not exist", targetName.getParserPosition()));
    if (resolved.pinnedSnapshotId().isPresent()) {
      throw error(Code.UNSUPPORTED, "Unsupported SQL: INSERT INTO a table as of a snapshot (time travel)",
          targetName.getParserPosition());
    }
    Table table = resolved.table();
    Schema schema = table.schema();
    List<Types.NestedField> columns = schema.columns();

    int[] sourceOfColumn = new int[columns.size()];
    int targetCount;
    if (insert.getTargetColumnList() == null) {
      for (int c = 0; c < sourceOfColumn.length; c++) {
        sourceOfColumn[c] = c;
      }
      targetCount = columns.size();
    } else {
      Arrays.fill(sourceOfColumn, -1);
      targetCount = insert.getTargetColumnList().size();
      for (int k = 0; k < targetCount; k++) {
        SqlNode item = insert.getTargetColumnList().get(k);
        String name = item instanceof SqlIdentifier id ? id.getSimple() : item.toString();
        int index = indexOfIgnoreCase(columns, name);
        if (index < 0) {
          throw error(Code.UNKNOWN_COLUMN, "Column '" + resolved.identifier() + "." + name + "' cannot be resolved",
              item.getParserPosition());
        }
        if (sourceOfColumn[index] >= 0) {
          throw error(Code.VALIDATION_ERROR, "Column '" + name + "' is named twice in the INSERT column list",
              item.getParserPosition());
        }
        sourceOfColumn[index] = k;
      }
    }

    SqlNode source = insert.getSource();
    RelRoot root = frontEnd.toRel(source);
    RelNode query = root.project();
    int produced = query.getRowType().getFieldCount();
    if (produced != targetCount) {
      throw error(Code.VALIDATION_ERROR, "INSERT INTO " + resolved.identifier() + " has " + targetCount
          + " target column" + (targetCount == 1 ? "" : "s") + " but the query produces " + produced,
          source.getParserPosition());
    }
    RelNode plan = ColumnAssignment.project(frontEnd.relBuilder(), query, schema, sourceOfColumn, source);
    Snapshot current = table.currentSnapshot();
    WriteTarget target = new WriteTarget(resolved.identifier(), false, schema, table.spec(), table.location(),
        table.properties(), current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId()))
        .withSortOrder(table.sortOrder());
    return new PlannedWrite(plan, target);
  }

  /**
   * Plans a CREATE TABLE AS. Asks the catalog for the new table's location and default properties
   * through a create transaction that is never committed.
   *
   * @throws PlanningException UNKNOWN_TABLE for a missing namespace, TABLE_EXISTS, VALIDATION_ERROR
   *     for unnamed or duplicate columns, unknown partition columns or transforms that do not
   *     apply to a column's type; UNSUPPORTED for column types with no Iceberg counterpart
   */
  public PlannedWrite createTableAs(CreateTableAsStatement statement) {
    TableIdentifier id = newTableIdentifier(statement.name());
    SqlNode source = SqlFrontEnd.parse(statement.query());
    refuseRepeatedSelectNames(source, id);
    RelRoot root = frontEnd.toRel(source);
    RelNode query = root.project();

    List<RelDataTypeField> fields = root.validatedRowType.getFieldList();
    List<Types.NestedField> columns = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < fields.size(); i++) {
      String name = fields.get(i).getName();
      SqlParserPos pos = ColumnAssignment.columnPosition(source, i);
      if (name.startsWith("EXPR$")) {
        throw error(Code.VALIDATION_ERROR, "Column " + (i + 1) + " of CREATE TABLE " + id
            + " has no name; give it one with AS", pos);
      }
      if (!seen.add(name.toLowerCase(Locale.ROOT))) {
        throw error(Code.VALIDATION_ERROR, "Column name '" + name + "' appears twice in CREATE TABLE " + id, pos);
      }
      var sqlType = query.getRowType().getFieldList().get(i).getType();
      Type type = IcebergTypeMapping.toIceberg(sqlType).orElseThrow(() -> error(Code.UNSUPPORTED,
          "Unsupported SQL: column '" + name + "' has type " + sqlType.getFullTypeString().replace(" NOT NULL", "")
              + (sqlType.getSqlTypeName().getName().equals("NULL") ? "; give it a type with CAST" : ", which an Iceberg table cannot hold"),
          pos));
      columns.add(Types.NestedField.optional(i + 1, name, type));
    }
    Schema schema = new Schema(columns);
    PartitionSpec spec = PartitionSpecFactory.build(schema, statement.partitionBy());
    SortOrder order = SortOrderFactory.build(schema, statement.sortedBy());

    Transaction create;
    try {
      create = catalog.buildTable(id, schema).withPartitionSpec(spec).withSortOrder(order)
          .withProperties(statement.properties()).createTransaction();
    } catch (AlreadyExistsException e) {
      NamePart last = statement.name().get(statement.name().size() - 1);
      throw new PlanningException(Code.TABLE_EXISTS, "Table '" + id + "' already exists", last.line(),
          last.column(), e);
    }
    // The transaction's table is the metadata the catalog would create: ids reassigned, location
    // and default properties chosen. It is dropped uncommitted.
    Table planned = create.table();
    // The metadata keeps format-version out of its properties; the commit's create needs it again.
    Map<String, String> properties = new HashMap<>(planned.properties());
    properties.putAll(statement.properties());
    WriteTarget target = new WriteTarget(id, true, planned.schema(), planned.spec(), planned.location(),
        properties, OptionalLong.empty()).withSortOrder(planned.sortOrder());
    int[] identity = new int[columns.size()];
    for (int c = 0; c < identity.length; c++) {
      identity[c] = c;
    }
    RelNode plan = ColumnAssignment.project(frontEnd.relBuilder(), query, target.schema(), identity, source);
    return new PlannedWrite(plan, target);
  }

  /** Longest name, in UTF-8 bytes, of a new table or schema: the Glue Data Catalog's limit. */
  public static final int MAX_NAME_BYTES = 255;

  /**
   * Refuses a new table or schema name longer than {@link #MAX_NAME_BYTES} UTF-8 bytes, before the
   * catalog or storage meets it (object keys and file names have limits of their own).
   *
   * @throws PlanningException VALIDATION_ERROR at the name
   */
  public static void checkNewName(String what, NamePart name) {
    int bytes = name.text().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new PlanningException(Code.VALIDATION_ERROR, what + " name is " + bytes + " bytes long; at most "
          + MAX_NAME_BYTES + " are allowed", name.line(), name.column());
    }
  }

  /**
   * Resolves a new table's namespace (must exist; matched ignoring case) and refuses a name that
   * is taken (also in another letter case).
   *
   * @throws PlanningException VALIDATION_ERROR without a namespace, UNKNOWN_SCHEMA, TABLE_EXISTS
   */
  public TableIdentifier newTableIdentifier(List<NamePart> name) {
    NamePart tableName = name.get(name.size() - 1);
    checkNewName("Table", tableName);
    List<String> namespaceParts = new ArrayList<>();
    if (name.size() == 1) {
      namespaceParts.addAll(settings.defaultSchemaPath());
      if (namespaceParts.isEmpty()) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Table '" + tableName.text()
            + "' needs a namespace (namespace.table): there is no default namespace", tableName.line(),
            tableName.column());
      }
    } else {
      name.subList(0, name.size() - 1).forEach(p -> namespaceParts.add(p.text()));
    }
    Namespace namespace = Namespace.of(namespaceParts.toArray(String[]::new));
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(namespace)) {
      Namespace match = null;
      if (namespace.length() == 1) {
        for (Namespace existing : namespaces.listNamespaces()) {
          if (existing.length() == 1 && existing.level(0).equalsIgnoreCase(namespace.level(0))) {
            match = existing;
          }
        }
      }
      if (match == null) {
        NamePart at = name.size() == 1 ? tableName : name.get(0);
        throw new PlanningException(Code.UNKNOWN_SCHEMA, "Schema '" + namespace
            + "' does not exist; create it with CREATE SCHEMA", at.line(), at.column());
      }
      namespace = match;
    }
    TableIdentifier id = TableIdentifier.of(namespace, tableName.text());
    for (TableIdentifier existing : catalog.listTables(namespace)) {
      if (existing.name().equalsIgnoreCase(tableName.text())) {
        throw new PlanningException(Code.TABLE_EXISTS, "Table '" + existing + "' already exists",
            tableName.line(), tableName.column());
      }
    }
    return id;
  }

  /**
   * Calcite silently renames a repeated output name ({@code x}, {@code x0}); a new table must not
   * get a column name nobody wrote, so repeated names of a SELECT list are refused before
   * validation renames them. (Names that come from a {@code *} are checked after validation only
   * by exact repetition.)
   */
  private static void refuseRepeatedSelectNames(SqlNode source, TableIdentifier id) {
    SqlNode query = source instanceof SqlOrderBy orderBy ? orderBy.query : source;
    if (!(query instanceof SqlSelect select) || select.getSelectList() == null) {
      return;
    }
    Set<String> seen = new HashSet<>();
    for (SqlNode item : select.getSelectList()) {
      if (item instanceof SqlIdentifier identifier && identifier.isStar()) {
        continue;
      }
      String alias = SqlValidatorUtil.alias(item);
      if (alias != null && !seen.add(alias.toLowerCase(Locale.ROOT))) {
        throw error(Code.VALIDATION_ERROR, "Column name '" + alias + "' appears twice in CREATE TABLE " + id
            + "; give one of them another name with AS", item.getParserPosition());
      }
    }
  }

  private static int indexOfIgnoreCase(List<Types.NestedField> columns, String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equalsIgnoreCase(name)) {
        return i;
      }
    }
    return -1;
  }

  private static PlanningException error(Code code, String message, SqlParserPos pos) {
    return new PlanningException(code, message, pos.getLineNum(), pos.getColumnNum());
  }
}
