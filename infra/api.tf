# The HTTP API (payload format 2.0) in front of the coordinator's alias. Every route sits behind
# the authorizer: IAM (SigV4) by default, or a JWT authorizer for Cognito or any OIDC issuer. The
# coordinator keys each job to the caller identity the authorizer reports.

locals {
  authorization_types = {
    iam = "AWS_IAM"
    jwt = "JWT"
  }

  routes = toset([
    "POST /v1/queries",
    "GET /v1/queries/{id}",
    "GET /v1/queries/{id}/result",
    "DELETE /v1/queries/{id}",
    "GET /v1/health",
  ])
}

resource "aws_apigatewayv2_api" "squall" {
  name          = var.name
  protocol_type = "HTTP"
  description   = "Squall SQL query API"
  tags          = var.tags
}

resource "aws_apigatewayv2_authorizer" "jwt" {
  count            = var.authorizer_type == "jwt" ? 1 : 0
  api_id           = aws_apigatewayv2_api.squall.id
  name             = "${var.name}-jwt"
  authorizer_type  = "JWT"
  identity_sources = ["$request.header.Authorization"]

  jwt_configuration {
    issuer   = var.jwt_issuer
    audience = var.jwt_audience
  }

  lifecycle {
    precondition {
      condition     = var.jwt_issuer != null && length(var.jwt_audience) > 0
      error_message = "authorizer_type jwt needs jwt_issuer and at least one jwt_audience."
    }
  }
}

resource "aws_apigatewayv2_integration" "coordinator" {
  api_id                 = aws_apigatewayv2_api.squall.id
  integration_type       = "AWS_PROXY"
  integration_uri        = aws_lambda_alias.coordinator.invoke_arn
  payload_format_version = "2.0"
  timeout_milliseconds   = local.api_integration_timeout_ms
}

resource "aws_apigatewayv2_route" "squall" {
  for_each           = local.routes
  api_id             = aws_apigatewayv2_api.squall.id
  route_key          = each.value
  target             = "integrations/${aws_apigatewayv2_integration.coordinator.id}"
  authorization_type = local.authorization_types[var.authorizer_type]
  authorizer_id      = var.authorizer_type == "jwt" ? aws_apigatewayv2_authorizer.jwt[0].id : null
}

resource "aws_cloudwatch_log_group" "api" {
  name              = "/aws/apigateway/${var.name}"
  retention_in_days = var.log_retention_days
  tags              = var.tags
}

resource "aws_apigatewayv2_stage" "default" {
  api_id      = aws_apigatewayv2_api.squall.id
  name        = "$default"
  auto_deploy = true

  default_route_settings {
    throttling_rate_limit  = var.throttling_rate_limit
    throttling_burst_limit = var.throttling_burst_limit
  }

  access_log_settings {
    destination_arn = aws_cloudwatch_log_group.api.arn
    format = jsonencode({
      requestId          = "$context.requestId"
      requestTime        = "$context.requestTime"
      sourceIp           = "$context.identity.sourceIp"
      caller             = "$context.identity.caller"
      userArn            = "$context.identity.userArn"
      jwtSubject         = "$context.authorizer.claims.sub"
      routeKey           = "$context.routeKey"
      status             = "$context.status"
      responseLength     = "$context.responseLength"
      integrationLatency = "$context.integrationLatency"
      integrationError   = "$context.integrationErrorMessage"
      authorizerError    = "$context.authorizer.error"
    })
  }

  tags = var.tags
}
