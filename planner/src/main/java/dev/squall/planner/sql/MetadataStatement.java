package dev.squall.planner.sql;

import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.HeaderTokenizer.Token;
import java.util.List;
import java.util.Optional;

/**
 * The metadata statements, in Trino's syntax, parsed by Squall (Calcite's core grammar has none of
 * them):
 *
 * <pre>
 * SHOW SCHEMAS [LIKE 'pattern']
 * SHOW TABLES [FROM | IN schema] [LIKE 'pattern']
 * DESCRIBE table | SHOW COLUMNS FROM | IN table [LIKE 'pattern']
 * SHOW CREATE TABLE table
 * SHOW STATS FOR table
 * </pre>
 *
 * Patterns are SQL LIKE patterns ({@code %} any run, {@code _} one character), matched with case.
 * Anything else after SHOW or DESCRIBE is refused as unsupported at its position.
 */
public sealed interface MetadataStatement {
  /** SHOW SCHEMAS. */
  record ShowSchemas(Optional<String> like) implements MetadataStatement {}

  /** SHOW TABLES; {@code schema} empty means the default schema. */
  record ShowTables(Optional<NamePart> schema, Optional<String> like) implements MetadataStatement {}

  /** DESCRIBE and SHOW COLUMNS. */
  record ShowColumns(List<NamePart> table, Optional<String> like) implements MetadataStatement {}

  /** SHOW CREATE TABLE. */
  record ShowCreateTable(List<NamePart> table) implements MetadataStatement {}

  /** SHOW STATS FOR. */
  record ShowStats(List<NamePart> table) implements MetadataStatement {}

  /**
   * Parses {@code sql} when it starts with SHOW, DESCRIBE or DESC.
   *
   * @return empty for any other statement
   * @throws dev.squall.planner.PlanningException SYNTAX_ERROR or UNSUPPORTED at the offending token
   */
  static Optional<MetadataStatement> parse(String sql) {
    Token first = new HeaderTokenizer(sql).first();
    if (first == null || !(first.isKeyword("SHOW") || first.isKeyword("DESCRIBE") || first.isKeyword("DESC"))) {
      return Optional.empty();
    }
    // Any character is a token here, so that SHOW STATS FOR (SELECT * ...) is refused as the
    // statement it is rather than as a character the statements' own grammar never uses.
    TokenCursor c = new TokenCursor(sql, first.text().toUpperCase(java.util.Locale.ROOT),
        new HeaderTokenizer(sql, true).tokenizeAll());
    c.next();
    MetadataStatement statement;
    if (!first.isKeyword("SHOW")) {
      Token t = c.peek();
      if (t != null && (t.isKeyword("INPUT") || t.isKeyword("OUTPUT"))) {
        throw TokenCursor.unsupported(t, "DESCRIBE " + t.text().toUpperCase(java.util.Locale.ROOT)
            + " is not supported (Squall has no prepared statements)");
      }
      statement = new ShowColumns(c.qualifiedName("a table name"), Optional.empty());
    } else {
      Token what = c.peek();
      if (what == null) {
        throw c.syntax(null, "expected SCHEMAS, TABLES, COLUMNS, CREATE TABLE or STATS after SHOW");
      }
      if (c.acceptKeyword("SCHEMAS")) {
        Token from = c.peek();
        if (from != null && (from.isKeyword("FROM") || from.isKeyword("IN"))) {
          throw TokenCursor.unsupported(from, "SHOW SCHEMAS FROM a catalog is not supported (Squall has one catalog)");
        }
        statement = new ShowSchemas(like(c));
      } else if (c.acceptKeyword("TABLES")) {
        Optional<NamePart> schema = Optional.empty();
        if (c.acceptKeyword("FROM") || c.acceptKeyword("IN")) {
          schema = Optional.of(c.namePart("a schema name"));
        }
        statement = new ShowTables(schema, like(c));
      } else if (c.acceptKeyword("COLUMNS")) {
        if (!c.acceptKeyword("FROM") && !c.acceptKeyword("IN")) {
          throw c.syntax(c.peek(), "expected FROM or IN after SHOW COLUMNS");
        }
        List<NamePart> table = c.qualifiedName("a table name");
        statement = new ShowColumns(table, like(c));
      } else if (c.acceptKeyword("CREATE")) {
        Token kind = c.peek();
        if (kind != null && !kind.isKeyword("TABLE") && kind.kind() == HeaderTokenizer.Kind.IDENTIFIER) {
          throw TokenCursor.unsupported(kind, "SHOW CREATE " + kind.text().toUpperCase(java.util.Locale.ROOT)
              + " is not supported; SHOW CREATE TABLE is");
        }
        c.expectKeyword("TABLE");
        statement = new ShowCreateTable(c.qualifiedName("a table name"));
      } else if (c.acceptKeyword("STATS")) {
        c.expectKeyword("FOR");
        Token t = c.peek();
        if (t != null && t.isPunctuation('(')) {
          throw TokenCursor.unsupported(t, "SHOW STATS FOR a query is not supported; name a table");
        }
        statement = new ShowStats(c.qualifiedName("a table name"));
      } else {
        throw TokenCursor.unsupported(what, "SHOW " + what.text() + " is not supported; Squall has SHOW SCHEMAS,"
            + " SHOW TABLES, SHOW COLUMNS, SHOW CREATE TABLE and SHOW STATS");
      }
    }
    c.expectEnd();
    return Optional.of(statement);
  }

  private static Optional<String> like(TokenCursor c) {
    if (!c.acceptKeyword("LIKE")) {
      return Optional.empty();
    }
    String pattern = c.string("a quoted LIKE pattern");
    Token escape = c.peek();
    if (escape != null && escape.isKeyword("ESCAPE")) {
      throw TokenCursor.unsupported(escape, "LIKE ... ESCAPE in SHOW statements is not supported");
    }
    return Optional.of(pattern);
  }
}
