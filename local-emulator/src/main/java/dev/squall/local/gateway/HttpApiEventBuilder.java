package dev.squall.local.gateway;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the API Gateway HTTP API event, payload format version 2.0, for a request. Format: "Working
 * with AWS Lambda proxy integrations for HTTP APIs" in the API Gateway developer guide:
 * {@code version}, {@code routeKey} ({@code $default}), {@code rawPath}, {@code rawQueryString},
 * {@code cookies} (taken out of the headers), {@code headers} (lower-case names, repeated headers
 * comma-joined), {@code queryStringParameters} (decoded, repeated names comma-joined),
 * {@code requestContext}, {@code body} and {@code isBase64Encoded} (text content types as text,
 * all else base64; see {@link TextContentTypes}).
 *
 * <p>The local gateway has no authorizer; a request may name its caller in the header {@value
 * Gateway#IDENTITY_HEADER}, which becomes {@code requestContext.authorizer.iam.userArn} as the IAM
 * authorizer reports a SigV4 signer on AWS (and is not passed on as a header). Only the local stack
 * reads this header: on AWS the identity comes from the authorizer alone.
 */
final class HttpApiEventBuilder {
  /** Account id reported in requestContext (LocalStack's default account). */
  static final String ACCOUNT_ID = "000000000000";
  /** API id reported in requestContext. */
  static final String API_ID = "squall-local";
  private static final DateTimeFormatter REQUEST_TIME =
      DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ENGLISH).withZone(ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();

  private HttpApiEventBuilder() {}

  /**
   * The event for one request.
   *
   * @param requestId the id placed in requestContext.requestId
   * @throws GatewayException 400 if a text body does not decode in its charset
   */
  static ObjectNode build(GatewayRequest request, String requestId) {
    ObjectNode event = JSON.createObjectNode();
    event.put("version", "2.0");
    event.put("routeKey", "$default");
    String rawPath = request.uri().getRawPath() == null || request.uri().getRawPath().isEmpty()
        ? "/" : request.uri().getRawPath();
    String rawQuery = request.uri().getRawQuery() == null ? "" : request.uri().getRawQuery();
    event.put("rawPath", rawPath);
    event.put("rawQueryString", rawQuery);

    Map<String, List<String>> headers = lowerCaseHeaders(request.headers());
    List<String> identity = headers.remove(Gateway.IDENTITY_HEADER);
    List<String> cookies = cookies(headers.remove("cookie"));
    if (!cookies.isEmpty()) {
      ArrayNode array = event.putArray("cookies");
      cookies.forEach(array::add);
    }
    ObjectNode headerNode = event.putObject("headers");
    headers.forEach((name, values) -> headerNode.put(name, String.join(",", values)));
    Map<String, List<String>> query = queryParameters(rawQuery);
    if (!query.isEmpty()) {
      ObjectNode queryNode = event.putObject("queryStringParameters");
      query.forEach((name, values) -> queryNode.put(name, String.join(",", values)));
    }

    String host = Optional.ofNullable(headers.get("host")).map(v -> v.get(0)).orElse("127.0.0.1");
    ObjectNode context = event.putObject("requestContext");
    context.put("accountId", ACCOUNT_ID);
    context.put("apiId", API_ID);
    context.put("domainName", host);
    context.put("domainPrefix", host.split("[.:]")[0]);
    ObjectNode http = context.putObject("http");
    http.put("method", request.method());
    http.put("path", rawPath);
    http.put("protocol", request.protocol());
    http.put("sourceIp", request.sourceIp());
    http.put("userAgent", Optional.ofNullable(headers.get("user-agent")).map(v -> String.join(",", v)).orElse(""));
    if (identity != null && !identity.isEmpty() && !identity.get(0).isBlank()) {
      ObjectNode iam = context.putObject("authorizer").putObject("iam");
      iam.put("accountId", ACCOUNT_ID);
      iam.put("userArn", identity.get(0).trim());
    }
    context.put("requestId", requestId);
    context.put("routeKey", "$default");
    context.put("stage", "$default");
    context.put("time", REQUEST_TIME.format(request.receivedAt()));
    context.put("timeEpoch", request.receivedAt().toEpochMilli());

    byte[] body = request.body();
    if (body.length > 0) {
      String contentType = Optional.ofNullable(headers.get("content-type")).map(v -> v.get(0)).orElse(null);
      Optional<Charset> charset = TextContentTypes.textCharset(contentType);
      if (charset.isPresent()) {
        event.put("body", decodeText(body, charset.get(), contentType));
        event.put("isBase64Encoded", false);
      } else {
        event.put("body", Base64.getEncoder().encodeToString(body));
        event.put("isBase64Encoded", true);
      }
    } else {
      event.put("isBase64Encoded", false);
    }
    return event;
  }

  private static Map<String, List<String>> lowerCaseHeaders(Map<String, List<String>> headers) {
    Map<String, List<String>> lower = new LinkedHashMap<>();
    headers.forEach((name, values) ->
        lower.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>()).addAll(values));
    return lower;
  }

  private static List<String> cookies(List<String> cookieHeaders) {
    List<String> cookies = new ArrayList<>();
    if (cookieHeaders != null) {
      for (String header : cookieHeaders) {
        for (String cookie : header.split(";")) {
          if (!cookie.isBlank()) {
            cookies.add(cookie.trim());
          }
        }
      }
    }
    return cookies;
  }

  private static Map<String, List<String>> queryParameters(String rawQuery) {
    Map<String, List<String>> params = new LinkedHashMap<>();
    if (rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decodeQuery(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decodeQuery(pair.substring(eq + 1));
      params.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
    }
    return params;
  }

  private static String decodeQuery(String raw) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new GatewayException(400, "Malformed query string near '" + raw + "': " + e.getMessage());
    }
  }

  private static String decodeText(byte[] body, Charset charset, String contentType) {
    CharsetDecoder decoder = charset.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(body);
    CharBuffer out = CharBuffer.allocate((int) Math.ceil(body.length * (double) decoder.maxCharsPerByte()) + 1);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      throw new GatewayException(400, "Request body is not valid " + charset.name() + " text as its Content-Type '"
          + contentType + "' declares: " + (result.isMalformed() ? "malformed" : "unmappable") + " input of "
          + result.length() + " byte(s) at byte offset " + in.position());
    }
    return out.flip().toString();
  }
}
