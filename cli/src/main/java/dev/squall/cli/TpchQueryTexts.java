package dev.squall.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The 22 TPC-H queries shipped in local-emulator ({@code dev/squall/local/tpch/queries/qNN.sql}). */
final class TpchQueryTexts {
  private TpchQueryTexts() {}

  /**
   * @param n query number, 1 to 22
   * @throws IllegalArgumentException for another number
   */
  static String text(int n) {
    if (n < 1 || n > 22) {
      throw new IllegalArgumentException("TPC-H has queries 1 to 22, not " + n);
    }
    String name = String.format("/dev/squall/local/tpch/queries/q%02d.sql", n);
    try (InputStream in = TpchQueryTexts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
