output "api_endpoint" {
  description = "Base URL of the query API, e.g. for bin/squall query --endpoint."
  value       = aws_apigatewayv2_api.squall.api_endpoint
}

output "coordinator_function" {
  description = "Name of the coordinator function."
  value       = aws_lambda_function.coordinator.function_name
}

output "coordinator_alias_arn" {
  description = "ARN of the coordinator alias the API and the sweep invoke."
  value       = aws_lambda_alias.coordinator.arn
}

output "task_functions" {
  description = "Names of the task function's tiers, by memory (MB)."
  value       = { for k, f in aws_lambda_function.task : k => f.function_name }
}

output "shuffle_bucket" {
  description = "Bucket of shuffle data, results and function zips."
  value       = aws_s3_bucket.shuffle.bucket
}

output "warehouse_bucket" {
  description = "Bucket of the Iceberg warehouse (null for S3 Tables)."
  value       = local.warehouse_bucket
}

output "job_table" {
  description = "Name of the DynamoDB job table."
  value       = aws_dynamodb_table.jobs.name
}

output "region" {
  description = "Region of the stack (for SigV4 signing)."
  value       = local.region
}
