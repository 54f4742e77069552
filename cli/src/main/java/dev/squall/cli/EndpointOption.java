package dev.squall.cli;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options every command talking to a Squall endpoint shares: where it is ({@code --endpoint})
 * and how to authenticate ({@code --aws-sigv4} with {@code --region}, or {@code --bearer-token}).
 */
final class EndpointOption {
  @Option(names = "--endpoint", defaultValue = "${SQUALL_ENDPOINT:-http://127.0.0.1:8080}",
      converter = HttpUrl.class,
      description = "Squall HTTP endpoint (default: $SQUALL_ENDPOINT or ${DEFAULT-VALUE}).")
  URI endpoint;

  /** An endpoint is an http or https URL with a host; anything else is a usage error naming it. */
  static final class HttpUrl implements CommandLine.ITypeConverter<URI> {
    @Override
    public URI convert(String value) {
      URI uri;
      try {
        uri = URI.create(value);
      } catch (IllegalArgumentException e) {
        uri = null;
      }
      if (uri == null || uri.getHost() == null || !("http".equalsIgnoreCase(uri.getScheme())
          || "https".equalsIgnoreCase(uri.getScheme()))) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not an http:// or https:// URL (e.g. http://127.0.0.1:8080)");
      }
      return uri;
    }
  }

  @Option(names = "--aws-sigv4",
      description = "Sign requests with AWS SigV4 (API Gateway's IAM authorizer), with credentials from the default "
          + "AWS chain (environment, profile, SSO, role).")
  boolean awsSigV4;

  @Option(names = "--region", description = "AWS region to sign for (default: $AWS_REGION, $AWS_DEFAULT_REGION, or "
      + "the endpoint's execute-api host).")
  String region;

  @Option(names = "--bearer-token", defaultValue = "${SQUALL_BEARER_TOKEN}",
      description = "Send 'Authorization: Bearer <token>' (a JWT authorizer; default: $SQUALL_BEARER_TOKEN).")
  String bearerToken;

  /** Delay cap of the first re-send of a throttled request (see {@link QueryClient}); tests shorten it. */
  Duration throttleBaseDelay = QueryClient.THROTTLE_BASE_DELAY;

  /**
   * A client of the endpoint authenticated as the options say.
   *
   * @throws IllegalArgumentException when both SigV4 and a bearer token are asked for, or SigV4
   *     has no region
   */
  QueryClient client(Duration timeout) {
    return new QueryClient(endpoint, timeout, Duration.ofSeconds(10), signer(System.getenv()))
        .withThrottleRetries(QueryClient.THROTTLE_RETRIES, throttleBaseDelay);
  }

  RequestSigner signer(Map<String, String> env) {
    boolean bearer = bearerToken != null && !bearerToken.isEmpty();
    if (awsSigV4 && bearer) {
      throw new IllegalArgumentException("--aws-sigv4 and --bearer-token exclude each other: an API has one authorizer");
    }
    if (awsSigV4) {
      return RequestSigner.sigV4(RequestSigner.region(region, env, endpoint));
    }
    return bearer ? RequestSigner.bearer(bearerToken) : RequestSigner.NONE;
  }
}
