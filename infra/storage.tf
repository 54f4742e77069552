# S3: one bucket for shuffle data (jobs/<id>/...), plans, results (results/<id>...) and the
# function zips (artifacts/), optionally one for the Iceberg warehouse. Both are encrypted, closed
# to the public and reachable over TLS only.

resource "aws_s3_bucket" "shuffle" {
  bucket        = local.shuffle_bucket
  force_destroy = true
  tags          = var.tags
}

resource "aws_s3_bucket" "warehouse" {
  count  = var.create_warehouse_bucket ? 1 : 0
  bucket = coalesce(var.warehouse_bucket_name, "${var.name}-warehouse-${local.account}-${local.region}")
  tags   = var.tags
}

locals {
  # Buckets this stack owns: every one gets the same protections.
  owned_buckets = merge(
    { shuffle = aws_s3_bucket.shuffle },
    var.create_warehouse_bucket ? { warehouse = aws_s3_bucket.warehouse[0] } : {},
  )
}

resource "aws_s3_bucket_public_access_block" "owned" {
  for_each                = local.owned_buckets
  bucket                  = each.value.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "owned" {
  for_each = local.owned_buckets
  bucket   = each.value.id

  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "owned" {
  for_each = local.owned_buckets
  bucket   = each.value.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = var.kms_key_arn == null ? "AES256" : "aws:kms"
      kms_master_key_id = var.kms_key_arn
    }
    bucket_key_enabled = var.kms_key_arn != null
  }
}

data "aws_iam_policy_document" "tls_only" {
  for_each = local.owned_buckets

  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["s3:*"]
    resources = [each.value.arn, "${each.value.arn}/*"]

    principals {
      type        = "*"
      identifiers = ["*"]
    }

    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "owned" {
  for_each = local.owned_buckets
  bucket   = each.value.id
  policy   = data.aws_iam_policy_document.tls_only[each.key].json

  depends_on = [aws_s3_bucket_public_access_block.owned]
}

# Shuffle data and results are deleted when their job ends; expiry catches what a dead job left.
resource "aws_s3_bucket_lifecycle_configuration" "shuffle" {
  bucket = aws_s3_bucket.shuffle.id

  rule {
    id     = "expire-jobs"
    status = "Enabled"

    filter {
      prefix = "jobs/"
    }

    expiration {
      days = var.shuffle_expiry_days
    }
  }

  rule {
    id     = "expire-results"
    status = "Enabled"

    filter {
      prefix = "results/"
    }

    expiration {
      days = var.results_expiry_days
    }
  }

  rule {
    id     = "abort-incomplete-uploads"
    status = "Enabled"

    filter {
      prefix = ""
    }

    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }
  }
}

resource "aws_s3_bucket_versioning" "warehouse" {
  count  = var.create_warehouse_bucket ? 1 : 0
  bucket = aws_s3_bucket.warehouse[0].id

  versioning_configuration {
    status = "Enabled"
  }
}

# The zips go through S3: the coordinator's is over Lambda's 50 MB direct-upload limit.
resource "aws_s3_object" "coordinator_zip" {
  bucket      = aws_s3_bucket.shuffle.id
  key         = "artifacts/coordinator-${filemd5(local.coordinator_zip)}.zip"
  source      = local.coordinator_zip
  source_hash = filemd5(local.coordinator_zip)
  tags        = var.tags
}

resource "aws_s3_object" "task_zip" {
  bucket      = aws_s3_bucket.shuffle.id
  key         = "artifacts/task-${filemd5(local.task_zip)}.zip"
  source      = local.task_zip
  source_hash = filemd5(local.task_zip)
  tags        = var.tags
}
