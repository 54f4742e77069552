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
    private byte[] cachedPattern;
    private byte[] cachedEscape;
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
      if (v.isDictionary() && pattern instanceof Literals.Constant
          && (escape == null || escape instanceof Literals.Constant)) {
        // A literal pattern over a dictionary column: matched once per dictionary entry.
        boolean[] entries = entryMatches(v.dictionaryValues(), p, e);
        if (entries != null) {
          int[] ids = v.dictionaryIds();
          for (int i = 0; i < n; i++) {
            out[i] = entries[ids[i]];
          }
          return new BoolColumn(out, nulls, n);
        }
      }
      byte[] data = v.data();
      int[] offsets = v.offsets();
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          continue;
        }
        out[i] = matcher(p, e, i).matches(data, offsets[i], offsets[i + 1]);
      }
      return new BoolColumn(out, nulls, n);
    }

    /**
     * Whether each entry of {@code dictionary} matches the literal pattern (row 0 of p, e), kept
     * while batches share the dictionary; null when the pattern is NULL.
     */
    private boolean[] entryMatches(BytesColumn dictionary, BytesColumn p, BytesColumn e) {
      if (p.isNull(0) || (e != null && e.isNull(0))) {
        return null;
      }
      if (dictionary != cachedDictionary) {
        Matcher m = matcher(p, e, 0);
        byte[] data = dictionary.data();
        int[] offsets = dictionary.offsets();
        boolean[] entries = new boolean[dictionary.size()];
        for (int k = 0; k < entries.length; k++) {
          entries[k] = m.matches(data, offsets[k], offsets[k + 1]);
        }
        cachedEntries = entries;
        cachedDictionary = dictionary;
      }
      return cachedEntries;
    }

    /** The matcher of row i's pattern and escape; compiled again only when they change (a literal pattern: once). */
    private BytesColumn cachedDictionary;
    private boolean[] cachedEntries;

    private Matcher matcher(BytesColumn p, BytesColumn e, int i) {
      boolean same = cachedMatcher != null && p.equalsBytes(i, cachedPattern, 0, cachedPattern.length)
          && (e == null ? cachedEscape == null : cachedEscape != null && e.equalsBytes(i, cachedEscape, 0, cachedEscape.length));
      if (!same) {
        cachedPattern = p.value(i);
        cachedEscape = e == null ? null : e.value(i);
        cachedMatcher = compile(p.string(i), e == null ? null : e.string(i));
      }
      return cachedMatcher;
    }
  }

  /** A compiled LIKE pattern over UTF-8 bytes {@code data[from..to)}. */
  interface Matcher {
    boolean matches(byte[] data, int from, int to);
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
      // Literal segments joined by %: 'abc', 'abc%', '%abc', '%abc%', '%special%requests%'.
      return segments(pattern.split("%", -1));
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
    return (s, from, to) -> compiled.matcher(new String(s, from, to - from, StandardCharsets.UTF_8)).matches();
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

  /**
   * A pattern of literal segments joined by {@code %} (no {@code _}, no escape), e.g.
   * {@code %special%requests%}: one segment is the whole value; of several, the first is a prefix,
   * the last a suffix that does not overlap it, and the ones between occur in order in what lies
   * between, each found at its leftmost place after the one before (which never misses a match,
   * since a segment found further left leaves the later ones more room). Bytes are compared as
   * they are: a UTF-8 encoded segment can only match at a character boundary.
   */
  private static Matcher segments(String[] parts) {
    byte[][] lits = new byte[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      lits[i] = parts[i].getBytes(StandardCharsets.UTF_8);
    }
    if (lits.length == 1) {
      byte[] whole = lits[0];
      return (s, from, to) -> Arrays.equals(s, from, to, whole, 0, whole.length);
    }
    byte[] first = lits[0];
    byte[] last = lits[lits.length - 1];
    return (s, from, to) -> {
      if (to - from < first.length + last.length
          || !Arrays.equals(s, from, from + first.length, first, 0, first.length)
          || !Arrays.equals(s, to - last.length, to, last, 0, last.length)) {
        return false;
      }
      int at = from + first.length;
      int end = to - last.length;
      for (int i = 1; i < lits.length - 1; i++) {
        int found = indexOf(s, at, end, lits[i]);
        if (found < 0) {
          return false;
        }
        at = found + lits[i].length;
      }
      return true;
    };
  }

  /** Where {@code lit} first occurs in {@code s[from..to)}, or -1. */
  private static int indexOf(byte[] s, int from, int to, byte[] lit) {
    if (lit.length == 0) {
      return from;
    }
    byte first = lit[0];
    for (int i = from; i + lit.length <= to; i++) {
      if (s[i] == first && Arrays.equals(s, i, i + lit.length, lit, 0, lit.length)) {
        return i;
      }
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
        byte[] data = s.data();
        int[] offsets = s.offsets();
        for (int i = 0; i < n; i++) {
          if (nulls == null || !nulls[i]) {
            out[i] = codePoints(data, offsets[i], offsets[i + 1]);
          }
        }
        return new LongColumn(type, out, nulls, n);
      }
      if (op == Function.SUBSTRING) {
        return substrings((BytesColumn) in[0], (LongColumn) in[1], in.length > 2 ? (LongColumn) in[2] : null, nulls, n);
      }
      BytesColumn out = BytesColumn.withCapacity(type, n, n * 16);
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          out.appendNull();
          continue;
        }
        out.append(switch (op) {
          case UPPER -> mapCase(str(in[0], i), true);
          case LOWER -> mapCase(str(in[0], i), false);
          case CONCAT -> concat(((BytesColumn) in[0]).value(i), ((BytesColumn) in[1]).value(i));
          case TRIM -> trim(str(in[0], i), str(in[1], i), str(in[2], i));
          default -> throw EngineException.badPlan("not a string function: " + op);
        });
      }
      return out;
    }

    private static String str(Column c, int i) {
      return ((BytesColumn) c).string(i);
    }

    /** SUBSTRING of every row, cut from the UTF-8 bytes in place (no String per row). */
    private Column substrings(BytesColumn s, LongColumn start, LongColumn length, boolean[] nulls, int n) {
      byte[] data = s.data();
      int[] offsets = s.offsets();
      BytesColumn out = BytesColumn.withCapacity(type, n, offsets[n] - offsets[0]);
      for (int i = 0; i < n; i++) {
        if (nulls != null && nulls[i]) {
          out.appendNull();
          continue;
        }
        long bounds = substringBounds(data, offsets[i], offsets[i + 1], start.value(i),
            length == null ? Long.MAX_VALUE : length.value(i));
        int from = (int) (bounds >>> 32);
        out.append(data, from, (int) bounds - from);
      }
      return out;
    }
  }

  static int codePoints(byte[] utf8) {
    return codePoints(utf8, 0, utf8.length);
  }

  /** Code points of the UTF-8 bytes {@code data[from..to)}: the bytes that do not continue a sequence. */
  static int codePoints(byte[] data, int from, int to) {
    int count = 0;
    for (int i = from; i < to; i++) {
      if ((data[i] & 0xC0) != 0x80) {
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

  /**
   * SUBSTRING/SUBSTR as Trino defines it: code points from 1-based {@code start} (a negative start
   * counts from the end: -3 is the third code point from the end), at most {@code length} of them;
   * a start of 0, a start beyond either end, or a length of 0 or less gives ''.
   */
  static byte[] substring(String s, long start, long length) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    long bounds = substringBounds(utf8, 0, utf8.length, start, length);
    return Arrays.copyOfRange(utf8, (int) (bounds >>> 32), (int) bounds);
  }

  /**
   * {@link #substring}'s result within the UTF-8 bytes {@code data[begin..end)}, as its first byte
   * offset in the high 32 bits and its end offset in the low 32 bits (equal for '').
   */
  static long substringBounds(byte[] data, int begin, int end, long start, long length) {
    long empty = ((long) begin << 32) | begin;
    if (start == 0 || length <= 0 || begin == end) {
      return empty;
    }
    long skip = start > 0 ? start - 1 : start + codePoints(data, begin, end);
    if (skip < 0) {
      return empty;
    }
    int from = advance(data, begin, end, skip);
    if (from >= end) {
      return empty;
    }
    return ((long) from << 32) | advance(data, from, end, length);
  }

  /** The offset {@code count} code points after {@code pos} (a sequence's first byte), at most {@code end}. */
  private static int advance(byte[] data, int pos, int end, long count) {
    for (long c = 0; c < count && pos < end; c++) {
      pos++;
      while (pos < end && (data[pos] & 0xC0) == 0x80) {
        pos++;
      }
    }
    return pos;
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
