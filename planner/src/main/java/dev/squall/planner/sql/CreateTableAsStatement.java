package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.sql.HeaderTokenizer.Kind;
import dev.squall.planner.sql.HeaderTokenizer.Token;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code CREATE TABLE name [PARTITIONED BY (item, ...)] [WITH (property = value, ...)] AS query}, parsed by Squall because
 * Calcite's core grammar has no CREATE TABLE. Only the header is parsed here; the query keeps its
 * place in the text: {@link #query()} is the statement with the header blanked out (line breaks
 * kept), so that Calcite's line and column numbers for errors inside the query are those of the
 * text the user sent.
 *
 * <p>A partition item is a column ({@code identity}), {@code year(col)}, {@code month(col)},
 * {@code day(col)}, {@code hour(col)}, {@code bucket(N, col)} or {@code truncate(N, col)} (Iceberg's
 * partition transforms). WITH takes CREATE TABLE's properties ({@link DdlStatement}: format,
 * format_version, partitioning, sorted_by, quoted Iceberg properties). {@code IF NOT EXISTS} and
 * column lists are refused.
 *
 * @param name the table name as written: one or more parts, the last being the table
 * @param partitionBy the PARTITIONED BY items (or the partitioning property's) in order (empty when absent)
 * @param query the statement text with everything up to and including {@code AS} blanked
 * @param properties the Iceberg table properties of WITH
 * @param sortedBy the sorted_by items in order: the table's sort order (empty: unsorted)
 */
public record CreateTableAsStatement(List<NamePart> name, List<PartitionItem> partitionBy, String query,
    Map<String, String> properties, List<SortItem> sortedBy) {
  /** Transforms accepted in PARTITIONED BY, by lower-case name; identity is a bare column. */
  public static final Set<String> TRANSFORMS = Set.of("year", "month", "day", "hour", "bucket", "truncate");

  /** One part of a dotted name, with where it stands. */
  public record NamePart(String text, boolean quoted, int line, int column) {}

  /**
   * One PARTITIONED BY item.
   *
   * @param transform "identity", "year", "month", "day", "hour", "bucket" or "truncate"
   * @param column the source column as written
   * @param argument N of bucket(N, col) / truncate(N, col); 0 for the other transforms
   * @param line line of the item's first token
   * @param column1 column of the item's first token
   */
  public record PartitionItem(String transform, NamePart column, long argument, int line, int column1) {}

  /**
   * One {@code sorted_by} item: a field of the table's sort order.
   *
   * @param column the column as written
   * @param descending DESC
   * @param nullsFirst whether NULLs sort first (as given, else first ascending and last descending)
   * @param line line of the item
   * @param column1 column of the item
   */
  public record SortItem(NamePart column, boolean descending, boolean nullsFirst, int line, int column1) {}

  /**
   * Parses {@code sql} when it is a CREATE statement.
   *
   * @return empty when the first token of {@code sql} is not {@code CREATE}
   * @throws PlanningException SYNTAX_ERROR or UNSUPPORTED, with the position of the offending token
   */
  public static Optional<CreateTableAsStatement> parse(String sql) {
    Token first = new HeaderTokenizer(sql).first();
    if (first == null || !first.isKeyword("CREATE")) {
      return Optional.empty();
    }
    List<Token> tokens = new HeaderTokenizer(sql).tokenizeUntil("AS");
    Parser p = new Parser(sql, tokens);
    return Optional.of(p.statement());
  }

  /**
   * Parses a parenthesised PARTITIONED BY item list at the cursor (for CREATE TABLE with column
   * definitions), leaving the cursor after its ')'.
   */
  static List<PartitionItem> partitionItems(String sql, TokenCursor cursor) {
    Parser p = new Parser(sql, cursor.tokens());
    p.i = cursor.position();
    List<PartitionItem> items = p.partitionItems();
    cursor.reset(p.i);
    return items;
  }

  private static final class Parser {
    private final String sql;
    private final List<Token> tokens;
    private int i;

    Parser(String sql, List<Token> tokens) {
      this.sql = sql;
      this.tokens = tokens;
    }

    CreateTableAsStatement statement() {
      expectKeyword("CREATE");
      Token table = peek();
      if (table == null || !table.isKeyword("TABLE")) {
        throw unsupported(table == null ? tokens.get(0) : table,
            "only CREATE TABLE ... AS SELECT is supported");
      }
      i++;
      Token next = peek();
      if (next != null && next.isKeyword("IF")) {
        throw unsupported(next, "CREATE TABLE IF NOT EXISTS is not supported");
      }
      List<NamePart> name = new ArrayList<>();
      name.add(namePart("a table name"));
      while (peek() != null && peek().isPunctuation('.')) {
        i++;
        name.add(namePart("a name part after '.'"));
      }
      List<PartitionItem> partitionBy = List.of();
      Token t = peek();
      if (t != null && t.isPunctuation('(')) {
        throw unsupported(t, "column definitions in CREATE TABLE are not supported; use CREATE TABLE ... AS SELECT");
      }
      if (t != null && t.isKeyword("PARTITIONED")) {
        i++;
        expectKeyword("BY");
        partitionBy = partitionItems();
        t = peek();
      }
      Map<String, String> properties = new LinkedHashMap<>();
      List<SortItem> sortedBy = List.of();
      if (t != null && t.isKeyword("WITH")) {
        TokenCursor cursor = new TokenCursor(sql, "CREATE TABLE statement", tokens);
        cursor.reset(i);
        DdlParser.WithClause with = DdlParser.withClause(cursor, properties);
        i = cursor.position();
        partitionBy = with.partitioning(partitionBy, t);
        sortedBy = with.sortedBy();
        t = peek();
      }
      if (t == null || !t.isKeyword("AS")) {
        throw syntax(t, "expected AS after the table name"
            + (partitionBy.isEmpty() ? ", PARTITIONED BY or WITH" : ", PARTITIONED BY and WITH"));
      }
      i++;
      int queryStart = t.offset() + t.text().length();
      if (sql.substring(queryStart).isBlank()) {
        throw syntax(t, "expected a query after AS");
      }
      return new CreateTableAsStatement(List.copyOf(name), partitionBy, blank(sql, queryStart), Map.copyOf(properties),
          sortedBy);
    }

    private List<PartitionItem> partitionItems() {
      expectPunctuation('(');
      List<PartitionItem> items = new ArrayList<>();
      while (true) {
        items.add(partitionItem());
        Token t = peek();
        if (t != null && t.isPunctuation(',')) {
          i++;
        } else if (t != null && t.isPunctuation(')')) {
          i++;
          return List.copyOf(items);
        } else {
          throw syntax(t, "expected ',' or ')' in PARTITIONED BY");
        }
      }
    }

    private PartitionItem partitionItem() {
      Token start = peek();
      NamePart first = namePart("a column or partition transform");
      Token open = peek();
      if (open == null || !open.isPunctuation('(')) {
        return new PartitionItem("identity", first, 0, start.line(), start.column());
      }
      String transform = first.text().toLowerCase(Locale.ROOT);
      if (first.quoted() || !TRANSFORMS.contains(transform)) {
        throw new PlanningException(Code.VALIDATION_ERROR,
            "Unknown partition transform '" + first.text() + "'; expected a column, year(col), month(col),"
                + " day(col), hour(col), bucket(N, col) or truncate(N, col)",
            start.line(), start.column());
      }
      i++;
      long argument = 0;
      if (transform.equals("bucket") || transform.equals("truncate")) {
        Token number = peek();
        boolean negative = number != null && number.isPunctuation('-');
        if (negative) {
          i++;
          number = peek();
        }
        if (number == null || number.kind() != Kind.NUMBER) {
          throw syntax(number, "expected the " + (transform.equals("bucket") ? "bucket count" : "width")
              + " of " + transform + "(N, col)");
        }
        i++;
        try {
          argument = Long.parseLong(number.text());
        } catch (NumberFormatException e) {
          argument = Long.MAX_VALUE;
        }
        if (negative) {
          argument = -argument;
        }
        if (argument <= 0 || argument > Integer.MAX_VALUE) {
          throw new PlanningException(Code.VALIDATION_ERROR,
              (transform.equals("bucket") ? "Bucket count" : "Truncate width") + " must be between 1 and "
                  + Integer.MAX_VALUE + ", got " + (negative ? "-" : "") + number.text(),
              start.line(), start.column());
        }
        expectPunctuation(',');
      }
      NamePart column = namePart("a column name");
      expectPunctuation(')');
      return new PartitionItem(transform, column, argument, start.line(), start.column());
    }

    private NamePart namePart(String expected) {
      Token t = peek();
      if (t == null || (t.kind() != Kind.IDENTIFIER && t.kind() != Kind.QUOTED_IDENTIFIER)) {
        throw syntax(t, "expected " + expected);
      }
      i++;
      return new NamePart(t.text(), t.kind() == Kind.QUOTED_IDENTIFIER, t.line(), t.column());
    }

    private void expectKeyword(String keyword) {
      Token t = peek();
      if (t == null || !t.isKeyword(keyword)) {
        throw syntax(t, "expected " + keyword);
      }
      i++;
    }

    private void expectPunctuation(char c) {
      Token t = peek();
      if (t == null || !t.isPunctuation(c)) {
        throw syntax(t, "expected '" + c + "'");
      }
      i++;
    }

    private Token peek() {
      return i < tokens.size() ? tokens.get(i) : null;
    }

    private PlanningException syntax(Token at, String message) {
      if (at == null) {
        int[] end = endPosition(sql);
        return new PlanningException(Code.SYNTAX_ERROR,
            "Syntax error in CREATE TABLE: " + message + " but the statement ended", end[0], end[1]);
      }
      return new PlanningException(Code.SYNTAX_ERROR,
          "Syntax error in CREATE TABLE: " + message + ", found '" + at.text() + "'", at.line(), at.column());
    }

    private static PlanningException unsupported(Token at, String message) {
      return new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: " + message, at.line(), at.column());
    }
  }

  /** Line and column just after the last character of {@code sql}. */
  private static int[] endPosition(String sql) {
    int line = 1;
    int column = 1;
    for (int k = 0; k < sql.length(); k++) {
      if (sql.charAt(k) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new int[] {line, column};
  }

  /** {@code sql} with characters before {@code end} replaced by blanks, line breaks kept. */
  static String blank(String sql, int end) {
    StringBuilder blanked = new StringBuilder(sql);
    for (int k = 0; k < end; k++) {
      char c = blanked.charAt(k);
      if (c != '\n' && c != '\r') {
        blanked.setCharAt(k, ' ');
      }
    }
    return blanked.toString();
  }
}
