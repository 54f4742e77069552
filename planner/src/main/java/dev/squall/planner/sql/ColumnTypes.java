package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.sql.HeaderTokenizer.Kind;
import dev.squall.planner.sql.HeaderTokenizer.Token;
import java.util.Locale;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Column types of CREATE TABLE and ADD COLUMN, named as in Trino, to the Iceberg types Squall
 * writes and reads: bigint → long; integer, int, smallint, tinyint → int (Iceberg has no narrower
 * integer); real → float; double [precision] → double; decimal(p[, s]) / numeric → decimal (no
 * arguments: decimal(38, 0)); varchar → string; boolean; date; timestamp and timestamp(6) →
 * timestamp without zone; varbinary → binary. Refused with their position, as in Trino's Iceberg
 * connector: varchar(n) and char(n) (Iceberg strings have no length), other timestamp
 * precisions; and types Squall cannot query: timestamp with time zone, time, uuid, row, array, map.
 */
final class ColumnTypes {
  private ColumnTypes() {}

  /** Parses one type at the cursor. */
  static Type parse(TokenCursor c) {
    Token at = c.peek();
    if (at == null || at.kind() != Kind.IDENTIFIER) {
      throw c.syntax(at, "expected a column type");
    }
    c.next();
    String name = at.text().toLowerCase(Locale.ROOT);
    switch (name) {
      case "bigint":
        return Types.LongType.get();
      case "integer", "int", "smallint", "tinyint":
        return Types.IntegerType.get();
      case "real":
        return Types.FloatType.get();
      case "double":
        c.acceptKeyword("PRECISION");
        return Types.DoubleType.get();
      case "boolean":
        return Types.BooleanType.get();
      case "date":
        return Types.DateType.get();
      case "varbinary":
        return Types.BinaryType.get();
      case "decimal", "numeric": {
        if (!c.acceptPunctuation('(')) {
          return Types.DecimalType.of(38, 0);
        }
        int precision = number(c, "the precision");
        int scale = c.acceptPunctuation(',') ? number(c, "the scale") : 0;
        c.expectPunctuation(')');
        if (precision < 1 || precision > 38 || scale > precision) {
          throw new PlanningException(Code.VALIDATION_ERROR, "decimal(" + precision + ", " + scale
              + ") is out of range: precision 1 to 38, scale 0 to the precision", at.line(), at.column());
        }
        return Types.DecimalType.of(precision, scale);
      }
      case "varchar": {
        Token open = c.peek();
        if (open != null && open.isPunctuation('(')) {
          throw unsupported(open, "varchar(n) is not supported (Iceberg strings have no length); use varchar");
        }
        return Types.StringType.get();
      }
      case "timestamp": {
        if (c.acceptPunctuation('(')) {
          Token digits = c.peek();
          int precision = number(c, "the timestamp precision");
          c.expectPunctuation(')');
          if (precision != 6) {
            throw unsupported(digits, "timestamp(" + precision + ") is not supported; Iceberg timestamps are"
                + " timestamp(6)");
          }
        }
        Token with = c.peek();
        if (with != null && with.isKeyword("WITH")) {
          throw unsupported(with, "timestamp with time zone columns are not supported by Squall yet");
        }
        if (c.acceptKeyword("WITHOUT")) {
          c.expectKeyword("TIME");
          c.expectKeyword("ZONE");
        }
        return Types.TimestampType.withoutZone();
      }
      case "char", "character":
        throw unsupported(at, name + " is not supported (Iceberg strings are not padded); use varchar");
      default:
        throw unsupported(at, "column type " + at.text() + " is not supported; Squall has bigint, integer,"
            + " smallint, tinyint, real, double, decimal(p, s), varchar, boolean, date, timestamp(6) and varbinary");
    }
  }

  private static int number(TokenCursor c, String what) {
    Token t = c.peek();
    if (t == null || t.kind() != Kind.NUMBER) {
      throw c.syntax(t, "expected " + what);
    }
    c.next();
    try {
      return Integer.parseInt(t.text());
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE;
    }
  }

  private static PlanningException unsupported(Token at, String message) {
    return TokenCursor.unsupported(at, message);
  }
}
