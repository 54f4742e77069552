package dev.squall.engine.differential;

import dev.squall.engine.testing.TpchFixture;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Tables that TPC-H lacks, added to the fixture as Parquet data files (the same Iceberg writer, so
 * the engine's scan and DuckDB read the very same bytes). Deterministic.
 *
 * <ul>
 *   <li>{@code nulls}: 11,000 rows in three data files (9,000, none, 2,000); every column but
 *       {@code id} is 30–60% NULL, rows 2,000–2,999 are NULL in every nullable column, and
 *       {@code nul_s}/{@code nul_d} are NULL throughout.
 *   <li>{@code empty_nulls}: the same columns, one data file of no rows.
 *   <li>{@code strs}: 14,000 rows: {@code mode} a low-cardinality (dictionary-encoded) string with
 *       LIKE metacharacters, multi-byte text and trailing blanks; {@code txt} high-cardinality text
 *       whose dictionary overflows (the column chunk falls back to plain pages); {@code code}
 *       values shaped like {@code AB-0123-xy}.
 *   <li>{@code decs}: 3,000 rows of decimals in every Parquet physical form (INT32 for precision up
 *       to 9, INT64 up to 18, fixed-length bytes beyond) including precision 38 near its limit
 *       ({@code big}), rounding ties and the extremes of each type.
 * </ul>
 */
final class EdgeTables {
  private EdgeTables() {}

  static final String[] MODES = {"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "REG AIR", "FOB", "", "a_b", "a%b", "x\\y", "dot.star*",
      "[br]", "épsilon", "日本", "AIR ", " AIR", "a!b"};

  private static final String ALPHABET = "abcxyzAB_%\\.*+?[]()^$|{}!é日😀ﬁ -";

  /** Registers the edge tables in {@code f} (once) and returns it. */
  static TpchFixture register(TpchFixture f) {
    synchronized (f) {
      if (f.tables().containsKey("decs")) {
        return f;
      }
      Schema nullsSchema = nullsSchema();
      // Small row groups, so that a pushed filter has row groups to skip.
      f.addTable("nulls", nullsSchema, List.of(nullsRows(0, 9000), List.of(), nullsRows(9000, 2000)), Map.of("write.parquet.row-group-size-bytes", "32768"));
      f.addTable("empty_nulls", nullsSchema, List.of(List.of()), Map.of());
      f.addTable("strs", strsSchema(), List.of(strsRows(0, 10000), strsRows(10000, 4000)), Map.of(
          "write.parquet.dict-size-bytes", "16384",
          "write.parquet.page-size-bytes", "2048",
          "write.parquet.row-group-size-bytes", "65536"));
      f.addTable("decs", decsSchema(), List.of(decsRows(3000)), Map.of("write.parquet.page-size-bytes", "8192",
          "write.parquet.row-group-size-bytes", "32768"));
      return f;
    }
  }

  private static Types.NestedField opt(int id, String name, org.apache.iceberg.types.Type type) {
    return Types.NestedField.optional(id, name, type);
  }

  private static Schema nullsSchema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        opt(2, "k", Types.IntegerType.get()),
        opt(3, "g", Types.StringType.get()),
        opt(4, "d", Types.DecimalType.of(12, 2)),
        opt(5, "x", Types.DoubleType.get()),
        opt(6, "dt", Types.DateType.get()),
        opt(7, "b", Types.BooleanType.get()),
        opt(8, "s", Types.StringType.get()),
        opt(9, "k2", Types.LongType.get()),
        opt(10, "nul_s", Types.StringType.get()),
        opt(11, "nul_d", Types.DecimalType.of(12, 2)));
  }

  private static Object maybe(Random rnd, int nullPercent, Object v) {
    return rnd.nextInt(100) < nullPercent ? null : v;
  }

  private static List<Object[]> nullsRows(int first, int n) {
    Random rnd = new Random(101 + first);
    String[] colours = {"red", "green", "blue", ""};
    String[] words = {"alpha", "beta", "gamma", "delta", "épsilon", "zeta_", "eta%", "ALPHA", "omega omega"};
    List<Object[]> rows = new ArrayList<>();
    for (int i = first; i < first + n; i++) {
      boolean allNull = i >= 2000 && i < 3000;
      Object[] r = new Object[11];
      r[0] = (long) i;
      r[1] = allNull ? null : maybe(rnd, 40, rnd.nextInt(10));
      r[2] = allNull ? null : maybe(rnd, 50, colours[rnd.nextInt(colours.length)]);
      r[3] = allNull ? null : maybe(rnd, 50, BigDecimal.valueOf(rnd.nextInt(19_999_999) - 9_999_999, 2));
      r[4] = allNull ? null : maybe(rnd, 30, Math.round(rnd.nextDouble() * 1e6) / 1e3);
      r[5] = allNull ? null : maybe(rnd, 50, LocalDate.of(1990, 1, 1).plusDays(rnd.nextInt(4000)));
      r[6] = allNull ? null : maybe(rnd, 33, rnd.nextBoolean());
      r[7] = allNull ? null : maybe(rnd, 60, words[rnd.nextInt(words.length)] + (rnd.nextInt(4) == 0 ? "" : " " + rnd.nextInt(50)));
      r[8] = allNull ? null : maybe(rnd, 20, (long) rnd.nextInt(500));
      r[9] = null;
      r[10] = null;
      rows.add(r);
    }
    return rows;
  }

  private static Schema strsSchema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        opt(2, "mode", Types.StringType.get()),
        opt(3, "txt", Types.StringType.get()),
        opt(4, "code", Types.StringType.get()),
        opt(5, "num", Types.IntegerType.get()));
  }

  private static List<Object[]> strsRows(int first, int n) {
    Random rnd = new Random(202 + first);
    int[] cps = ALPHABET.codePoints().toArray();
    List<Object[]> rows = new ArrayList<>();
    String[] pool = new String[40];
    for (int p = 0; p < pool.length; p++) {
      pool[p] = randomText(rnd, cps);
    }
    for (int i = first; i < first + n; i++) {
      // Blocks of few distinct values between blocks of unique ones: a column chunk that starts
      // dictionary-encoded falls back to plain pages when its dictionary outgrows its limit.
      String t = (i / 500) % 2 == 0 ? pool[rnd.nextInt(pool.length)] : randomText(rnd, cps);
      String code = (char) ('A' + rnd.nextInt(4)) + "" + (char) ('A' + rnd.nextInt(4)) + "-" + String.format("%04d", rnd.nextInt(10000))
          + "-" + (char) ('w' + rnd.nextInt(4)) + (char) ('w' + rnd.nextInt(4));
      rows.add(new Object[] {(long) i, maybe(rnd, 10, MODES[rnd.nextInt(MODES.length)]), maybe(rnd, 5, t),
          maybe(rnd, 5, code), maybe(rnd, 5, rnd.nextInt(1000))});
    }
    return rows;
  }

  private static String randomText(Random rnd, int[] cps) {
    StringBuilder t = new StringBuilder();
    int len = rnd.nextInt(16);
    for (int c = 0; c < len; c++) {
      t.appendCodePoint(cps[rnd.nextInt(cps.length)]);
    }
    return t.toString();
  }

  private static Schema decsSchema() {
    return new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        opt(2, "d38_2", Types.DecimalType.of(38, 2)),
        opt(3, "d38_10", Types.DecimalType.of(38, 10)),
        opt(4, "big", Types.DecimalType.of(38, 0)),
        opt(5, "d18_4", Types.DecimalType.of(18, 4)),
        opt(6, "d9_3", Types.DecimalType.of(9, 3)),
        opt(7, "d5_0", Types.DecimalType.of(5, 0)),
        opt(8, "d20_0", Types.DecimalType.of(20, 0)),
        opt(9, "d10_5", Types.DecimalType.of(10, 5)),
        opt(10, "dk", Types.DecimalType.of(38, 2)));
  }

  /** A random unscaled value of up to {@code digits} digits, either sign. */
  private static BigDecimal dec(Random rnd, int digits, int scale) {
    BigInteger u = new BigInteger(digits * 4, rnd).mod(BigInteger.TEN.pow(digits));
    return new BigDecimal(rnd.nextBoolean() ? u : u.negate(), scale);
  }

  private static List<Object[]> decsRows(int n) {
    Random rnd = new Random(303);
    BigInteger nearMax = new BigInteger("90000000000000000000000000000000000000");
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Object[] r = new Object[10];
      r[0] = (long) i;
      r[1] = maybe(rnd, 10, dec(rnd, 1 + rnd.nextInt(26), 2));
      r[2] = maybe(rnd, 10, dec(rnd, 1 + rnd.nextInt(25), 10));
      r[3] = maybe(rnd, 10, new BigDecimal(nearMax.add(new BigInteger(120, rnd).mod(BigInteger.TEN.pow(37))), 0));
      r[4] = maybe(rnd, 10, dec(rnd, 1 + rnd.nextInt(17), 4));
      r[5] = maybe(rnd, 10, dec(rnd, 1 + rnd.nextInt(9), 3));
      r[6] = maybe(rnd, 10, dec(rnd, 1 + rnd.nextInt(5), 0));
      r[7] = maybe(rnd, 10, dec(rnd, 1 + rnd.nextInt(20), 0));
      r[8] = maybe(rnd, 10, dec(rnd, 1 + rnd.nextInt(10), 5));
      r[9] = maybe(rnd, 10, BigDecimal.valueOf(rnd.nextInt(40) - 20).multiply(new BigDecimal("12345678901234567890.25")));
      rows.add(r);
    }
    // Extremes of each column and exact rounding ties, in rows of their own.
    String[][] edges = {
        {"999999999999999999999999999999999999.99", "9999999999999999999999999999.9999999999", "99999999999999999999999999999999999999",
            "99999999999999.9999", "999999.999", "99999", "99999999999999999999", "99999.99999", "0.01"},
        {"-999999999999999999999999999999999999.99", "-9999999999999999999999999999.9999999999", "90000000000000000000000000000000000000",
            "-99999999999999.9999", "-999999.999", "-99999", "-99999999999999999999", "-99999.99999", "-0.01"},
        {"0.00", "0.0000000000", "90000000000000000000000000000000000001", "0.0000", "0.000", "0", "0", "0.00000", "0.00"},
        {"0.05", "0.0000000005", "90000000000000000000000000000000000002", "0.0005", "1.000", "1024", "9223372036854775808", "2.50000", "0.05"},
        {"-0.05", "-0.0000000005", "90000000000000000000000000000000000003", "-0.0005", "-1.000", "2048", "-9223372036854775809", "-2.50000", "-0.05"},
        {"2.50", "0.5000000000", "90000000000000000000000000000000000004", "2.5000", "2.500", "3", "9223372036854775807", "0.00005", "2.50"},
        {"-2.50", "-0.5000000000", "90000000000000000000000000000000000005", "-2.5000", "-2.500", "-3", "-9223372036854775808", "-0.00005", "-2.50"},
        {"999999.99", "999999.9949999999", "90000000000000000000000000000000000006", "999999.9949", "999999.994", "7", "1", "0.00001", "1.00"},
    };
    for (String[] e : edges) {
      Object[] r = new Object[10];
      r[0] = (long) rows.size();
      for (int c = 0; c < e.length; c++) {
        r[c + 1] = new BigDecimal(e[c]);
      }
      rows.add(r);
    }
    return rows;
  }
}
