# The job table, as docs/job-store.md describes it.

resource "aws_dynamodb_table" "jobs" {
  name         = "${var.name}-jobs"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "job_id"
  range_key    = "item"

  attribute {
    name = "job_id"
    type = "S"
  }

  attribute {
    name = "item"
    type = "S"
  }

  attribute {
    name = "sweep"
    type = "S"
  }

  attribute {
    name = "sweep_key"
    type = "S"
  }

  # Sparse: only unfinished jobs carry "sweep", so the sweep reads exactly those.
  global_secondary_index {
    name            = "unfinished"
    hash_key        = "sweep"
    range_key       = "sweep_key"
    projection_type = "KEYS_ONLY"
  }

  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled     = var.kms_key_arn != null
    kms_key_arn = var.kms_key_arn
  }

  tags = var.tags
}
