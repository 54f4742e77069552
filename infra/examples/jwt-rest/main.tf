# Squall over an Iceberg REST catalog (URI and credentials in Secrets Manager), called with JWT
# bearer tokens from a Cognito user pool or any OIDC issuer, in a new warehouse bucket.

terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.40"
    }
  }
}

variable "region" {
  type    = string
  default = "us-east-1"
}

variable "rest_catalog_secret_arn" {
  description = "Secret with JSON {\"uri\": ..., \"credential\": \"id:secret\"} or {\"uri\": ..., \"token\": ...}."
  type        = string
}

variable "jwt_issuer" {
  type = string
}

variable "jwt_audience" {
  type = list(string)
}

provider "aws" {
  region = var.region
}

module "squall" {
  source = "../.."

  name                    = "squall-rest"
  catalog_type            = "rest"
  rest_catalog_secret_arn = var.rest_catalog_secret_arn
  create_warehouse_bucket = true
  authorizer_type         = "jwt"
  jwt_issuer              = var.jwt_issuer
  jwt_audience            = var.jwt_audience
  task_memory_tiers_mb    = [1769, 7076]
  task_timeout_seconds    = 600
  log_retention_days      = 30
}

output "api_endpoint" {
  value = module.squall.api_endpoint
}
