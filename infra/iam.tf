# Least privilege. The task role reads the warehouse's data paths (and writes data files under it
# when writes are allowed) and reads/writes the shuffle bucket's jobs/ prefix: no catalog or job
# table rights, and no Lambda rights unless two-level invocation is on (fanout_threshold > 0), when
# it may invoke the task tiers' live aliases and nothing else (an invoker invocation runs on a tier
# and forwards the task payloads the coordinator gave it to that tier). One task role serves every
# tier. The coordinator role holds the catalog, the job table, both buckets and the right to invoke
# each task tier's alias and itself.

data "aws_iam_policy_document" "lambda_assume" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account]
    }
  }
}

locals {
  shuffle_arn     = aws_s3_bucket.shuffle.arn
  warehouse_arn   = local.warehouse_bucket == null ? null : "arn:${local.partition}:s3:::${local.warehouse_bucket}"
  table_arn       = aws_dynamodb_table.jobs.arn
  log_group_arns  = { for k, g in aws_cloudwatch_log_group.functions : k => "${g.arn}:*" }
  use_warehouse   = var.catalog_type != "s3tables" && local.warehouse_bucket != null
  warehouse_write = ["s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"]
}

# --- Task function -------------------------------------------------------------------------

resource "aws_iam_role" "task" {
  name               = "${var.name}-task-role"
  assume_role_policy = data.aws_iam_policy_document.lambda_assume.json
  tags               = var.tags
}

data "aws_iam_policy_document" "task" {
  statement {
    sid       = "Logs"
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = [for k, t in local.task_tiers : local.log_group_arns["task-${k}"]]
  }

  statement {
    sid       = "ShuffleObjects"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"]
    resources = ["${local.shuffle_arn}/jobs/*"]
  }

  statement {
    sid       = "ShuffleList"
    actions   = ["s3:ListBucket"]
    resources = [local.shuffle_arn]

    condition {
      test     = "StringLike"
      variable = "s3:prefix"
      values   = ["jobs/*"]
    }
  }

  dynamic "statement" {
    for_each = local.use_warehouse ? [1] : []

    content {
      sid       = "WarehouseRead"
      actions   = ["s3:GetObject"]
      resources = ["${local.warehouse_arn}/${local.warehouse_path}*"]
    }
  }

  dynamic "statement" {
    for_each = local.use_warehouse && var.warehouse_writable ? [1] : []

    content {
      sid       = "WarehouseWriteDataFiles"
      actions   = local.warehouse_write
      resources = ["${local.warehouse_arn}/${local.warehouse_path}*"]
    }
  }

  dynamic "statement" {
    for_each = var.catalog_type == "s3tables" ? [1] : []

    content {
      sid       = "TableData"
      actions   = var.warehouse_writable ? ["s3tables:GetTableData", "s3tables:PutTableData"] : ["s3tables:GetTableData"]
      resources = ["${var.s3tables_bucket_arn}/table/*"]
    }
  }

  dynamic "statement" {
    for_each = var.fanout_threshold > 0 ? [1] : []

    content {
      sid       = "InvokeTasksAsInvoker"
      actions   = ["lambda:InvokeFunction"]
      resources = local.task_alias_arns
    }
  }

  dynamic "statement" {
    for_each = var.kms_key_arn == null ? [] : [1]

    content {
      sid       = "Kms"
      actions   = ["kms:Decrypt", "kms:GenerateDataKey"]
      resources = [var.kms_key_arn]
    }
  }
}

resource "aws_iam_role_policy" "task" {
  name   = "squall-task"
  role   = aws_iam_role.task.id
  policy = data.aws_iam_policy_document.task.json
}

# --- Coordinator function ------------------------------------------------------------------

resource "aws_iam_role" "coordinator" {
  name               = "${local.coordinator_name}-role"
  assume_role_policy = data.aws_iam_policy_document.lambda_assume.json
  tags               = var.tags
}

data "aws_iam_policy_document" "coordinator" {
  statement {
    sid       = "Logs"
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = [local.log_group_arns["coordinator"]]
  }

  # DeleteItem: a lost winner is discarded, a concurrency slot given back.
  statement {
    sid       = "JobTable"
    actions   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:DescribeTable"]
    resources = [local.table_arn, "${local.table_arn}/index/unfinished"]
  }

  # Tasks only through each tier's alias (SQUALL_TASK_TIERS); itself for continuations.
  statement {
    sid       = "InvokeTaskTiersAndSelf"
    actions   = ["lambda:InvokeFunction"]
    resources = concat(local.task_alias_arns, [local.coordinator_arn, "${local.coordinator_arn}:*"])
  }

  statement {
    sid       = "ShuffleAndResultObjects"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"]
    resources = ["${local.shuffle_arn}/jobs/*", "${local.shuffle_arn}/results/*"]
  }

  statement {
    sid       = "ShuffleList"
    actions   = ["s3:ListBucket"]
    resources = [local.shuffle_arn]

    condition {
      test     = "StringLike"
      variable = "s3:prefix"
      values   = ["jobs/*", "results/*"]
    }
  }

  dynamic "statement" {
    for_each = local.use_warehouse ? [1] : []

    content {
      sid       = "WarehouseObjects"
      actions   = var.warehouse_writable ? concat(["s3:GetObject"], local.warehouse_write) : ["s3:GetObject"]
      resources = ["${local.warehouse_arn}/${local.warehouse_path}*"]
    }
  }

  dynamic "statement" {
    for_each = local.use_warehouse ? [1] : []

    content {
      sid       = "WarehouseList"
      actions   = ["s3:ListBucket"]
      resources = [local.warehouse_arn]
    }
  }

  dynamic "statement" {
    for_each = var.catalog_type == "glue" ? [1] : []

    content {
      sid = "GlueCatalog"
      actions = concat(
        ["glue:GetDatabase", "glue:GetDatabases", "glue:GetTable", "glue:GetTables"],
        var.warehouse_writable ? ["glue:CreateTable", "glue:UpdateTable"] : [],
      )
      resources = concat(
        ["arn:${local.partition}:glue:${local.region}:${local.account}:catalog"],
        [for db in var.glue_databases : "arn:${local.partition}:glue:${local.region}:${local.account}:database/${db}"],
        [for db in var.glue_databases : "arn:${local.partition}:glue:${local.region}:${local.account}:table/${db}/*"],
      )
    }
  }

  dynamic "statement" {
    for_each = var.catalog_type == "rest" ? [1] : []

    content {
      sid       = "RestCatalogSecret"
      actions   = ["secretsmanager:GetSecretValue"]
      resources = [var.rest_catalog_secret_arn]
    }
  }

  dynamic "statement" {
    for_each = var.catalog_type == "s3tables" ? [1] : []

    content {
      sid = "S3TablesCatalog"
      actions = concat(
        ["s3tables:GetTableBucket", "s3tables:GetNamespace", "s3tables:ListNamespaces", "s3tables:GetTable",
        "s3tables:ListTables", "s3tables:GetTableMetadataLocation", "s3tables:GetTableData"],
        var.warehouse_writable ? ["s3tables:CreateTable", "s3tables:UpdateTableMetadataLocation", "s3tables:PutTableData"] : [],
      )
      resources = [var.s3tables_bucket_arn, "${var.s3tables_bucket_arn}/*"]
    }
  }

  dynamic "statement" {
    for_each = var.kms_key_arn == null ? [] : [1]

    content {
      sid       = "Kms"
      actions   = ["kms:Decrypt", "kms:GenerateDataKey"]
      resources = [var.kms_key_arn]
    }
  }
}

resource "aws_iam_role_policy" "coordinator" {
  name   = "squall-coordinator"
  role   = aws_iam_role.coordinator.id
  policy = data.aws_iam_policy_document.coordinator.json
}

# --- Scheduler -----------------------------------------------------------------------------

data "aws_iam_policy_document" "scheduler_assume" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["scheduler.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account]
    }
  }
}

resource "aws_iam_role" "scheduler" {
  name               = "${var.name}-sweep-scheduler-role"
  assume_role_policy = data.aws_iam_policy_document.scheduler_assume.json
  tags               = var.tags
}

data "aws_iam_policy_document" "scheduler" {
  statement {
    sid       = "InvokeCoordinatorSweep"
    actions   = ["lambda:InvokeFunction"]
    resources = [aws_lambda_alias.coordinator.arn]
  }
}

resource "aws_iam_role_policy" "scheduler" {
  name   = "squall-sweep"
  role   = aws_iam_role.scheduler.id
  policy = data.aws_iam_policy_document.scheduler.json
}
