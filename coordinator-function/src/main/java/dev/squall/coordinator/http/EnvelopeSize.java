package dev.squall.coordinator.http;

/**
 * How many bytes a text body takes inside the Lambda response envelope, where it is a JSON string:
 * UTF-8, with {@code "} and {@code \} escaped as two characters, the control characters with a
 * short escape ({@code \n}, {@code \r}, {@code \t}, {@code \b}, {@code \f}) as two and the other
 * control characters as six (a backslash, {@code u} and four hex digits), as Jackson writes them. A JSON answer full of quotes,
 * backslashes or control characters in its strings is already escaped once in the body and grows
 * again in the envelope, so its length in characters says little about the response's size.
 */
final class EnvelopeSize {
  private EnvelopeSize() {}

  /** The body's size in bytes once written as a JSON string value (without the enclosing quotes). */
  static long of(String body) {
    long bytes = 0;
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f') {
        bytes += 2;
      } else if (c < 0x20) {
        bytes += 6;
      } else if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isSurrogate(c)) {
        bytes += 2; // a pair is four bytes in UTF-8
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
