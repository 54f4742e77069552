package dev.squall.planner.ddl;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.DdlStatement;
import dev.squall.planner.sql.DdlStatement.ColumnDefinition;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.write.PartitionSpecFactory;
import dev.squall.planner.write.SortOrderFactory;
import dev.squall.planner.write.WritePlanner;
import dev.squall.planner.write.WriteSortOrder;
import dev.squall.proto.v1.DdlRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * Checks a DDL statement against the catalog and resolves its names into the {@link DdlRecord}
 * the coordinator applies. Nothing is changed here: every refusal (unknown schema, table or
 * column, a name that is taken, a non-empty schema, a column that partitions the table) comes
 * before the job runs, with the position of the offending name.
 */
public final class DdlPlanner {
  private final Catalog catalog;
  private final SqlFrontEnd frontEnd;
  private final WritePlanner writes;
  private final dev.squall.planner.PlannerSettings settings;

  public DdlPlanner(Catalog catalog, SqlFrontEnd frontEnd, WritePlanner writes,
      dev.squall.planner.PlannerSettings settings) {
    this.catalog = catalog;
    this.frontEnd = frontEnd;
    this.writes = writes;
    this.settings = settings;
  }

  /**
   * @throws PlanningException with the position of the offending name
   */
  public DdlRecord plan(DdlStatement statement) {
    if (statement instanceof DdlStatement.CreateSchema s) {
      WritePlanner.checkNewName("Schema", s.name());
      Optional<Namespace> existing = namespace(s.name().text());
      if (existing.isPresent() && !s.ifNotExists()) {
        throw error(Code.SCHEMA_EXISTS, "Schema '" + existing.get() + "' already exists", s.name());
      }
      String name = existing.map(n -> n.level(0)).orElse(s.name().text());
      return DdlRecord.newBuilder().setKind(DdlRecord.Kind.CREATE_SCHEMA).addNamespace(name)
          .setIfExistsClause(s.ifNotExists()).setDescription("CREATE SCHEMA " + name).build();
    }
    if (statement instanceof DdlStatement.DropSchema s) {
      Optional<Namespace> existing = namespace(s.name().text());
      if (existing.isEmpty() && !s.ifExists()) {
        throw error(Code.UNKNOWN_SCHEMA, "Schema '" + s.name().text() + "' does not exist", s.name());
      }
      if (existing.isPresent() && !catalog.listTables(existing.get()).isEmpty()) {
        throw error(Code.VALIDATION_ERROR, "Schema '" + existing.get() + "' is not empty; drop its tables first",
            s.name());
      }
      String name = existing.map(n -> n.level(0)).orElse(s.name().text());
      return DdlRecord.newBuilder().setKind(DdlRecord.Kind.DROP_SCHEMA).addNamespace(name)
          .setIfExistsClause(s.ifExists()).setDescription("DROP SCHEMA " + name).build();
    }
    if (statement instanceof DdlStatement.CreateTable s) {
      return createTable(s);
    }
    if (statement instanceof DdlStatement.DropTable s) {
      Optional<IcebergTable> table = resolve(s.name());
      if (table.isEmpty() && !s.ifExists()) {
        throw unknownTable(s.name());
      }
      TableIdentifier id = table.map(IcebergTable::identifier).orElse(null);
      DdlRecord.Builder b = DdlRecord.newBuilder().setKind(DdlRecord.Kind.DROP_TABLE).setIfExistsClause(s.ifExists());
      if (id == null) {
        return b.setDescription("DROP TABLE " + joined(s.name())).build();
      }
      return target(b, id).setDescription("DROP TABLE " + id).build();
    }
    if (statement instanceof DdlStatement.AddColumn s) {
      IcebergTable table = table(s.table());
      ColumnDefinition column = s.column();
      Types.NestedField existing = table.schema().caseInsensitiveFindField(column.name().text());
      if (existing != null && !s.ifNotExists()) {
        throw error(Code.VALIDATION_ERROR, "Column '" + existing.name() + "' already exists in " + table.identifier(),
            column.name());
      }
      if (column.notNull()) {
        throw error(Code.UNSUPPORTED, "Unsupported SQL: ADD COLUMN ... NOT NULL is not supported: rows already"
            + " written have no value for it", column.name());
      }
      Schema added = new Schema(Types.NestedField.optional(1, column.name().text(), column.type(), column.comment()));
      return target(DdlRecord.newBuilder().setKind(DdlRecord.Kind.ADD_COLUMN), table.identifier())
          .setSchemaJson(SchemaParser.toJson(added)).setIfExistsClause(s.ifNotExists())
          .setDescription("ALTER TABLE " + table.identifier() + " ADD COLUMN " + column.name().text()).build();
    }
    if (statement instanceof DdlStatement.RenameColumn s) {
      IcebergTable table = table(s.table());
      Types.NestedField from = column(table, s.from());
      Types.NestedField clash = table.schema().caseInsensitiveFindField(s.to().text());
      if (clash != null && clash.fieldId() != from.fieldId()) {
        throw error(Code.VALIDATION_ERROR, "Column '" + clash.name() + "' already exists in " + table.identifier(),
            s.to());
      }
      return target(DdlRecord.newBuilder().setKind(DdlRecord.Kind.RENAME_COLUMN), table.identifier())
          .setColumn(from.name()).setNewName(s.to().text())
          .setDescription("ALTER TABLE " + table.identifier() + " RENAME COLUMN " + from.name() + " TO "
              + s.to().text()).build();
    }
    if (statement instanceof DdlStatement.DropColumn s) {
      IcebergTable table = table(s.table());
      Types.NestedField column = column(table, s.column());
      if (table.schema().columns().size() == 1) {
        throw error(Code.VALIDATION_ERROR, "Cannot drop the only column of " + table.identifier(), s.column());
      }
      for (PartitionField field : table.table().spec().fields()) {
        if (field.sourceId() == column.fieldId()) {
          throw error(Code.VALIDATION_ERROR, "Cannot drop column '" + column.name() + "': it partitions "
              + table.identifier(), s.column());
        }
      }
      if (table.schema().identifierFieldIds().contains(column.fieldId())) {
        throw error(Code.VALIDATION_ERROR, "Cannot drop column '" + column.name() + "': it is an identifier field of "
            + table.identifier(), s.column());
      }
      return target(DdlRecord.newBuilder().setKind(DdlRecord.Kind.DROP_COLUMN), table.identifier())
          .setColumn(column.name())
          .setDescription("ALTER TABLE " + table.identifier() + " DROP COLUMN " + column.name()).build();
    }
    if (statement instanceof DdlStatement.ExecuteProcedure s) {
      return TableProcedures.plan(s, table(s.table()), settings.minRetention(), java.time.Instant.now());
    }
    DdlStatement.RenameTable s = (DdlStatement.RenameTable) statement;
    IcebergTable table = table(s.table());
    List<NamePart> to = s.to();
    if (to.size() == 1) {
      // An unqualified new name stays in the table's schema, as in Trino.
      List<NamePart> qualified = new ArrayList<>();
      NamePart last = to.get(0);
      qualified.add(new NamePart(table.identifier().namespace().level(0), true, last.line(), last.column()));
      qualified.add(last);
      to = qualified;
    }
    TableIdentifier target = writes.newTableIdentifier(to);
    return target(DdlRecord.newBuilder().setKind(DdlRecord.Kind.RENAME_TABLE), table.identifier())
        .addAllNewNamespace(List.of(target.namespace().levels())).setNewName(target.name())
        .setDescription("ALTER TABLE " + table.identifier() + " RENAME TO " + target).build();
  }

  private DdlRecord createTable(DdlStatement.CreateTable s) {
    TableIdentifier id;
    try {
      id = writes.newTableIdentifier(s.name());
    } catch (PlanningException e) {
      if (e.code() != Code.TABLE_EXISTS || !s.ifNotExists()) {
        throw e;
      }
      Optional<IcebergTable> existing = resolve(s.name());
      TableIdentifier existingId = existing.map(IcebergTable::identifier).orElseThrow(() -> e);
      return target(DdlRecord.newBuilder().setKind(DdlRecord.Kind.CREATE_TABLE), existingId).setIfExistsClause(true)
          .setDescription("CREATE TABLE " + existingId + ": exists already").build();
    }
    List<Types.NestedField> fields = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (ColumnDefinition c : s.columns()) {
      if (!names.add(c.name().text().toLowerCase(Locale.ROOT))) {
        throw error(Code.VALIDATION_ERROR, "Column '" + c.name().text() + "' is defined twice", c.name());
      }
      fields.add(Types.NestedField.of(fields.size() + 1, !c.notNull(), c.name().text(), c.type(), c.comment()));
    }
    Schema schema = new Schema(fields);
    PartitionSpec spec = PartitionSpecFactory.build(schema, s.partitionBy());
    SortOrder order = SortOrderFactory.build(schema, s.sortedBy());
    return target(DdlRecord.newBuilder().setKind(DdlRecord.Kind.CREATE_TABLE), id)
        .setSchemaJson(SchemaParser.toJson(schema)).setPartitionSpecJson(PartitionSpecParser.toJson(spec))
        .setSortOrderJson(WriteSortOrder.json(order))
        .putAllProperties(s.properties()).setIfExistsClause(s.ifNotExists())
        .setDescription("CREATE TABLE " + id).build();
  }

  private static DdlRecord.Builder target(DdlRecord.Builder b, TableIdentifier id) {
    return b.addAllNamespace(List.of(id.namespace().levels())).setTable(id.name());
  }

  /** The top-level namespace of that name, ignoring case. */
  private Optional<Namespace> namespace(String name) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      throw PlanningException.unpositioned(Code.UNSUPPORTED,
          "Unsupported SQL: this catalog does not manage schemas");
    }
    for (Namespace n : namespaces.listNamespaces()) {
      if (n.length() == 1 && n.level(0).equalsIgnoreCase(name)) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  private Optional<IcebergTable> resolve(List<NamePart> name) {
    return frontEnd.resolveTable(name.stream().map(NamePart::text).toList());
  }

  /** The table a statement names. @throws PlanningException UNKNOWN_TABLE at the name */
  public IcebergTable table(List<NamePart> name) {
    return resolve(name).orElseThrow(() -> unknownTable(name));
  }

  private static Types.NestedField column(IcebergTable table, NamePart name) {
    Types.NestedField f = table.schema().caseInsensitiveFindField(name.text());
    if (f == null || !table.schema().columns().contains(f)) {
      throw error(Code.UNKNOWN_COLUMN, "Column '" + name.text() + "' does not exist in " + table.identifier(), name);
    }
    return f;
  }

  private static PlanningException unknownTable(List<NamePart> name) {
    return error(Code.UNKNOWN_TABLE, "Table '" + joined(name) + "' does not exist", name.get(0));
  }

  private static String joined(List<NamePart> name) {
    return String.join(".", name.stream().map(NamePart::text).toList());
  }

  private static PlanningException error(Code code, String message, NamePart at) {
    return new PlanningException(code, message, at.line(), at.column());
  }
}
