# The functions: Java 21 on arm64, SnapStart on published versions, reached through the alias
# "live" only (the API, the schedule and the coordinator's own Invoke calls all name the alias). The
# task function is deployed once per task-size tier (task_memory_tiers_mb): the same code and role,
# its own memory, reservation, log group and alias.

resource "aws_cloudwatch_log_group" "functions" {
  for_each          = merge({ coordinator = local.coordinator_name }, { for k, t in local.task_tiers : "task-${k}" => t.name })
  name              = "/aws/lambda/${each.value}"
  retention_in_days = var.log_retention_days
  tags              = var.tags
}

resource "aws_lambda_function" "task" {
  for_each                       = local.task_tiers
  function_name                  = each.value.name
  role                           = aws_iam_role.task.arn
  runtime                        = "java21"
  architectures                  = ["arm64"]
  handler                        = local.handler
  s3_bucket                      = aws_s3_object.task_zip.bucket
  s3_key                         = aws_s3_object.task_zip.key
  source_code_hash               = filebase64sha256(local.task_zip)
  memory_size                    = each.value.memory_mb
  timeout                        = var.task_timeout_seconds
  reserved_concurrent_executions = var.task_reserved_concurrency
  publish                        = true

  lifecycle {
    precondition {
      # Task slots counted in the job table must fit the function's reservation, or tasks that hold
      # a slot are throttled by Lambda instead of waiting for one.
      condition     = coalesce(var.account_concurrent_tasks, var.task_reserved_concurrency) <= var.task_reserved_concurrency
      error_message = "account_concurrent_tasks must not exceed task_reserved_concurrency."
    }
  }

  snap_start {
    apply_on = "PublishedVersions"
  }

  environment {
    variables = local.task_environment[each.key]
  }

  logging_config {
    log_format            = "JSON"
    log_group             = aws_cloudwatch_log_group.functions["task-${each.key}"].name
    application_log_level = var.log_level
    system_log_level      = "WARN"
  }

  tags = var.tags

  depends_on = [aws_iam_role_policy.task]
}

resource "aws_lambda_alias" "task" {
  for_each         = local.task_tiers
  name             = local.alias_name
  function_name    = aws_lambda_function.task[each.key].function_name
  function_version = aws_lambda_function.task[each.key].version
}

resource "aws_lambda_function" "coordinator" {
  function_name                  = local.coordinator_name
  role                           = aws_iam_role.coordinator.arn
  runtime                        = "java21"
  architectures                  = ["arm64"]
  handler                        = local.handler
  s3_bucket                      = aws_s3_object.coordinator_zip.bucket
  s3_key                         = aws_s3_object.coordinator_zip.key
  source_code_hash               = filebase64sha256(local.coordinator_zip)
  memory_size                    = var.coordinator_memory_mb
  timeout                        = var.coordinator_timeout_seconds
  reserved_concurrent_executions = var.coordinator_reserved_concurrency
  publish                        = true

  snap_start {
    apply_on = "PublishedVersions"
  }

  environment {
    variables = local.coordinator_environment
  }

  logging_config {
    log_format            = "JSON"
    log_group             = aws_cloudwatch_log_group.functions["coordinator"].name
    application_log_level = var.log_level
    system_log_level      = "WARN"
  }

  tags = var.tags

  lifecycle {
    precondition {
      condition     = local.task_invoke_timeout_seconds < var.coordinator_timeout_seconds
      error_message = "task_timeout_seconds plus the Invoke margin must stay below coordinator_timeout_seconds."
    }

    precondition {
      condition = (var.catalog_type != "rest" || var.rest_catalog_secret_arn != null) && (
      var.catalog_type != "s3tables" || var.s3tables_bucket_arn != null)
      error_message = "catalog_type rest needs rest_catalog_secret_arn; s3tables needs s3tables_bucket_arn."
    }

    precondition {
      condition     = var.catalog_type == "s3tables" || local.warehouse_bucket != null
      error_message = "glue and rest catalogs need warehouse_bucket_name or create_warehouse_bucket = true."
    }
  }

  depends_on = [aws_iam_role_policy.coordinator]
}

resource "aws_lambda_alias" "coordinator" {
  name             = local.alias_name
  function_name    = aws_lambda_function.coordinator.function_name
  function_version = aws_lambda_function.coordinator.version
}

# The API is the only outside caller with a resource-based permission; the schedule invokes
# through its own role, the coordinator through its role.
resource "aws_lambda_permission" "api" {
  statement_id  = "AllowHttpApi"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.coordinator.function_name
  qualifier     = aws_lambda_alias.coordinator.name
  principal     = "apigateway.amazonaws.com"
  source_arn    = "${aws_apigatewayv2_api.squall.execution_arn}/${aws_apigatewayv2_stage.default.name}/*"
}

# The sweep resumes jobs whose coordinator died (docs/job-store.md, sweep index).
resource "aws_scheduler_schedule" "sweep" {
  name                = "${var.name}-sweep"
  schedule_expression = var.sweep_schedule

  flexible_time_window {
    mode = "OFF"
  }

  target {
    arn      = aws_lambda_alias.coordinator.arn
    role_arn = aws_iam_role.scheduler.arn
    input    = jsonencode({ squallAction = "sweep" })

    retry_policy {
      maximum_retry_attempts = 0
    }
  }
}
