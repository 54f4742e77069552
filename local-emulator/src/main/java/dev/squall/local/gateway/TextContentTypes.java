package dev.squall.local.gateway;

import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides which bodies travel as text and which as base64. Text: {@code text/*},
 * {@code application/json}, {@code application/xml}, {@code application/javascript},
 * {@code application/x-www-form-urlencoded}, {@code application/graphql} and any {@code +json} or
 * {@code +xml} type. Everything else, and a body without a content type, is binary.
 */
final class TextContentTypes {
  private TextContentTypes() {}

  /**
   * The charset a body of this content type is text in, or empty if it is binary.
   *
   * @param contentType the {@code Content-Type} header value, or {@code null}
   * @throws GatewayException 400 naming the charset if the type is text in an unknown charset
   */
  static Optional<Charset> textCharset(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return Optional.empty();
    }
    String[] parts = contentType.split(";");
    String mediaType = parts[0].trim().toLowerCase(Locale.ROOT);
    if (!isText(mediaType)) {
      return Optional.empty();
    }
    for (int i = 1; i < parts.length; i++) {
      String param = parts[i].trim();
      if (param.toLowerCase(Locale.ROOT).startsWith("charset=")) {
        String name = param.substring("charset=".length()).replace("\"", "").trim();
        try {
          return Optional.of(Charset.forName(name));
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
          throw new GatewayException(400, "Unsupported charset '" + name + "' in Content-Type " + contentType);
        }
      }
    }
    return Optional.of(StandardCharsets.UTF_8);
  }

  /** True if a response with this content type is text (used to label responses in logs and tests). */
  static boolean isText(String mediaType) {
    return mediaType.startsWith("text/")
        || mediaType.equals("application/json")
        || mediaType.equals("application/xml")
        || mediaType.equals("application/javascript")
        || mediaType.equals("application/x-www-form-urlencoded")
        || mediaType.equals("application/graphql")
        || mediaType.endsWith("+json")
        || mediaType.endsWith("+xml");
  }
}
