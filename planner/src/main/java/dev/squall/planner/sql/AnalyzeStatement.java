package dev.squall.planner.sql;

import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.HeaderTokenizer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code ANALYZE table [WITH (columns = ARRAY['a', 'b'])]}, in Trino's syntax, parsed by Squall
 * (Calcite's grammar has no ANALYZE). {@code columns} is the only property; each column is a
 * string literal, kept with its position for the planner's refusals.
 *
 * @param table the table's (possibly schema-qualified) name
 * @param columns the listed columns, empty for every column
 */
public record AnalyzeStatement(List<NamePart> table, Optional<List<NamePart>> columns) {
  /**
   * Parses {@code sql} when it starts with ANALYZE.
   *
   * @return empty for any other statement
   * @throws dev.squall.planner.PlanningException SYNTAX_ERROR or UNSUPPORTED at the offending token
   */
  public static Optional<AnalyzeStatement> parse(String sql) {
    Token first = new HeaderTokenizer(sql).first();
    if (first == null || !first.isKeyword("ANALYZE")) {
      return Optional.empty();
    }
    TokenCursor c = new TokenCursor(sql, "ANALYZE");
    c.next();
    List<NamePart> table = c.qualifiedName("a table name");
    Optional<List<NamePart>> columns = Optional.empty();
    if (c.acceptKeyword("WITH")) {
      c.expectPunctuation('(');
      Token property = c.peek();
      NamePart name = c.namePart("a property name");
      if (!name.text().equalsIgnoreCase("columns")) {
        throw TokenCursor.unsupported(property, "ANALYZE property '" + name.text() + "' is not supported; the one"
            + " property is columns");
      }
      c.expectPunctuation('=');
      c.expectKeyword("ARRAY");
      c.expectPunctuation('[');
      List<NamePart> listed = new ArrayList<>();
      if (!c.acceptPunctuation(']')) {
        do {
          Token t = c.peek();
          String text = c.string("a quoted column name");
          listed.add(new NamePart(text, true, t.line(), t.column()));
        } while (c.acceptPunctuation(','));
        c.expectPunctuation(']');
      }
      Token close = c.peek();
      if (close != null && close.isPunctuation(',')) {
        throw TokenCursor.unsupported(close, "ANALYZE takes one property, columns");
      }
      c.expectPunctuation(')');
      columns = Optional.of(List.copyOf(listed));
    }
    c.expectEnd();
    return Optional.of(new AnalyzeStatement(table, columns));
  }

  /** The statement as answers name it, e.g. {@code ANALYZE tpch.orders (o_custkey, o_orderdate)}. */
  public String describe(String table, List<String> analyzedColumns) {
    return "ANALYZE " + table + (columns.isEmpty() ? "" : " (" + String.join(", ", analyzedColumns) + ")");
  }
}
