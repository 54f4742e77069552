# Squall on AWS: an HTTP API in front of the coordinator function, which plans queries, keeps jobs
# in DynamoDB and fans tasks out to the task function; shuffle data and results live in S3.

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  account   = data.aws_caller_identity.current.account_id
  partition = data.aws_partition.current.partition
  region    = data.aws_region.current.name

  # Task-size tiers, keyed by memory (MB) as a string: one function "<name>-task-<MB>" and its alias
  # "live" each. Names and ARNs are built from names, not resource attributes, so that the task role,
  # the coordinator's environment and each function's own environment can name them without a cycle.
  task_tiers = { for mb in var.task_memory_tiers_mb : tostring(mb) => {
    name      = "${var.name}-task-${mb}"
    memory_mb = mb
    alias_arn = "arn:${local.partition}:lambda:${local.region}:${local.account}:function:${var.name}-task-${mb}:${local.alias_name}"
  } }
  # The smallest tier: the default task function (SQUALL_TASK_FUNCTION, SQUALL_TASK_MEMORY_MB).
  task_memory_mb  = var.task_memory_tiers_mb[0]
  smallest_tier   = tostring(var.task_memory_tiers_mb[0])
  task_alias_arns = [for t in values(local.task_tiers) : t.alias_arn]

  # The coordinator waits for a synchronous task Invoke the task function's timeout plus this margin
  # (CoordinatorEnvironment.TASK_INVOKE_MARGIN), so that a slow task ends as its own timeout error
  # and not as a client-side read timeout; that wait must end before the coordinator's own timeout.
  task_invoke_margin_seconds  = 30
  task_invoke_timeout_seconds = var.task_timeout_seconds + local.task_invoke_margin_seconds

  # API Gateway HTTP APIs answer within 30 s at most; the coordinator answers a synchronous query
  # after sync_wait_seconds, leaving the rest for encoding the answer.
  api_integration_timeout_ms = 30000

  coordinator_name = "${var.name}-coordinator"
  alias_name       = "live"

  # Built from names, not resource attributes, so that the coordinator's role and environment can
  # name the function itself without a dependency cycle.
  coordinator_arn = "arn:${local.partition}:lambda:${local.region}:${local.account}:function:${local.coordinator_name}"

  shuffle_bucket   = coalesce(var.shuffle_bucket_name, "${var.name}-shuffle-${local.account}-${local.region}")
  warehouse_bucket = var.create_warehouse_bucket ? aws_s3_bucket.warehouse[0].bucket : var.warehouse_bucket_name
  warehouse_path   = var.warehouse_prefix == "" ? "" : "${var.warehouse_prefix}/"
  warehouse_uri    = local.warehouse_bucket == null ? null : "s3://${local.warehouse_bucket}/${var.warehouse_prefix}"

  coordinator_zip = coalesce(var.coordinator_zip, "${path.module}/../coordinator-function/target/function.zip")
  task_zip        = coalesce(var.task_zip, "${path.module}/../task-function/target/function.zip")

  # Arrow reaches into java.nio buffers; Java 17+ needs the module opened for it.
  java_tool_options = "--add-opens=java.base/java.nio=ALL-UNNAMED"

  # Quarkus' Lambda runtime calls the project's RequestStreamHandler through this entry point.
  handler = "io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler::handleRequest"

  catalog_env = {
    glue = {
      SQUALL_CATALOG_TYPE      = "glue"
      SQUALL_CATALOG_WAREHOUSE = local.warehouse_uri
    }
    rest = {
      SQUALL_CATALOG_TYPE   = "rest"
      SQUALL_CATALOG_SECRET = var.rest_catalog_secret_arn
    }
    s3tables = {
      SQUALL_CATALOG_TYPE      = "s3tables"
      SQUALL_CATALOG_WAREHOUSE = var.s3tables_bucket_arn
    }
  }

  # Queries running at once: the coordinator's reservation but a quarter of it (at least one), which
  # stays free for status, result and cancel requests (as JobSettings.runningQueriesFor).
  max_running_queries = var.coordinator_reserved_concurrency - max(1, floor(var.coordinator_reserved_concurrency / 4))

  coordinator_settings = {
    JAVA_TOOL_OPTIONS               = local.java_tool_options
    SQUALL_TASK_FUNCTION            = aws_lambda_alias.task[local.smallest_tier].arn
    SQUALL_TASK_TIERS               = jsonencode([for mb in var.task_memory_tiers_mb : { function = aws_lambda_alias.task[tostring(mb)].arn, memoryMb = mb }])
    SQUALL_SELF_FUNCTION            = "${local.coordinator_arn}:${local.alias_name}"
    SQUALL_SHUFFLE_BUCKET           = aws_s3_bucket.shuffle.bucket
    SQUALL_JOB_TABLE                = aws_dynamodb_table.jobs.name
    SQUALL_MAX_CONCURRENT_TASKS     = tostring(var.max_concurrent_tasks)
    SQUALL_ACCOUNT_CONCURRENT_TASKS = tostring(coalesce(var.account_concurrent_tasks, var.task_reserved_concurrency))
    SQUALL_MAX_RUNNING_QUERIES      = tostring(local.max_running_queries)
    SQUALL_TASK_MEMORY_MB           = tostring(local.task_memory_mb)
    SQUALL_TASK_TIMEOUT_SECONDS     = tostring(var.task_timeout_seconds)
    SQUALL_SYNC_WAIT_SECONDS        = tostring(var.sync_wait_seconds)
    SQUALL_JOB_RETENTION_HOURS      = tostring(var.job_retention_hours)
    SQUALL_SCHEMA_ALLOW_LIST        = length(var.schema_allow_list) == 0 ? "" : jsonencode(var.schema_allow_list)
    SQUALL_FANOUT_THRESHOLD         = tostring(var.fanout_threshold)
  }

  coordinator_environment = merge(
    local.coordinator_settings,
    { for k, v in local.catalog_env[var.catalog_type] : k => v if v != null },
  )

  # Per tier, SQUALL_TASK_FUNCTION: the alias an invoker invocation invokes tasks on, its own tier's
  # (built from names: the function cannot name its own alias resource).
  task_environment = { for k, t in local.task_tiers : k => {
    JAVA_TOOL_OPTIONS    = local.java_tool_options
    SQUALL_TASK_FUNCTION = t.alias_arn
  } }
}
