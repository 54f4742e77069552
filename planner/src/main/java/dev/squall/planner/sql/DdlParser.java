package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.CreateTableAsStatement.PartitionItem;
import dev.squall.planner.sql.CreateTableAsStatement.SortItem;
import dev.squall.planner.sql.DdlStatement.AddColumn;
import dev.squall.planner.sql.DdlStatement.ColumnDefinition;
import dev.squall.planner.sql.DdlStatement.CreateSchema;
import dev.squall.planner.sql.DdlStatement.CreateTable;
import dev.squall.planner.sql.DdlStatement.DropColumn;
import dev.squall.planner.sql.DdlStatement.DropSchema;
import dev.squall.planner.sql.DdlStatement.DropTable;
import dev.squall.planner.sql.DdlStatement.ExecuteProcedure;
import dev.squall.planner.sql.DdlStatement.ProcedureArgument;
import dev.squall.planner.sql.DdlStatement.RenameColumn;
import dev.squall.planner.sql.DdlStatement.RenameTable;
import dev.squall.planner.sql.HeaderTokenizer.Kind;
import dev.squall.planner.sql.HeaderTokenizer.Token;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.types.Type;

/** The grammar of {@link DdlStatement}, over {@link TokenCursor}. */
final class DdlParser {
  private DdlParser() {}

  static Optional<DdlStatement> parse(String sql) {
    Token first = new HeaderTokenizer(sql).first();
    if (first == null || !(first.isKeyword("CREATE") || first.isKeyword("DROP") || first.isKeyword("ALTER"))) {
      return Optional.empty();
    }
    String verb = first.text().toUpperCase(Locale.ROOT);
    // A CREATE TABLE ... AS query is not tokenized past AS: the query is Calcite's to parse.
    TokenCursor c = new TokenCursor(sql, verb + " statement", verb.equals("CREATE") ? "AS" : null);
    c.next();
    Token object = c.peek();
    if (object == null) {
      throw c.syntax(null, "expected SCHEMA or TABLE after " + verb);
    }
    DdlStatement statement;
    if (verb.equals("CREATE")) {
      if (c.acceptKeyword("SCHEMA")) {
        boolean ifNotExists = c.acceptIfNotExists();
        NamePart name = c.namePart("a schema name");
        Token with = c.peek();
        if (with != null) {
          throw TokenCursor.unsupported(with, "CREATE SCHEMA takes no " + with.text() + " clause in Squall");
        }
        statement = new CreateSchema(name, ifNotExists);
      } else if (object.isKeyword("TABLE")) {
        int start = c.position();
        c.next();
        boolean ifNotExists = c.acceptIfNotExists();
        List<NamePart> name = c.qualifiedName("a table name");
        if (!c.acceptPunctuation('(')) {
          c.reset(start);
          return Optional.empty(); // CREATE TABLE ... AS query
        }
        statement = createTable(sql, c, name, ifNotExists);
      } else {
        throw TokenCursor.unsupported(object, "CREATE " + object.text().toUpperCase(Locale.ROOT)
            + " is not supported; Squall has CREATE SCHEMA, CREATE TABLE and CREATE TABLE AS");
      }
    } else if (verb.equals("DROP")) {
      if (c.acceptKeyword("SCHEMA")) {
        boolean ifExists = c.acceptIfExists();
        NamePart name = c.namePart("a schema name");
        Token mode = c.peek();
        if (mode != null && mode.isKeyword("CASCADE")) {
          throw TokenCursor.unsupported(mode, "DROP SCHEMA ... CASCADE is not supported; drop the tables first");
        }
        c.acceptKeyword("RESTRICT");
        statement = new DropSchema(name, ifExists);
      } else if (c.acceptKeyword("TABLE")) {
        boolean ifExists = c.acceptIfExists();
        statement = new DropTable(c.qualifiedName("a table name"), ifExists);
      } else {
        throw TokenCursor.unsupported(object, "DROP " + object.text().toUpperCase(Locale.ROOT)
            + " is not supported; Squall has DROP SCHEMA and DROP TABLE");
      }
    } else {
      if (!c.acceptKeyword("TABLE")) {
        throw TokenCursor.unsupported(object, "ALTER " + object.text().toUpperCase(Locale.ROOT)
            + " is not supported; Squall has ALTER TABLE");
      }
      Token ifExists = c.peek();
      if (ifExists != null && ifExists.isKeyword("IF")) {
        throw TokenCursor.unsupported(ifExists, "ALTER TABLE IF EXISTS is not supported");
      }
      statement = alterTable(c, c.qualifiedName("a table name"));
    }
    c.expectEnd();
    return Optional.of(statement);
  }

  private static DdlStatement alterTable(TokenCursor c, List<NamePart> table) {
    Token action = c.peek();
    if (c.acceptKeyword("ADD")) {
      c.expectKeyword("COLUMN");
      boolean ifNotExists = c.acceptIfNotExists();
      return new AddColumn(table, column(c), ifNotExists);
    }
    if (c.acceptKeyword("DROP")) {
      c.expectKeyword("COLUMN");
      Token ifExists = c.peek();
      if (ifExists != null && ifExists.isKeyword("IF")) {
        throw TokenCursor.unsupported(ifExists, "DROP COLUMN IF EXISTS is not supported");
      }
      return new DropColumn(table, c.namePart("a column name"));
    }
    if (c.acceptKeyword("RENAME")) {
      if (c.acceptKeyword("TO")) {
        return new RenameTable(table, c.qualifiedName("the new table name"));
      }
      c.expectKeyword("COLUMN");
      Token ifExists = c.peek();
      if (ifExists != null && ifExists.isKeyword("IF")) {
        throw TokenCursor.unsupported(ifExists, "RENAME COLUMN IF EXISTS is not supported");
      }
      NamePart from = c.namePart("a column name");
      c.expectKeyword("TO");
      return new RenameColumn(table, from, c.namePart("the new column name"));
    }
    if (c.acceptKeyword("EXECUTE")) {
      return execute(c, table);
    }
    if (action == null) {
      throw c.syntax(null, "expected ADD COLUMN, DROP COLUMN, RENAME COLUMN, RENAME TO or EXECUTE");
    }
    throw TokenCursor.unsupported(action, "ALTER TABLE ... " + action.text().toUpperCase(Locale.ROOT)
        + " is not supported; Squall has ADD COLUMN, DROP COLUMN, RENAME COLUMN, RENAME TO and EXECUTE");
  }

  /** {@code EXECUTE procedure [( [name =>] value, ... )]}; values are string or number literals. */
  private static ExecuteProcedure execute(TokenCursor c, List<NamePart> table) {
    NamePart procedure = c.namePart("a procedure name");
    List<ProcedureArgument> arguments = new ArrayList<>();
    if (c.acceptPunctuation('(') && !c.acceptPunctuation(')')) {
      do {
        Token at = c.peek();
        String name = null;
        Token arrow = c.peek(1);
        if (at != null && (at.kind() == Kind.IDENTIFIER || at.kind() == Kind.QUOTED_IDENTIFIER)
            && arrow != null && arrow.isPunctuation('=')) {
          name = c.namePart("an argument name").text();
          c.expectPunctuation('=');
          c.expectPunctuation('>');
        }
        Token value = c.next();
        if (value.kind() != Kind.STRING && value.kind() != Kind.NUMBER) {
          throw c.syntax(value, "expected a string or number as the value of "
              + (name == null ? "an argument" : "argument " + name));
        }
        arguments.add(new ProcedureArgument(name, value.text(), at.line(), at.column()));
      } while (c.acceptPunctuation(','));
      c.expectPunctuation(')');
    }
    return new ExecuteProcedure(table, procedure, List.copyOf(arguments));
  }

  private static CreateTable createTable(String sql, TokenCursor c, List<NamePart> name, boolean ifNotExists) {
    List<ColumnDefinition> columns = new ArrayList<>();
    do {
      Token t = c.peek();
      if (t != null && (t.isKeyword("LIKE") || t.isKeyword("PRIMARY") || t.isKeyword("CONSTRAINT"))) {
        throw TokenCursor.unsupported(t, t.text().toUpperCase(Locale.ROOT) + " in CREATE TABLE is not supported");
      }
      columns.add(column(c));
    } while (c.acceptPunctuation(','));
    c.expectPunctuation(')');
    Map<String, String> properties = new LinkedHashMap<>();
    if (c.acceptKeyword("COMMENT")) {
      properties.put("comment", c.string("the table comment"));
    }
    List<PartitionItem> partitionBy = List.of();
    Token partitioned = c.peek();
    if (c.acceptKeyword("PARTITIONED")) {
      c.expectKeyword("BY");
      partitionBy = CreateTableAsStatement.partitionItems(sql, c);
    }
    List<SortItem> sortedBy = List.of();
    if (c.peek() != null && c.peek().isKeyword("WITH")) {
      WithClause with = withClause(c, properties);
      partitionBy = with.partitioning(partitionBy, partitioned);
      sortedBy = with.sortedBy();
    }
    Token as = c.peek();
    if (as != null && as.isKeyword("AS")) {
      throw TokenCursor.unsupported(as, "CREATE TABLE with both column definitions and AS is not supported");
    }
    return new CreateTable(name, ifNotExists, List.copyOf(columns), partitionBy, properties, sortedBy);
  }

  private static ColumnDefinition column(TokenCursor c) {
    NamePart name = c.namePart("a column name");
    Type type = ColumnTypes.parse(c);
    boolean notNull = false;
    String comment = null;
    while (true) {
      Token t = c.peek();
      if (t != null && t.isKeyword("NOT")) {
        c.next();
        c.expectKeyword("NULL");
        notNull = true;
      } else if (t != null && t.isKeyword("COMMENT")) {
        c.next();
        comment = c.string("the column comment");
      } else if (t != null && (t.isKeyword("WITH") || t.isKeyword("DEFAULT"))) {
        throw TokenCursor.unsupported(t, "column " + t.text().toUpperCase(Locale.ROOT) + " is not supported");
      } else {
        return new ColumnDefinition(name, type, notNull, comment);
      }
    }
  }

  private static final Pattern TRANSFORM = Pattern.compile("\\s*(year|month|day|hour|bucket|truncate)\\s*\\(\\s*(\"?)([^\",()]+)\\2\\s*"
      + "(?:,\\s*(\\d+)\\s*)?\\)\\s*", Pattern.CASE_INSENSITIVE);
  private static final Pattern IDENTITY = Pattern.compile("\\s*(\"?)([^\",()]+)\\1\\s*");

  /**
   * What a {@code WITH (...)} clause of CREATE TABLE gives besides Iceberg properties.
   *
   * @param partitioning the {@code partitioning} items; null when the property is absent
   * @param sortedBy the {@code sorted_by} items; empty when absent
   */
  record WithClause(List<PartitionItem> partitioning, List<SortItem> sortedBy) {
    /**
     * The table's partition items: PARTITIONED BY's or the partitioning property's.
     *
     * @throws PlanningException VALIDATION_ERROR at {@code at} when both give them
     */
    List<PartitionItem> partitioning(List<PartitionItem> partitionBy, Token at) {
      if (partitioning == null) {
        return partitionBy;
      }
      if (!partitionBy.isEmpty()) {
        throw new PlanningException(Code.VALIDATION_ERROR, "partitioning is given twice: by PARTITIONED BY"
            + " and by the partitioning property", at.line(), at.column());
      }
      return partitioning;
    }
  }

  /**
   * {@code WITH (name = value, ...)} at the cursor, its Iceberg properties put into
   * {@code properties}; the cursor ends after its ')'.
   */
  static WithClause withClause(TokenCursor c, Map<String, String> properties) {
    c.expectKeyword("WITH");
    c.expectPunctuation('(');
    List<PartitionItem> partitioning = null;
    List<SortItem> sortedBy = List.of();
    Set<String> given = new HashSet<>();
    do {
      Token at = c.peek();
      NamePart key = c.namePart("a table property name");
      c.expectPunctuation('=');
      String name = key.text().toLowerCase(Locale.ROOT);
      // As Trino: a property given twice is an error, not "the last one wins".
      if (!given.add(key.quoted() && key.text().contains(".") ? key.text() : name)) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Duplicate property: " + key.text(), at.line(),
            at.column());
      }
      if (name.equals("partitioning")) {
        partitioning = stringArray(c).stream().map(DdlParser::partitionItem).toList();
      } else if (name.equals("sorted_by")) {
        sortedBy = stringArray(c).stream().map(DdlParser::sortItem).toList();
      } else {
        property(c, at, key, properties);
      }
    } while (c.acceptPunctuation(','));
    c.expectPunctuation(')');
    return new WithClause(partitioning, sortedBy);
  }

  /** {@code ARRAY['a', 'b', ...]} at the cursor: its strings' tokens. */
  private static List<Token> stringArray(TokenCursor c) {
    c.expectKeyword("ARRAY");
    c.expectPunctuation('[');
    List<Token> items = new ArrayList<>();
    if (!c.acceptPunctuation(']')) {
      do {
        Token at = c.peek();
        if (at == null || at.kind() != Kind.STRING) {
          throw c.syntax(at, "expected a quoted array item");
        }
        items.add(c.next());
      } while (c.acceptPunctuation(','));
      c.expectPunctuation(']');
    }
    return items;
  }

  private static final Pattern SORT_ITEM = Pattern.compile("\\s*(?:\"((?:[^\"]|\"\")+)\"|([^\\s\"(),]+))"
      + "(?:\\s+(ASC|DESC))?(?:\\s+NULLS\\s+(FIRST|LAST))?\\s*", Pattern.CASE_INSENSITIVE);

  /**
   * One item of Trino's {@code sorted_by} array: {@code 'col'}, {@code 'col DESC'},
   * {@code 'col ASC NULLS LAST'}, ... (NULLs come first ascending and last descending unless given).
   */
  private static SortItem sortItem(Token at) {
    String text = at.text();
    Matcher m = SORT_ITEM.matcher(text);
    if (!m.matches()) {
      throw new PlanningException(text.contains("(") ? Code.UNSUPPORTED : Code.VALIDATION_ERROR, "sorted_by item '"
          + text + "' is not a column with ASC or DESC and NULLS FIRST or LAST"
          + (text.contains("(") ? "; Squall sorts by columns, not by transforms of them" : ""), at.line(), at.column());
    }
    boolean quoted = m.group(1) != null;
    NamePart column = new NamePart(quoted ? m.group(1).replace("\"\"", "\"") : m.group(2), quoted, at.line(),
        at.column());
    boolean descending = "DESC".equalsIgnoreCase(m.group(3));
    boolean nullsFirst = m.group(4) == null ? !descending : m.group(4).equalsIgnoreCase("FIRST");
    return new SortItem(column, descending, nullsFirst, at.line(), at.column());
  }

  /** One Iceberg property (or Trino's format, format_version) into {@code properties}. */
  private static void property(TokenCursor c, Token at, NamePart key, Map<String, String> properties) {
    String name = key.text().toLowerCase(Locale.ROOT);
    if (key.quoted() && key.text().contains(".")) {
      Token value = c.next();
      if (value.kind() != Kind.STRING && value.kind() != Kind.NUMBER && value.kind() != Kind.IDENTIFIER) {
        throw c.syntax(value, "expected a property value");
      }
      properties.put(key.text(), value.text());
      return;
    }
    switch (name) {
      case "format" -> {
        Token value = c.peek();
        String format = c.string("a quoted file format");
        if (!format.equalsIgnoreCase("PARQUET")) {
          throw new PlanningException(Code.VALIDATION_ERROR, "Squall writes PARQUET data files only, not " + format,
              value.line(), value.column());
        }
        properties.put("write.format.default", "parquet");
      }
      case "format_version" -> {
        Token value = c.next();
        if (value.kind() != Kind.NUMBER || !List.of("1", "2", "3").contains(value.text())) {
          throw new PlanningException(Code.VALIDATION_ERROR, "format_version must be 1, 2 or 3, found "
              + value.text(), value.line(), value.column());
        }
        properties.put("format-version", value.text());
      }
      default -> throw new PlanningException(Code.VALIDATION_ERROR, "Unknown table property '" + key.text()
          + "'; Squall knows format, format_version, partitioning, sorted_by and quoted Iceberg property names such as"
          + " \"write.parquet.compression-codec\"", at.line(), at.column());
    }
  }

  /** One item of Trino's {@code partitioning} array: 'col', 'day(col)', 'bucket(col, n)', 'truncate(col, n)'. */
  private static PartitionItem partitionItem(Token at) {
    String text = at.text();
    Matcher m = TRANSFORM.matcher(text);
    if (m.matches()) {
      String transform = m.group(1).toLowerCase(Locale.ROOT);
      boolean takesArgument = transform.equals("bucket") || transform.equals("truncate");
      if (takesArgument != (m.group(4) != null)) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Partition item '" + text + "': " + transform
            + (takesArgument ? " needs a number: " + transform + "(col, n)" : " takes a column only"),
            at.line(), at.column());
      }
      NamePart column = new NamePart(m.group(3).trim(), !m.group(2).isEmpty(), at.line(), at.column());
      long argument = takesArgument ? Long.parseLong(m.group(4)) : 0;
      if (takesArgument && (argument <= 0 || argument > Integer.MAX_VALUE)) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Partition item '" + text + "': the number must be"
            + " between 1 and " + Integer.MAX_VALUE, at.line(), at.column());
      }
      return new PartitionItem(transform, column, argument, at.line(), at.column());
    }
    Matcher identity = IDENTITY.matcher(text);
    if (identity.matches()) {
      return new PartitionItem("identity", new NamePart(identity.group(2).trim(), !identity.group(1).isEmpty(),
          at.line(), at.column()), 0, at.line(), at.column());
    }
    throw new PlanningException(Code.VALIDATION_ERROR, "Partition item '" + text + "' is not a column,"
        + " year(col), month(col), day(col), hour(col), bucket(col, n) or truncate(col, n)", at.line(), at.column());
  }
}
