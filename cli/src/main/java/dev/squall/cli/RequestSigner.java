package dev.squall.cli;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * How the CLI authenticates its requests to a deployed Squall API: not at all (the local stack),
 * with AWS Signature Version 4 for the IAM authorizer (service {@code execute-api}, credentials from
 * the AWS SDK's default chain: environment, profile, SSO, container or instance role), or with a
 * bearer token for a JWT authorizer. Credentials and tokens never reach standard output or error.
 */
interface RequestSigner {
  /** Leaves requests as they are. */
  RequestSigner NONE = (builder, method, uri, headers, body) -> builder;

  /**
   * Adds the authentication headers of one request.
   *
   * @param headers the headers already on the request that the signature must cover (name to value)
   * @param body the request body (empty for none)
   */
  HttpRequest.Builder sign(HttpRequest.Builder builder, String method, URI uri, Map<String, String> headers, byte[] body);

  /** {@code Authorization: Bearer <token>}. */
  static RequestSigner bearer(String token) {
    if (token.isBlank() || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
      throw new IllegalArgumentException("the bearer token is empty or holds characters a header cannot carry");
    }
    return (builder, method, uri, headers, body) -> builder.header("Authorization", "Bearer " + token);
  }

  /** SigV4 for {@code execute-api} in {@code region} with credentials from the default AWS chain. */
  static RequestSigner sigV4(String region) {
    return sigV4(region, DefaultCredentialsProvider.builder().build());
  }

  /** SigV4 for {@code execute-api} in {@code region} with the given credentials. */
  static RequestSigner sigV4(String region, AwsCredentialsProvider credentials) {
    AwsV4HttpSigner signer = AwsV4HttpSigner.create();
    return (builder, method, uri, headers, body) -> {
      SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method)).uri(uri);
      headers.forEach(unsigned::putHeader);
      AwsCredentialsIdentity identity = credentials.resolveIdentity().join();
      SignedRequest signed = signer.sign(r -> r.identity(identity)
          .request(unsigned.build())
          .payload(() -> new ByteArrayInputStream(body))
          .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api")
          .putProperty(AwsV4HttpSigner.REGION_NAME, region));
      signed.request().headers().forEach((name, values) -> {
        // The HTTP client sets Host and Content-Length itself, to the same values that were signed.
        if (!name.equalsIgnoreCase("host") && !name.equalsIgnoreCase("content-length") && !headers.containsKey(name)) {
          values.forEach(v -> builder.header(name, v));
        }
      });
      return builder;
    };
  }

  /**
   * The region to sign for: the option, else {@code AWS_REGION} or {@code AWS_DEFAULT_REGION}, else
   * the one in an {@code execute-api.<region>.amazonaws.com} endpoint.
   *
   * @throws IllegalArgumentException when none of them names a region
   */
  static String region(String option, Map<String, String> env, URI endpoint) {
    for (String candidate : new String[] {option, env.get("AWS_REGION"), env.get("AWS_DEFAULT_REGION")}) {
      if (candidate != null && !candidate.isBlank()) {
        return candidate.trim();
      }
    }
    Matcher m = Pattern.compile("\\.execute-api\\.([a-z0-9-]+)\\.amazonaws\\.com").matcher(String.valueOf(endpoint.getHost()));
    if (m.find()) {
      return m.group(1);
    }
    throw new IllegalArgumentException("--aws-sigv4 needs a region: give --region, or set AWS_REGION");
  }
}
