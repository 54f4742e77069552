package dev.squall.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Caller identities from the authorizer contexts API Gateway HTTP APIs send (payload format 2.0). */
class CallerTest {
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void iamAuthorizerNamesTheSigningPrincipal() throws Exception {
    var event = json.readTree("""
        {"requestContext": {"authorizer": {"iam": {"accessKey": "AKIAEXAMPLE", "accountId": "123456789012",
          "callerId": "AROAEXAMPLE:alice", "principalOrgId": null,
          "userArn": "arn:aws:sts::123456789012:assumed-role/analyst/alice", "userId": "AROAEXAMPLE:alice"}},
          "http": {"method": "GET"}}}""");
    assertThat(Caller.fromEvent(event).id()).isEqualTo("arn:aws:sts::123456789012:assumed-role/analyst/alice");
  }

  @Test
  void jwtAuthorizerNamesIssuerAndSubject() throws Exception {
    var event = json.readTree("""
        {"requestContext": {"authorizer": {"jwt": {"claims": {"iss": "https://cognito-idp.eu-west-1.amazonaws.com/pool",
          "sub": "5f1c-bob", "aud": "client"}, "scopes": null}}, "http": {"method": "GET"}}}""");
    assertThat(Caller.fromEvent(event).id()).isEqualTo("https://cognito-idp.eu-west-1.amazonaws.com/pool|5f1c-bob");
  }

  @Test
  void noAuthorizerIsNoIdentityAndOwnsOnlyJobsWithout() throws Exception {
    Caller none = Caller.fromEvent(json.readTree("{\"requestContext\": {\"http\": {\"method\": \"GET\"}}}"));
    assertThat(none).isEqualTo(Caller.NONE);
    assertThat(none.owns("")).isTrue();
    assertThat(none.owns("arn:aws:iam::1:user/x")).isFalse();
    assertThat(new Caller("arn:aws:iam::1:user/x").owns("")).isFalse();
  }
}
