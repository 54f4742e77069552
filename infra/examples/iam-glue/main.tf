# Squall over existing Glue tables, called with SigV4-signed requests (IAM authorizer).
#
#   terraform init && terraform apply -var warehouse_bucket=my-lake -var 'glue_databases=["sales"]'

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

variable "warehouse_bucket" {
  description = "Existing bucket holding the Glue tables' Iceberg data and metadata."
  type        = string
}

variable "warehouse_prefix" {
  type    = string
  default = ""
}

variable "glue_databases" {
  type    = list(string)
  default = ["default"]
}

provider "aws" {
  region = var.region
}

module "squall" {
  source = "../.."

  name                  = "squall"
  warehouse_bucket_name = var.warehouse_bucket
  warehouse_prefix      = var.warehouse_prefix
  glue_databases        = var.glue_databases
  authorizer_type       = "iam"
  task_memory_tiers_mb  = [1024, 3538]
  tags                  = { project = "squall" }
}

output "api_endpoint" {
  value = module.squall.api_endpoint
}

output "region" {
  value = module.squall.region
}
