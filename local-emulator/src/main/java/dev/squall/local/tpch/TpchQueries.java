package dev.squall.local.tpch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The 22 TPC-H queries ({@code dev/squall/local/tpch/queries/qNN.sql}), with the TPC-H
 * specification's validation substitution parameters, over unqualified table names (plan them with
 * default schema {@code tpch}).
 */
public final class TpchQueries {
  private TpchQueries() {}

  /**
   * @param n query number, 1 to 22
   * @throws IllegalArgumentException for another number
   */
  public static String text(int n) {
    if (n < 1 || n > 22) {
      throw new IllegalArgumentException("TPC-H has queries 1 to 22, not " + n);
    }
    String name = String.format("/dev/squall/local/tpch/queries/q%02d.sql", n);
    try (InputStream in = TpchQueries.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
