package dev.squall.planner.meta;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.MetadataStatement;
import dev.squall.planner.sql.SqlFrontEnd;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.iceberg.types.Types;

/**
 * The rows of a metadata statement ({@link MetadataStatement}), read from the catalog while
 * planning, with Trino's column names: SHOW SCHEMAS ({@code Schema}), SHOW TABLES ({@code Table}),
 * DESCRIBE / SHOW COLUMNS ({@code Column}, {@code Type}, {@code Extra}, {@code Comment}), SHOW CREATE
 * TABLE ({@code Create Table}), SHOW STATS ({@link ColumnStatistics}). Names resolve as in a FROM
 * clause (ignoring case; unqualified tables in the default schema).
 */
public final class MetadataAnswers {
  private final SqlFrontEnd frontEnd;
  private final String defaultSchema;

  public MetadataAnswers(SqlFrontEnd frontEnd, String defaultSchema) {
    this.frontEnd = frontEnd;
    this.defaultSchema = defaultSchema;
  }

  /**
   * @throws PlanningException UNKNOWN_SCHEMA or UNKNOWN_TABLE at the name's position
   */
  public MetadataRelation answer(MetadataStatement statement) {
    CatalogListing listing = frontEnd.listing();
    if (statement instanceof MetadataStatement.ShowSchemas s) {
        List<List<Object>> rows = new ArrayList<>();
        List<String> schemas = new ArrayList<>(listing.schemas());
        schemas.add(InformationSchema.NAME);
        schemas.sort(null);
        for (String schema : schemas) {
          if (matches(s.like(), schema)) {
            rows.add(List.of(schema));
          }
        }
        return new MetadataRelation(List.of(MetadataRelation.varchar("Schema")), rows);
    }
    if (statement instanceof MetadataStatement.ShowTables s) {
        String schema = s.schema().map(p -> schema(listing, p)).orElseGet(() -> {
          if (defaultSchema.isEmpty()) {
            throw PlanningException.unpositioned(Code.UNKNOWN_SCHEMA,
                "SHOW TABLES needs a schema: name one with FROM, or set the query property default_schema");
          }
          return listing.schema(defaultSchema).orElse(defaultSchema);
        });
        List<List<Object>> rows = new ArrayList<>();
        for (String table : listing.tables(schema)) {
          if (matches(s.like(), table)) {
            rows.add(List.of(table));
          }
        }
        return new MetadataRelation(List.of(MetadataRelation.varchar("Table")), rows);
    }
    if (statement instanceof MetadataStatement.ShowColumns s) {
        IcebergTable table = table(s.table());
        List<List<Object>> rows = new ArrayList<>();
        for (Types.NestedField f : table.schema().columns()) {
          if (matches(s.like(), f.name())) {
            rows.add(java.util.Arrays.asList(f.name(), TrinoTypeNames.of(f.type()), "", f.doc() == null ? "" : f.doc()));
          }
        }
        return new MetadataRelation(List.of(MetadataRelation.varchar("Column"), MetadataRelation.varchar("Type"),
            MetadataRelation.varchar("Extra"), MetadataRelation.varchar("Comment")), rows);
    }
    if (statement instanceof MetadataStatement.ShowCreateTable s) {
        IcebergTable table = table(s.table());
        return new MetadataRelation(List.of(MetadataRelation.varchar("Create Table")),
            List.of(List.of(CreateTableText.of(table.identifier().toString(), table.table()))));
    }
    MetadataStatement.ShowStats s = (MetadataStatement.ShowStats) statement;
    IcebergTable table = table(s.table());
    return ColumnStatistics.of(table.table(), table.snapshot(), table.schema());
  }

  private String schema(CatalogListing listing, NamePart part) {
    return listing.schema(part.text()).orElseThrow(() -> new PlanningException(Code.UNKNOWN_SCHEMA,
        "Schema '" + part.text() + "' does not exist", part.line(), part.column()));
  }

  private IcebergTable table(List<NamePart> name) {
    List<String> names = name.stream().map(NamePart::text).toList();
    Optional<IcebergTable> table = frontEnd.resolveTable(names);
    NamePart first = name.get(0);
    return table.orElseThrow(() -> new PlanningException(Code.UNKNOWN_TABLE,
        "Table '" + String.join(".", names) + "' does not exist", first.line(), first.column()));
  }

  /** SQL LIKE: {@code %} any run of characters, {@code _} one; everything else literal, with case. */
  static boolean matches(Optional<String> like, String value) {
    if (like.isEmpty()) {
      return true;
    }
    StringBuilder regex = new StringBuilder();
    for (char c : like.get().toCharArray()) {
      regex.append(switch (c) {
        case '%' -> ".*";
        case '_' -> ".";
        default -> Pattern.quote(String.valueOf(c));
      });
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(value).matches();
  }
}
