package dev.squall.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** Prints an answer of {@code POST /v1/queries} in a {@link ResultFormat}, with its summary on the side. */
final class AnswerPrinter {
  private static final ObjectMapper JSON = new ObjectMapper();

  private AnswerPrinter() {}

  /**
   * @return true on success; false when the service answered with an error (printed to {@code err})
   */
  static boolean print(HttpResponse<byte[]> response, ResultFormat format, PrintStream out, PrintStream err) throws IOException {
    String contentType = response.headers().firstValue("Content-Type").orElse("");
    if (response.statusCode() >= 300) {
      err.println("error " + response.statusCode() + ": " + new String(response.body(), StandardCharsets.UTF_8));
      return false;
    }
    if (format == ResultFormat.JSON || !contentType.startsWith(QueryClient.ARROW_STREAM)) {
      Object tree = JSON.readTree(response.body());
      out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree));
    } else if (format == ResultFormat.ARROW) {
      out.write(response.body());
      out.flush();
    } else {
      ResultPrinter.print(new ByteArrayInputStream(response.body()), format, out);
      response.headers().firstValue("X-Squall-Query-Id").ifPresent(id -> err.println("query id: " + id));
      response.headers().firstValue("X-Squall-Summary").ifPresent(s -> err.println("summary: " + s));
    }
    return true;
  }
}
