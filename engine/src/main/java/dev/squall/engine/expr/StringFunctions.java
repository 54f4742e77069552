package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BoolColumn;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Function;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/** VARCHAR functions: LIKE, SUBSTRING, UPPER, LOWER, TRIM, CHAR_LENGTH and ||. Lengths count code points. */
final class StringFunctions {
  private StringFunctions() {}

  static byte[] truncateChars(byte[] utf8, int maxChars) {
    String s = new String(utf8, StandardCharsets.UTF_8);
    if (s.codePointCount(0, s.length()) <= maxChars) {
      return utf8;
    }
    return s.substring(0, s.offsetByCodePoints(0, maxChars)).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * value LIKE pattern [ESCAPE e]: '%' any sequence, '_' one character, the escape character makes
   * the next one literal. Patterns that are the same for the whole batch are compiled once; plain
   * prefix, suffix and infix patterns are matched on the UTF-8 bytes without a regex.
   */
  static final class Like implements Evaluator {
    private final Evaluator value;
    private final Evaluator pattern;
    private final Evaluator escape;
    private String cachedPattern;
    private String cachedEscape;
    private Matcher cachedMatcher;

    Like(Evaluator value, Evaluator pattern, Evaluator escape) {
      this.value = value;
      this.pattern = pattern;
      this.escape = escape;
    }

    @Override
    public SqlType type() {
      return SqlType.BOOLEAN;
    }

    @Override
    public Column evaluate(Batch batch) {
      int n = batch.rows();
      BytesColumn v = (BytesColumn) value.evaluate(batch);
      BytesColumn p = (BytesColumn) pattern.evaluate(batch);
      BytesColumn e = escape == null ? null : (BytesColumn) escape.evaluate(batch);
      boolean[] out = new boolean[n];
      boolean[] nulls = Coercions.orNulls(v.nullMask(), p.nullMask(), n);
      if (e != null) {
        nulls = Coercions.orNulls(nulls, e.nullMask(), n);
      }
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        out[i] = matcher(p.string(i), e == null ? null : e.string(i)).matches(v.value(i));
      }
      return new BoolColumn(out, nulls, n);
    }

    private Matcher matcher(String pat, String esc) {
      if (pat.equals(cachedPattern) && java.util.Objects.equals(esc, cachedEscape)) {
        return cachedMatcher;
      }
      cachedPattern = pat;
      cachedEscape = esc;
      cachedMatcher = compile(pat, esc);
      return cachedMatcher;
    }
  }

  interface Matcher {
    boolean matches(byte[] utf8);
  }

  static Matcher compile(String pattern, String escape) {
    Integer esc = null;
    if (escape != null) {
      if (escape.codePointCount(0, escape.length()) != 1) {
        throw EngineException.user("LIKE escape must be one character, got '" + escape + "'");
      }
      esc = escape.codePointAt(0);
    }
    if (esc == null && pattern.indexOf('_') < 0) {
      // Fast paths: 'abc', 'abc%', '%abc', '%abc%'.
      String inner = pattern;
      boolean lead = inner.startsWith("%");
      if (lead) {
        inner = inner.substring(1);
      }
      boolean trail = inner.endsWith("%");
      if (trail) {
        inner = inner.substring(0, inner.length() - 1);
      }
      if (inner.indexOf('%') < 0) {
        byte[] lit = inner.getBytes(StandardCharsets.UTF_8);
        if (lead && trail) {
          return s -> indexOf(s, lit) >= 0;
        } else if (lead) {
          return s -> s.length >= lit.length && Arrays.equals(s, s.length - lit.length, s.length, lit, 0, lit.length);
        } else if (trail) {
          return s -> s.length >= lit.length && Arrays.equals(s, 0, lit.length, lit, 0, lit.length);
        }
        return s -> Arrays.equals(s, lit);
      }
    }
    StringBuilder regex = new StringBuilder();
    // By code point: a character outside the BMP (an emoji) is one character, not two UTF-16 halves.
    for (int i = 0; i < pattern.length(); ) {
      int c = pattern.codePointAt(i);
      i += Character.charCount(c);
      if (esc != null && c == esc) {
        if (i >= pattern.length()) {
          throw EngineException.user("LIKE pattern '" + pattern + "' ends with the escape character");
        }
        int next = pattern.codePointAt(i);
        i += Character.charCount(next);
        if (next != '%' && next != '_' && next != esc) {
          throw EngineException.user("LIKE pattern '" + pattern + "' escapes '" + Character.toString(next) + "', which is not %, _ or the escape");
        }
        regex.append(Pattern.quote(Character.toString(next)));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(Character.toString(c)));
      }
    }
    Pattern compiled = Pattern.compile(regex.toString(), Pattern.DOTALL);
    return s -> compiled.matcher(new String(s, StandardCharsets.UTF_8)).matches();
  }

  /**
   * UPPER/LOWER one character at a time (Unicode simple case mapping, as DuckDB and Trino do):
   * 'ﬁ' stays one character instead of becoming "FI", and the length in characters never changes.
   */
  static byte[] mapCase(String s, boolean upper) {
    StringBuilder b = new StringBuilder(s.length());
    s.codePoints().forEach(c -> b.appendCodePoint(upper ? Character.toUpperCase(c) : Character.toLowerCase(c)));
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static int indexOf(byte[] s, byte[] lit) {
    outer:
    for (int i = 0; i + lit.length <= s.length; i++) {
      for (int j = 0; j < lit.length; j++) {
        if (s[i + j] != lit[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** UPPER, LOWER, SUBSTRING, TRIM, CHAR_LENGTH and CONCAT, row by row inside one batch loop. */
  static final class StringCall implements Evaluator {
    private final Function op;
    private final SqlType type;
    private final List<Evaluator> args;

    StringCall(Function op, SqlType type, List<Evaluator> args) {
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
      if (op == Function.CHAR_LENGTH) {
        long[] out = new long[n];
        BytesColumn s = (BytesColumn) in[0];
        for (int i = 0; i < n; i++) {
          if (nulls == null || !nulls[i]) {
            out[i] = codePoints(s.value(i));
          }
        }
        return new LongColumn(type, out, nulls, n);
      }
      byte[][] out = new byte[n][];
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        out[i] = switch (op) {
          case UPPER -> mapCase(str(in[0], i), true);
          case LOWER -> mapCase(str(in[0], i), false);
          case CONCAT -> concat(((BytesColumn) in[0]).value(i), ((BytesColumn) in[1]).value(i));
          case SUBSTRING -> substring(str(in[0], i), ((LongColumn) in[1]).value(i),
              in.length > 2 ? ((LongColumn) in[2]).value(i) : Long.MAX_VALUE);
          case TRIM -> trim(str(in[0], i), str(in[1], i), str(in[2], i));
          default -> throw EngineException.badPlan("not a string function: " + op);
        };
      }
      return new BytesColumn(type, out, nulls, n);
    }

    private static String str(Column c, int i) {
      return ((BytesColumn) c).string(i);
    }
  }

  static int codePoints(byte[] utf8) {
    int count = 0;
    for (byte b : utf8) {
      if ((b & 0xC0) != 0x80) {
        count++;
      }
    }
    return count;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** SQL SUBSTRING(s FROM start FOR len), 1-based; a start before 1 shortens the length. */
  static byte[] substring(String s, long start, long length) {
    if (length < 0) {
      throw EngineException.user("negative substring length " + length);
    }
    int cps = s.codePointCount(0, s.length());
    long end = length == Long.MAX_VALUE ? Long.MAX_VALUE : start + length;
    long from = Math.max(start, 1);
    long to = Math.min(end, (long) cps + 1);
    if (to <= from) {
      return new byte[0];
    }
    int b = s.offsetByCodePoints(0, (int) (from - 1));
    int e = s.offsetByCodePoints(0, (int) (to - 1));
    return s.substring(b, e).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] trim(String mode, String chars, String value) {
    int b = 0;
    int e = value.length();
    boolean leading = !mode.equalsIgnoreCase("TRAILING");
    boolean trailing = !mode.equalsIgnoreCase("LEADING");
    while (leading && b < e && chars.indexOf(value.charAt(b)) >= 0) {
      b++;
    }
    while (trailing && e > b && chars.indexOf(value.charAt(e - 1)) >= 0) {
      e--;
    }
    return value.substring(b, e).getBytes(StandardCharsets.UTF_8);
  }
}
