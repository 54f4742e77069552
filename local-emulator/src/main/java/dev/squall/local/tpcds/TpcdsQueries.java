package dev.squall.local.tpcds;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The 99 TPC-DS queries ({@code dev/squall/local/tpcds/queries/qNN.sql}) in Trino's dialect, with
 * the qualification substitution parameters of the TPC-DS specification, over unqualified table
 * names (plan them with default schema {@code tpcds}). Queries 14, 23, 24 and 39 have two parts
 * each, {@code q14a} and {@code q14b} and so on: 103 statements in all.
 */
public final class TpcdsQueries {
  /** The queries made of two statements. */
  private static final Set<Integer> TWO_PARTS = Set.of(14, 23, 24, 39);

  private TpcdsQueries() {}

  /** The names of the 103 statements in order: {@code q01}, ..., {@code q14a}, {@code q14b}, ..., {@code q99}. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (int n = 1; n <= 99; n++) {
      String base = String.format("q%02d", n);
      if (TWO_PARTS.contains(n)) {
        names.add(base + "a");
        names.add(base + "b");
      } else {
        names.add(base);
      }
    }
    return names;
  }

  /**
   * The text of a statement.
   *
   * @param name a name from {@link #names()}, e.g. {@code q07} or {@code q23b}
   * @throws IllegalArgumentException for another name
   */
  public static String text(String name) {
    if (!names().contains(name)) {
      throw new IllegalArgumentException("TPC-DS has no query " + name + " (names are q01 to q99, q14a/b, q23a/b, q24a/b, q39a/b)");
    }
    String resource = "/dev/squall/local/tpcds/queries/" + name + ".sql";
    try (InputStream in = TpcdsQueries.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
