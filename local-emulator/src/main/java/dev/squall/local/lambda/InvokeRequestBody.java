package dev.squall.local.lambda;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Reads and checks an Invoke request's payload: size limit first, then the function's format. */
final class InvokeRequestBody {
  /** The Invoke API's request payload limit for synchronous invocations, 6 MB. */
  static final int MAX_REQUEST_BYTES = 6_291_456;
  /** Bodies past the limit are read and discarded up to this size so the client sees the 413. */
  private static final long MAX_DRAIN_BYTES = 256L << 20;
  private static final byte[] EMPTY_JSON = "{}".getBytes(StandardCharsets.UTF_8);
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private InvokeRequestBody() {}

  /**
   * Reads the whole body.
   *
   * @throws InvokeApiException 413 {@code RequestTooLargeException} if it exceeds {@code limit} bytes
   * @throws IOException if the client's stream breaks
   */
  static byte[] read(InputStream in, int limit) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[64 * 1024];
    long total = 0;
    int n;
    while ((n = in.read(buffer)) != -1) {
      total += n;
      if (total <= limit) {
        out.write(buffer, 0, n);
      } else if (total > MAX_DRAIN_BYTES) {
        break;
      }
    }
    if (total > limit) {
      throw InvokeApiException.requestTooLarge(total, limit);
    }
    return out.toByteArray();
  }

  /**
   * Checks the payload against what the function accepts. An empty payload becomes {@code {}}
   * for JSON functions, as AWS passes an empty event.
   *
   * @throws InvokeApiException 400 {@code InvalidRequestContentException} naming the parse error
   */
  static byte[] check(byte[] payload, FunctionDefinition function) {
    if (function.payloadFormat() != PayloadFormat.JSON) {
      return payload;
    }
    if (payload.length == 0) {
      return EMPTY_JSON;
    }
    try {
      if (JSON.readTree(payload).isMissingNode()) {
        throw InvokeApiException.invalidRequestContent("Could not parse request body into json: no JSON value");
      }
    } catch (JsonProcessingException e) {
      throw InvokeApiException.invalidRequestContent(
          "Could not parse request body into json: " + e.getOriginalMessage()
              + " at byte " + e.getLocation().getByteOffset() + " (function " + function.name() + " takes JSON)");
    } catch (IOException e) {
      throw InvokeApiException.invalidRequestContent("Could not parse request body into json: " + e.getMessage());
    }
    return payload;
  }
}
