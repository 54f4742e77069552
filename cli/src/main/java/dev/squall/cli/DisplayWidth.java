package dev.squall.cli;

import org.jline.utils.WCWidth;

/**
 * How many terminal columns a string takes: East Asian wide and full-width characters and emoji
 * take two, combining marks, zero-width joiners and variation selectors none (JLine's
 * {@code WCWidth}, after Markus Kuhn's {@code wcwidth}); control characters count one.
 */
final class DisplayWidth {
  private DisplayWidth() {}

  static int of(String s) {
    int width = 0;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      width += Math.max(WCWidth.wcwidth(cp), cp < 0x20 || cp == 0x7f ? 1 : 0);
      i += Character.charCount(cp);
    }
    return width;
  }

  /** {@code s} followed by blanks up to {@code width} columns. */
  static String pad(String s, int width) {
    return s + " ".repeat(Math.max(0, width - of(s)));
  }
}
