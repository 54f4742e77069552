# Inputs of the Squall stack. Defaults suit a first deployment; docs/configuration.md relates them
# to the functions' SQUALL_* settings.

variable "name" {
  description = "Prefix of every resource name (functions, table, roles, log groups)."
  type        = string
  default     = "squall"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,30}$", var.name))
    error_message = "name must be 2-31 characters of lower-case letters, digits and '-', starting with a letter."
  }
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

# --- Artifacts -------------------------------------------------------------------------------

variable "coordinator_zip" {
  description = "Path of the coordinator's function.zip (built by mvn package)."
  type        = string
  default     = null
}

variable "task_zip" {
  description = "Path of the task function's function.zip (built by mvn package)."
  type        = string
  default     = null
}

# --- Functions -------------------------------------------------------------------------------

variable "coordinator_memory_mb" {
  description = "Coordinator memory (MB). Planning with Calcite and the final step's Arrow buffers live here."
  type        = number
  default     = 3008

  validation {
    condition     = var.coordinator_memory_mb >= 1024 && var.coordinator_memory_mb <= 10240
    error_message = "coordinator_memory_mb must be within 1024-10240."
  }
}

variable "coordinator_timeout_seconds" {
  description = "Coordinator timeout. Jobs longer than one invocation are handed to a new one before it ends."
  type        = number
  default     = 900

  validation {
    condition     = var.coordinator_timeout_seconds >= 60 && var.coordinator_timeout_seconds <= 900
    error_message = "coordinator_timeout_seconds must be within 60-900."
  }
}

variable "task_memory_tiers_mb" {
  description = "Task-size tiers: the task function is deployed once per memory size (MB), each its own function and alias; the coordinator runs each stage on the smallest tier its estimated memory fits and retries a task that failed for memory on the next larger tier. Ascending, 1-4 sizes, each 128-10240 (Lambda's range; 1769 MB is one vCPU, 10240 six). Tasks budget 60% of their tier's memory for Arrow buffers. One size deploys one task function as before."
  type        = list(number)
  default     = [1024, 3072, 10240]

  validation {
    condition     = length(var.task_memory_tiers_mb) >= 1 && length(var.task_memory_tiers_mb) <= 4
    error_message = "task_memory_tiers_mb must list 1 to 4 memory sizes."
  }

  validation {
    condition     = alltrue([for mb in var.task_memory_tiers_mb : mb >= 128 && mb <= 10240 && floor(mb) == mb])
    error_message = "each of task_memory_tiers_mb must be a whole number of MB within 128-10240."
  }

  validation {
    condition     = alltrue([for i in range(1, length(var.task_memory_tiers_mb)) : var.task_memory_tiers_mb[i] > var.task_memory_tiers_mb[i - 1]])
    error_message = "task_memory_tiers_mb must be sorted ascending, without repeats."
  }
}

variable "task_timeout_seconds" {
  description = "Task function timeout. The coordinator's Invoke client waits this long plus a margin."
  type        = number
  default     = 300

  validation {
    condition     = var.task_timeout_seconds >= 30 && var.task_timeout_seconds <= 840
    error_message = "task_timeout_seconds must be within 30-840 (below the coordinator's 900 s ceiling with its margin)."
  }
}

variable "task_reserved_concurrency" {
  description = "Reserved concurrency of each task tier's function: its share of the account's concurrency, and its ceiling. Every tier reserves it in full, because the task slots the job table counts (account_concurrent_tasks, at most this) are shared by all tiers and one stage's tasks may all run on one tier; the account gives up this times the number of tiers."
  type        = number
  default     = 200

  validation {
    condition     = var.task_reserved_concurrency >= 1
    error_message = "task_reserved_concurrency must be at least 1."
  }
}

variable "coordinator_reserved_concurrency" {
  description = "Reserved concurrency of the coordinator, its own pool apart from the task function's: all but a quarter of it (at least one) for running queries (SQUALL_MAX_RUNNING_QUERIES; a submission beyond them is answered 429), the rest for status, result and cancel requests and the sweep. Taken out of the account's unreserved concurrency, which Lambda keeps at 100 or more."
  type        = number
  default     = 10

  validation {
    condition     = var.coordinator_reserved_concurrency >= 2 && var.coordinator_reserved_concurrency <= 10000
    error_message = "coordinator_reserved_concurrency must be within 2-10000 (one running query and one request beside it)."
  }
}

variable "max_concurrent_tasks" {
  description = "Task invocations one coordinator keeps in flight (SQUALL_MAX_CONCURRENT_TASKS)."
  type        = number
  default     = 64

  validation {
    condition     = var.max_concurrent_tasks >= 1 && var.max_concurrent_tasks <= 1000
    error_message = "max_concurrent_tasks must be within 1-1000."
  }
}

variable "fanout_threshold" {
  description = "Tasks of one stage above which the coordinator starts them through about sqrt(N) invoker invocations of the task function (SQUALL_FANOUT_THRESHOLD); 0 turns two-level invocation off and leaves the task role without any Lambda right."
  type        = number
  default     = 256

  validation {
    condition     = var.fanout_threshold >= 0 && var.fanout_threshold <= 100000
    error_message = "fanout_threshold must be within 0-100000."
  }
}

variable "account_concurrent_tasks" {
  description = "Task invocations running at once for all queries of all coordinators, counted in the job table (SQUALL_ACCOUNT_CONCURRENT_TASKS); at most the task function's reserved concurrency, beyond which Lambda answers 429; null: that reserved concurrency."
  type        = number
  default     = null

  validation {
    condition     = var.account_concurrent_tasks == null ? true : var.account_concurrent_tasks >= 1 && var.account_concurrent_tasks <= 10000
    error_message = "account_concurrent_tasks must be within 1-10000."
  }
}

variable "sync_wait_seconds" {
  description = "How long a synchronous query is awaited before the API answers 202 (SQUALL_SYNC_WAIT_SECONDS); below the API's 30 s integration timeout."
  type        = number
  default     = 25

  validation {
    condition     = var.sync_wait_seconds >= 1 && var.sync_wait_seconds <= 27
    error_message = "sync_wait_seconds must be within 1-27 so that the answer leaves before API Gateway's 30 s timeout."
  }
}

variable "job_retention_hours" {
  description = "How long finished jobs stay in the job table (SQUALL_JOB_RETENTION_HOURS)."
  type        = number
  default     = 24
}

variable "sweep_schedule" {
  description = "EventBridge Scheduler expression of the coordinator's sweep (resumes jobs whose coordinator died)."
  type        = string
  default     = "rate(1 minute)"
}

variable "log_retention_days" {
  description = "Retention of the functions' and the API's log groups."
  type        = number
  default     = 14
}

variable "log_level" {
  description = "Lambda application log level (JSON logs)."
  type        = string
  default     = "INFO"
}

# --- Storage -------------------------------------------------------------------------------

variable "shuffle_bucket_name" {
  description = "Name of the bucket created for shuffle data, plans, results and the function zips; null derives one from name, account and region."
  type        = string
  default     = null
}

variable "shuffle_expiry_days" {
  description = "Days after which objects under jobs/ (shuffle data, plans) expire; deletion on job end is the normal path."
  type        = number
  default     = 2
}

variable "results_expiry_days" {
  description = "Days after which result objects under results/ expire."
  type        = number
  default     = 2
}

variable "kms_key_arn" {
  description = "KMS key for the buckets and the job table; null uses S3-managed keys (SSE-S3) and DynamoDB's AWS-owned key."
  type        = string
  default     = null
}

variable "create_warehouse_bucket" {
  description = "Create a bucket for the Iceberg warehouse; false uses warehouse_bucket_name as it is."
  type        = bool
  default     = false
}

variable "warehouse_bucket_name" {
  description = "Bucket of the Iceberg tables' data and metadata (existing, or the name to create)."
  type        = string
  default     = null
}

variable "warehouse_prefix" {
  description = "Prefix under the warehouse bucket where tables live (no leading or trailing '/'; empty for the whole bucket)."
  type        = string
  default     = ""
}

variable "warehouse_writable" {
  description = "Whether queries may write tables (INSERT, CREATE TABLE AS): grants object writes under the warehouse prefix."
  type        = bool
  default     = true
}

# --- Catalog -------------------------------------------------------------------------------

variable "catalog_type" {
  description = "Iceberg catalog: glue (AWS Glue Data Catalog), rest (an Iceberg REST catalog, URI and credentials in Secrets Manager) or s3tables (Amazon S3 Tables)."
  type        = string
  default     = "glue"

  validation {
    condition     = contains(["glue", "rest", "s3tables"], var.catalog_type)
    error_message = "catalog_type must be glue, rest or s3tables."
  }
}

variable "glue_databases" {
  description = "Glue databases the coordinator may read and commit to (catalog_type = glue)."
  type        = list(string)
  default     = ["default"]
}

variable "rest_catalog_secret_arn" {
  description = "Secrets Manager secret of the REST catalog (catalog_type = rest): JSON with uri and either credential (client_id:client_secret) or token, optionally warehouse."
  type        = string
  default     = null
}

variable "s3tables_bucket_arn" {
  description = "ARN of the S3 table bucket (catalog_type = s3tables)."
  type        = string
  default     = null
}

# --- API -------------------------------------------------------------------------------

variable "authorizer_type" {
  description = "How callers authenticate: iam (SigV4-signed requests) or jwt (bearer tokens from Cognito or any OIDC issuer)."
  type        = string
  default     = "iam"

  validation {
    condition     = contains(["iam", "jwt"], var.authorizer_type)
    error_message = "authorizer_type must be iam or jwt."
  }
}

variable "jwt_issuer" {
  description = "Issuer URL of the JWT authorizer (authorizer_type = jwt), e.g. https://cognito-idp.REGION.amazonaws.com/POOL_ID."
  type        = string
  default     = null
}

variable "jwt_audience" {
  description = "Accepted audiences (client ids) of the JWT authorizer."
  type        = list(string)
  default     = []
}

variable "throttling_rate_limit" {
  description = "Steady-state requests per second the API accepts."
  type        = number
  default     = 50
}

variable "throttling_burst_limit" {
  description = "Burst of requests the API accepts."
  type        = number
  default     = 100
}

variable "schema_allow_list" {
  description = "Schemas (namespaces) each caller identity may query, keyed by identity (an IAM principal ARN or a JWT 'iss|sub'); '*' keys the default for identities not listed. Empty: no restriction (SQUALL_SCHEMA_ALLOW_LIST)."
  type        = map(list(string))
  default     = {}
}
