package dev.squall.planner.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The TPC-H query texts shipped with the local stack (local-emulator resources). */
public final class TpchQueries {
  private TpchQueries() {}

  /** Query {@code n} (1..22). */
  public static String query(int n) {
    String path = String.format("/dev/squall/local/tpch/queries/q%02d.sql", n);
    try (InputStream in = TpchQueries.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("Missing TPC-H query resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
