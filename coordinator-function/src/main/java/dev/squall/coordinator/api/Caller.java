package dev.squall.coordinator.api;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Who sent a request, as API Gateway's authorizer reported it in the event's
 * {@code requestContext.authorizer}: for the IAM authorizer the signing principal's ARN
 * ({@code iam.userArn}, e.g. {@code arn:aws:sts::123456789012:assumed-role/analyst/alice}); for a
 * JWT authorizer the token's issuer and subject as {@code <iss>|<sub>}. A job belongs to the caller
 * that submitted it; other callers are told it does not exist.
 *
 * @param id the identity; empty when the request carried none (a deployment without an authorizer)
 */
public record Caller(String id) {
  /** No identity: the local stack without one, or an API without an authorizer. */
  public static final Caller NONE = new Caller("");

  public Caller {
    id = id == null ? "" : id;
  }

  /**
   * The caller named by an API Gateway HTTP API (payload 2.0) event's authorizer context; {@link
   * #NONE} when it has none.
   */
  public static Caller fromEvent(JsonNode event) {
    JsonNode authorizer = event.path("requestContext").path("authorizer");
    JsonNode iam = authorizer.path("iam");
    String userArn = iam.path("userArn").asText("");
    if (!userArn.isEmpty()) {
      return new Caller(userArn);
    }
    JsonNode claims = authorizer.path("jwt").path("claims");
    String sub = claims.path("sub").asText("");
    if (!sub.isEmpty()) {
      return new Caller(claims.path("iss").asText("") + "|" + sub);
    }
    String principal = authorizer.path("principalId").asText("");
    return principal.isEmpty() ? NONE : new Caller(principal);
  }

  /** Whether this caller may see a job submitted by {@code owner} (the same identity). */
  public boolean owns(String owner) {
    return id.equals(owner == null ? "" : owner);
  }
}
