package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Trino's string functions beyond the SQL standard ones: REPLACE, STRPOS, REVERSE, LPAD, RPAD,
 * SPLIT_PART, STARTS_WITH, CHR, CODEPOINT and the REGEXP_ family. Positions and lengths count code points.
 * Regular expressions are Java's ({@link Pattern}); a pattern that is the same for the whole batch
 * (a literal) is compiled once.
 */
final class TextFunctions {
  private TextFunctions() {}

  /** One of the functions above, applied row by row inside one batch loop; NULL in any argument gives NULL. */
  static final class TextCall implements Evaluator {
    private final Function op;
    private final SqlType type;
    private final List<Evaluator> args;
    private String cachedRegex;
    private Pattern cachedPattern;

    TextCall(Function op, SqlType type, List<Evaluator> args) {
      this.op = op;
      this.type = type;
      this.args = args;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      Column[] in = new Column[args.size()];
      boolean[] nulls = null;
      for (int a = 0; a < in.length; a++) {
        in[a] = args.get(a).evaluate(batch);
        nulls = Coercions.orNulls(nulls, in[a].nullMask(), n);
      }
      switch (op) {
        case STRPOS: {
          long[] out = new long[n];
          for (int i = 0; i < n; i++) {
            if (nulls == null || !nulls[i]) {
              out[i] = strpos(str(in[0], i), str(in[1], i));
            }
          }
          return new LongColumn(type, out, nulls, n);
        }
        case CODEPOINT: {
          long[] out = new long[n];
          for (int i = 0; i < n; i++) {
            if (nulls == null || !nulls[i]) {
              out[i] = codepoint(str(in[0], i));
            }
          }
          return new LongColumn(type, out, nulls, n);
        }
        case CHR: {
          BytesColumn out = BytesColumn.withCapacity(type, n, n * 2);
          for (int i = 0; i < n; i++) {
            if (nulls != null && nulls[i]) {
              out.appendNull();
            } else {
              out.append(chr(((LongColumn) in[0]).value(i)).getBytes(StandardCharsets.UTF_8));
            }
          }
          return out;
        }
        case STARTS_WITH, REGEXP_LIKE: {
          boolean[] out = new boolean[n];
          BytesColumn v = (BytesColumn) in[0];
          BytesColumn p = (BytesColumn) in[1];
          for (int i = 0; i < n; i++) {
            if (nulls != null && nulls[i]) {
              continue;
            }
            out[i] = op == Function.STARTS_WITH
                ? startsWith(v, p, i) : pattern(p.string(i)).matcher(v.string(i)).find();
          }
          return new BoolColumn(out, nulls, n);
        }
        default:
          break;
      }
      BytesColumn out = BytesColumn.withCapacity(type, n, n * 16);
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          out.appendNull();
          continue;
        }
        String s = str(in[0], i);
        String r = switch (op) {
          case REPLACE -> s.replace(str(in[1], i), str(in[2], i));
          case REVERSE -> new StringBuilder(s).reverse().toString();
          case LPAD, RPAD -> pad(s, ((LongColumn) in[1]).value(i), str(in[2], i), op == Function.LPAD);
          case SPLIT_PART -> splitPart(s, str(in[1], i), ((LongColumn) in[2]).value(i));
          case REGEXP_EXTRACT -> extract(pattern(str(in[1], i)), s, in.length > 2 ? ((LongColumn) in[2]).value(i) : 0);
          case REGEXP_REPLACE -> replace(pattern(str(in[1], i)), s, str(in[2], i));
          default -> throw EngineException.badPlan("not a text function: " + op);
        };
        if (r == null) {
          out.appendNull();
        } else {
          out.append(r.getBytes(StandardCharsets.UTF_8));
        }
      }
      return out;
    }

    private Pattern pattern(String regex) {
      if (!regex.equals(cachedRegex)) {
        try {
          cachedPattern = Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
          throw EngineException.user("invalid regular expression '" + regex + "': " + e.getDescription());
        }
        cachedRegex = regex;
      }
      return cachedPattern;
    }
  }

  private static String str(Column c, int i) {
    return ((BytesColumn) c).string(i);
  }

  private static boolean startsWith(BytesColumn v, BytesColumn p, int i) {
    int len = p.length(i);
    return v.length(i) >= len
        && java.util.Arrays.equals(v.data(), v.offset(i), v.offset(i) + len, p.data(), p.offset(i), p.offset(i) + len);
  }

  /** The string of one code point, as Trino's chr; a value outside Unicode's range is a USER_ERROR. */
  static String chr(long codePoint) {
    if (codePoint < 0 || codePoint > Character.MAX_CODE_POINT
        || (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE)) {
      throw EngineException.user("Not a valid Unicode code point: " + codePoint);
    }
    return Character.toString((int) codePoint);
  }

  /** The code point of a one-character string, as Trino's codepoint; another length is a USER_ERROR. */
  static long codepoint(String s) {
    if (s.isEmpty() || s.codePointCount(0, s.length()) != 1) {
      throw EngineException.user("codepoint needs a string of exactly one character, not " + s.codePointCount(0, s.length()));
    }
    return s.codePointAt(0);
  }

  /** 1-based code point position of the first {@code sub} in {@code s}; 0 when absent, 1 for ''. */
  static long strpos(String s, String sub) {
    int at = s.indexOf(sub);
    return at < 0 ? 0 : s.codePointCount(0, at) + 1;
  }

  /** Trino's LPAD/RPAD: padded with repetitions of {@code padding} to {@code size} characters, or cut to it. */
  static String pad(String s, long size, String padding, boolean left) {
    if (size < 0 || size > Integer.MAX_VALUE) {
      throw EngineException.user("pad size must be in the range [0.." + Integer.MAX_VALUE + "], got " + size);
    }
    int length = s.codePointCount(0, s.length());
    if (length >= size) {
      return s.substring(0, s.offsetByCodePoints(0, (int) size));
    }
    if (padding.isEmpty()) {
      throw EngineException.user("padding string must not be empty");
    }
    int[] pad = padding.codePoints().toArray();
    StringBuilder fill = new StringBuilder();
    for (int k = 0; k < size - length; k++) {
      fill.appendCodePoint(pad[k % pad.length]);
    }
    return left ? fill + s : s + fill;
  }

  /** Trino's SPLIT_PART: field {@code index} (1-based) of {@code s} split at {@code delimiter}; NULL past the last. */
  static String splitPart(String s, String delimiter, long index) {
    if (index <= 0) {
      throw EngineException.user("SPLIT_PART index must be greater than zero, got " + index);
    }
    if (delimiter.isEmpty()) {
      // Every character is a field.
      int count = s.codePointCount(0, s.length());
      if (index > count) {
        return null;
      }
      int from = s.offsetByCodePoints(0, (int) index - 1);
      return s.substring(from, s.offsetByCodePoints(from, 1));
    }
    int from = 0;
    for (long field = 1; field < index; field++) {
      int at = s.indexOf(delimiter, from);
      if (at < 0) {
        return null;
      }
      from = at + delimiter.length();
    }
    int end = s.indexOf(delimiter, from);
    return s.substring(from, end < 0 ? s.length() : end);
  }

  /** The first match of {@code p} in {@code s} (its group {@code group}), or NULL when none. */
  static String extract(Pattern p, String s, long group) {
    Matcher m = p.matcher(s);
    if (group < 0 || group > m.groupCount()) {
      throw EngineException.user("pattern '" + p.pattern() + "' has " + m.groupCount() + " groups; cannot access group " + group);
    }
    return m.find() ? m.group((int) group) : null;
  }

  /** Every match of {@code p} replaced ({@code $n} in the replacement names group n, {@code \} escapes). */
  static String replace(Pattern p, String s, String replacement) {
    try {
      return p.matcher(s).replaceAll(replacement);
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw EngineException.user("invalid regular expression replacement '" + replacement + "': " + e.getMessage());
    }
  }
}
