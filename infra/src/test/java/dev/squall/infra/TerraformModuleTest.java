package dev.squall.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.squall.coordinator.CoordinatorEnvironment;
import dev.squall.coordinator.CoordinatorSettings;
import dev.squall.coordinator.job.JobSettings;
import dev.squall.coordinator.scheduler.TaskTiers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Terraform module in {@code infra/}, parsed (not applied): the API authenticates every route,
 * the task role holds no catalog, job table, Lambda or IAM rights, the buckets are closed,
 * encrypted, TLS-only and expire shuffle and result objects, the functions are deployed as the
 * code expects, and the timeouts along a query's path agree with the coordinator's own settings.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TerraformModuleTest {
  /** The routes HttpApi serves (docs/api.md). */
  private static final Set<String> API_ROUTES = Set.of("POST /v1/queries", "GET /v1/queries/{id}",
      "GET /v1/queries/{id}/result", "DELETE /v1/queries/{id}", "GET /v1/health");
  /** API Gateway HTTP APIs wait for an integration at most this long. */
  private static final Duration API_GATEWAY_MAX_INTEGRATION_TIMEOUT = Duration.ofSeconds(30);
  private static final Pattern NUMBER_BOUND = Pattern.compile("var\\.%s\\s*<=\\s*(\\d+)");

  private final Path module = Path.of(System.getProperty("user.dir"));
  private TerraformConfig tf;

  @BeforeAll
  void parse() {
    tf = TerraformConfig.load(module);
  }

  // ---- API

  @Test
  void everyRouteIsBehindTheIamOrJwtAuthorizer() {
    Map<String, JsonNode> routes = tf.resources("aws_apigatewayv2_route");
    assertThat(routes).isNotEmpty();
    Set<String> routeKeys = new HashSet<>();
    for (var e : routes.entrySet()) {
      JsonNode route = e.getValue();
      Set<String> types = tf.literals(route.get("authorization_type"));
      assertThat(types).as("authorization of route %s", e.getKey()).isNotEmpty().isSubsetOf("AWS_IAM", "JWT");
      if (types.contains("JWT")) {
        assertThat(route.path("authorizer_id").asText()).as("JWT authorizer of route %s", e.getKey())
            .contains("aws_apigatewayv2_authorizer.jwt");
      }
      routeKeys.addAll(tf.literals(route.get("route_key").asText().equals("${each.value}")
          ? route.get("for_each") : route.get("route_key")));
    }
    assertThat(routeKeys).containsExactlyInAnyOrderElementsOf(API_ROUTES);
    assertThat(tf.resource("aws_apigatewayv2_authorizer", "jwt").path("authorizer_type").asText()).isEqualTo("JWT");
    assertThat(tf.literals(tf.variable("authorizer_type").get("default"))).containsExactly("iam");
  }

  @Test
  void apiIsThrottledAndLogsEveryRequest() {
    JsonNode stage = tf.resource("aws_apigatewayv2_stage", "default");
    JsonNode route = stage.path("default_route_settings").get(0);
    assertThat(route.path("throttling_rate_limit").asText()).contains("var.throttling_rate_limit");
    assertThat(route.path("throttling_burst_limit").asText()).contains("var.throttling_burst_limit");
    JsonNode logs = stage.path("access_log_settings").get(0);
    assertThat(logs.path("destination_arn").asText()).contains("aws_cloudwatch_log_group.api");
    assertThat(logs.path("format").asText()).contains("$context.requestId").contains("$context.identity.userArn");
    assertThat(tf.resource("aws_cloudwatch_log_group", "api").path("retention_in_days").asText())
        .contains("var.log_retention_days");
  }

  // ---- IAM

  private Set<String> actions(String document) {
    Set<String> actions = new TreeSet<>();
    for (JsonNode statement : tf.policyStatements(document)) {
      actions.addAll(tf.literals(statement.get("actions")));
      assertThat(statement.has("not_actions")).as("NotAction in %s", document).isFalse();
    }
    return actions;
  }

  private static void assertNoForbiddenAction(String document, Set<String> actions) {
    for (String action : actions) {
      assertThat(action).as("action in %s", document).doesNotContain("*")
          .doesNotStartWith("glue:").doesNotStartWith("dynamodb:").doesNotStartWith("lambda:")
          .doesNotStartWith("iam:").doesNotStartWith("secretsmanager:").doesNotStartWith("s3tables:Update")
          .doesNotStartWith("s3tables:Create").doesNotStartWith("s3tables:GetTableMetadataLocation");
    }
  }

  @Test
  void taskRoleHasNoCatalogJobTableLambdaOrIamRightsAndNoWildcardAction() {
    Set<String> actions = new TreeSet<>();
    for (JsonNode statement : tf.policyStatements("task")) {
      if (!statement.path("sid").asText().equals("InvokeTasksAsInvoker")) {
        actions.addAll(tf.literals(statement.get("actions")));
      }
    }
    assertThat(actions).contains("s3:GetObject", "s3:PutObject");
    assertNoForbiddenAction("task", actions);
    // The task role's only policy is that document: no other inline policy or managed policy.
    List<String> taskPolicies = new ArrayList<>();
    tf.resources("aws_iam_role_policy").forEach((name, p) -> {
      if (p.path("role").asText().contains("aws_iam_role.task.")) {
        taskPolicies.add(p.path("policy").asText());
      }
    });
    assertThat(taskPolicies).containsExactly("${data.aws_iam_policy_document.task.json}");
    tf.resources("aws_iam_role_policy_attachment").values()
        .forEach(a -> assertThat(a.path("role").asText()).doesNotContain("aws_iam_role.task"));
    assertThat(tf.resource("aws_iam_role", "task").has("managed_policy_arns")).isFalse();
    // Shuffle objects: the jobs/ prefix only.
    for (JsonNode statement : tf.policyStatements("task")) {
      for (String resource : tf.literals(statement.get("resources"))) {
        if (resource.contains("local.shuffle_arn")) {
          assertThat(resource).as("shuffle resource of the task role").isIn("${local.shuffle_arn}/jobs/*",
              "${local.shuffle_arn}");
        }
      }
    }
  }

  /** The invoker role of two-level invocation: one action on the task tiers' aliases, and only when fan-out is on. */
  @Test
  void taskRoleMayInvokeOnlyTheTaskAliasesAndOnlyWithFanOut() {
    JsonNode dynamic = null;
    for (JsonNode d : tf.data("aws_iam_policy_document", "task").path("dynamic").path("statement")) {
      if (d.path("content").path(0).path("sid").asText().equals("InvokeTasksAsInvoker")) {
        dynamic = d;
      }
    }
    assertThat(dynamic).as("the invoker statement").isNotNull();
    assertThat(dynamic.path("for_each").asText()).contains("var.fanout_threshold > 0");
    JsonNode content = dynamic.path("content").path(0);
    assertThat(tf.literals(content.get("actions"))).containsExactly("lambda:InvokeFunction");
    assertThat(content.path("resources").asText()).isEqualTo("${local.task_alias_arns}");
    assertThat(tf.local("task_alias_arns").asText()).isEqualTo("${[for t in values(local.task_tiers) : t.alias_arn]}");
    // Each tier's alias: "<name>-task-<MB>:live"; an invoker invokes its own tier's alias.
    assertThat(tf.local("task_tiers").asText())
        .contains("alias_arn = \"arn:${local.partition}:lambda:${local.region}:${local.account}:function:${var.name}-task-${mb}:${local.alias_name}\"");
    assertThat(tf.local("task_environment").asText()).contains("for k, t in local.task_tiers : k =>")
        .contains("SQUALL_TASK_FUNCTION = t.alias_arn");
    assertThat(tf.local("coordinator_settings").path("SQUALL_FANOUT_THRESHOLD").asText())
        .contains("var.fanout_threshold");
  }

  @Test
  void theCheckCatchesAForbiddenActionHiddenInADynamicStatement() {
    TerraformConfig bad = TerraformConfig.parse("""
        locals {
          catalog = ["glue:GetTable"]
        }
        data "aws_iam_policy_document" "task" {
          statement {
            actions   = ["s3:GetObject"]
            resources = ["*"]
          }
          dynamic "statement" {
            for_each = [1]
            content {
              actions   = local.catalog
              resources = ["*"]
            }
          }
        }
        """);
    Set<String> actions = new TreeSet<>();
    bad.policyStatements("task").forEach(s -> actions.addAll(bad.literals(s.get("actions"))));
    assertThat(actions).containsExactly("glue:GetTable", "s3:GetObject");
    assertThatThrownBy(() -> assertNoForbiddenAction("task", actions)).isInstanceOf(AssertionError.class);
  }

  @Test
  void everyPolicyNamesItsActionsWithoutWildcards() {
    for (String document : List.of("task", "coordinator", "scheduler")) {
      assertThat(actions(document)).as(document).isNotEmpty().allSatisfy(a -> assertThat(a).doesNotContain("*"));
    }
    Set<String> coordinator = actions("coordinator");
    // DeleteItem: the job store discards lost winners and gives concurrency slots back.
    assertThat(coordinator).contains("lambda:InvokeFunction", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query",
        "glue:GetTable", "glue:UpdateTable", "secretsmanager:GetSecretValue", "s3:GetObject");
    assertThat(actions("scheduler")).containsExactly("lambda:InvokeFunction");
  }

  @Test
  void onlyTheApiHasAResourcePermissionOnTheCoordinator() {
    Map<String, JsonNode> permissions = tf.resources("aws_lambda_permission");
    assertThat(permissions).hasSize(1);
    JsonNode api = permissions.values().iterator().next();
    assertThat(api.path("principal").asText()).isEqualTo("apigateway.amazonaws.com");
    assertThat(api.path("function_name").asText()).contains("aws_lambda_function.coordinator");
    assertThat(api.path("source_arn").asText()).contains("aws_apigatewayv2_api.squall.execution_arn");
  }

  // ---- Storage

  @Test
  void bucketsBlockPublicAccessEncryptAreTlsOnlyAndExpireShuffleAndResults() {
    String owned = tf.local("owned_buckets").asText();
    for (String bucket : tf.resources("aws_s3_bucket").keySet()) {
      assertThat(owned).as("bucket %s is among the owned buckets every protection covers", bucket)
          .contains("aws_s3_bucket." + bucket);
    }
    JsonNode block = tf.resource("aws_s3_bucket_public_access_block", "owned");
    assertThat(block.path("for_each").asText()).isEqualTo("${local.owned_buckets}");
    for (String flag : List.of("block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets")) {
      assertThat(block.path(flag).asBoolean()).as(flag).isTrue();
    }
    JsonNode sse = tf.resource("aws_s3_bucket_server_side_encryption_configuration", "owned");
    assertThat(sse.path("for_each").asText()).isEqualTo("${local.owned_buckets}");
    assertThat(tf.literals(sse.at("/rule/0/apply_server_side_encryption_by_default/0/sse_algorithm")))
        .isNotEmpty().isSubsetOf("AES256", "aws:kms");

    JsonNode policy = tf.resource("aws_s3_bucket_policy", "owned");
    assertThat(policy.path("for_each").asText()).isEqualTo("${local.owned_buckets}");
    assertThat(policy.path("policy").asText()).contains("data.aws_iam_policy_document.tls_only");
    JsonNode deny = tf.policyStatements("tls_only").get(0);
    assertThat(deny.path("effect").asText()).isEqualTo("Deny");
    assertThat(tf.literals(deny.get("actions"))).containsExactly("s3:*");
    JsonNode condition = deny.path("condition").get(0);
    assertThat(condition.path("variable").asText()).isEqualTo("aws:SecureTransport");
    assertThat(tf.literals(condition.get("values"))).containsExactly("false");

    JsonNode lifecycle = tf.resource("aws_s3_bucket_lifecycle_configuration", "shuffle");
    assertThat(lifecycle.path("bucket").asText()).contains("aws_s3_bucket.shuffle");
    Set<String> expiring = new HashSet<>();
    lifecycle.path("rule").forEach(rule -> {
      if (rule.path("status").asText().equals("Enabled") && rule.has("expiration")) {
        assertThat(rule.at("/expiration/0/days").asText()).startsWith("${var.");
        expiring.add(rule.at("/filter/0/prefix").asText());
      }
    });
    // The prefixes the coordinator writes under (PlanStore.jobPrefix, ResultStore).
    assertThat(expiring).contains("jobs/", "results/");
  }

  @Test
  void jobTableMatchesTheDynamoDbStore() {
    JsonNode table = tf.resource("aws_dynamodb_table", "jobs");
    assertThat(table.path("billing_mode").asText()).isEqualTo("PAY_PER_REQUEST");
    assertThat(table.path("hash_key").asText()).isEqualTo("job_id");
    assertThat(table.path("range_key").asText()).isEqualTo("item");
    assertThat(table.at("/ttl/0/attribute_name").asText()).isEqualTo("expires_at");
    assertThat(table.at("/ttl/0/enabled").asBoolean()).isTrue();
    assertThat(table.at("/point_in_time_recovery/0/enabled").asBoolean()).isTrue();
    JsonNode gsi = table.path("global_secondary_index").get(0);
    assertThat(gsi.path("name").asText()).isEqualTo("unfinished");
    assertThat(gsi.path("hash_key").asText()).isEqualTo("sweep");
    assertThat(gsi.path("range_key").asText()).isEqualTo("sweep_key");
    assertThat(gsi.path("projection_type").asText()).isEqualTo("KEYS_ONLY");
  }

  // ---- Functions

  @Test
  void functionsAreJava21Arm64SnapStartVersionsBehindAnAliasFromS3() {
    for (String fn : List.of("coordinator", "task")) {
      JsonNode f = tf.resource("aws_lambda_function", fn);
      assertThat(f.path("runtime").asText()).isEqualTo("java21");
      assertThat(tf.literals(f.get("architectures"))).containsExactly("arm64");
      assertThat(f.at("/snap_start/0/apply_on").asText()).isEqualTo("PublishedVersions");
      assertThat(f.path("publish").asBoolean()).isTrue();
      assertThat(f.has("filename")).as("%s is uploaded through S3", fn).isFalse();
      assertThat(f.path("s3_key").asText()).contains("aws_s3_object." + fn + "_zip");
      JsonNode alias = tf.resource("aws_lambda_alias", fn);
      String each = fn.equals("task") ? "[each.key]" : ""; // one task function per tier
      assertThat(alias.path("function_version").asText()).isEqualTo("${aws_lambda_function." + fn + each + ".version}");
      assertThat(tf.resource("aws_cloudwatch_log_group", "functions").path("retention_in_days").asText())
          .contains("var.log_retention_days");
    }
    assertThat(tf.resource("aws_lambda_function", "task").path("reserved_concurrent_executions").asText())
        .isEqualTo("${var.task_reserved_concurrency}");
    assertThat(tf.literals(tf.local("java_tool_options"))).containsExactly("--add-opens=java.base/java.nio=ALL-UNNAMED");
    assertThat(tf.local("coordinator_settings").toString()).contains("\"JAVA_TOOL_OPTIONS\":\"${local.java_tool_options}\"");
    assertThat(tf.local("task_environment").asText()).contains("JAVA_TOOL_OPTIONS    = local.java_tool_options");
    JsonNode sweep = tf.resource("aws_scheduler_schedule", "sweep");
    assertThat(sweep.at("/target/0/arn").asText()).contains("aws_lambda_alias.coordinator");
    assertThat(sweep.at("/target/0/input").asText()).contains("squallAction").contains("sweep");
  }

  /** Every SQUALL_* name the coordinator's main code reads. */
  private static Set<String> settingsReadBy(Path sources) throws IOException {
    Set<String> names = new TreeSet<>();
    Pattern quoted = Pattern.compile("\"(SQUALL_[A-Z_]+)\"");
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = quoted.matcher(Files.readString(f));
        while (m.find()) {
          names.add(m.group(1));
        }
      }
    }
    return names;
  }

  @Test
  void coordinatorEnvironmentSetsWhatTheCodeReadsAndNothingElse() throws IOException {
    Set<String> read = settingsReadBy(module.resolve("../coordinator-function/src/main/java"));
    Set<String> set = new TreeSet<>();
    tf.local("coordinator_settings").fieldNames().forEachRemaining(set::add);
    assertThat(tf.local("coordinator_environment").asText()).contains("local.coordinator_settings")
        .contains("local.catalog_env[var.catalog_type]");
    tf.local("catalog_env").forEach(c -> c.fieldNames().forEachRemaining(set::add));
    set.remove("JAVA_TOOL_OPTIONS");
    assertThat(read).isNotEmpty();
    assertThat(set).isSubsetOf(read);
    assertThat(set).contains("SQUALL_TASK_FUNCTION", "SQUALL_SHUFFLE_BUCKET", "SQUALL_JOB_TABLE",
        "SQUALL_TASK_MEMORY_MB", "SQUALL_TASK_TIMEOUT_SECONDS", "SQUALL_SELF_FUNCTION", "SQUALL_CATALOG_TYPE");
  }

  // ---- Task-size tiers

  /** The variable's default as a list of whole MB. */
  private List<Integer> defaultTiers() {
    List<Integer> tiers = new ArrayList<>();
    tf.variable("task_memory_tiers_mb").path("default").forEach(n -> tiers.add(n.asInt()));
    return tiers;
  }

  @Test
  void theTaskFunctionIsDeployedOncePerTierWithItsOwnMemoryAliasLogGroupAndReservation() {
    assertThat(defaultTiers()).containsExactly(1024, 3072, 10240);
    JsonNode variable = tf.variable("task_memory_tiers_mb");
    assertThat(variable.path("type").asText()).isEqualTo("${list(number)}");
    String validations = variable.path("validation").toString();
    assertThat(validations).contains("length(var.task_memory_tiers_mb) >= 1 && length(var.task_memory_tiers_mb) <= 4")
        .contains("mb >= 128 && mb <= 10240")
        .contains("var.task_memory_tiers_mb[i] > var.task_memory_tiers_mb[i - 1]");
    assertThat(tf.local("task_tiers").asText()).startsWith("${{ for mb in var.task_memory_tiers_mb : tostring(mb) =>")
        .contains("name      = \"${var.name}-task-${mb}\"").contains("memory_mb = mb");

    JsonNode task = tf.resource("aws_lambda_function", "task");
    assertThat(task.path("for_each").asText()).isEqualTo("${local.task_tiers}");
    assertThat(task.path("function_name").asText()).isEqualTo("${each.value.name}");
    assertThat(task.path("memory_size").asText()).isEqualTo("${each.value.memory_mb}");
    assertThat(task.path("role").asText()).isEqualTo("${aws_iam_role.task.arn}"); // one role for every tier
    assertThat(task.at("/environment/0/variables").asText()).isEqualTo("${local.task_environment[each.key]}");
    assertThat(task.at("/logging_config/0/log_group").asText())
        .isEqualTo("${aws_cloudwatch_log_group.functions[\"task-${each.key}\"].name}");
    assertThat(tf.resource("aws_lambda_alias", "task").path("for_each").asText()).isEqualTo("${local.task_tiers}");
    assertThat(tf.resource("aws_cloudwatch_log_group", "functions").path("for_each").asText())
        .contains("for k, t in local.task_tiers : \"task-${k}\" => t.name");
    // Every tier reserves the whole task reservation: the job table's task slots are shared by the
    // tiers and one stage may run all of them on one tier, so a split would throttle admitted tasks.
    assertThat(task.path("reserved_concurrent_executions").asText()).isEqualTo("${var.task_reserved_concurrency}");
    // The task role's logs: every tier's log group.
    JsonNode logs = tf.policyStatements("task").stream().filter(s -> s.path("sid").asText().equals("Logs"))
        .findFirst().orElseThrow();
    assertThat(logs.path("resources").asText()).contains("for k, t in local.task_tiers").contains("task-${k}");
  }

  @Test
  void theCoordinatorKnowsEveryTierAndMayInvokeOnlyTheirAliasesAndItself() throws Exception {
    JsonNode env = tf.local("coordinator_settings");
    assertThat(env.path("SQUALL_TASK_TIERS").asText()).isEqualTo(
        "${jsonencode([for mb in var.task_memory_tiers_mb : { function = aws_lambda_alias.task[tostring(mb)].arn, memoryMb = mb }])}");
    // The smallest tier is the default task function.
    assertThat(env.path("SQUALL_TASK_FUNCTION").asText()).isEqualTo("${aws_lambda_alias.task[local.smallest_tier].arn}");
    assertThat(env.path("SQUALL_TASK_MEMORY_MB").asText()).isEqualTo("${tostring(local.task_memory_mb)}");
    assertThat(tf.local("task_memory_mb").asText()).isEqualTo("${var.task_memory_tiers_mb[0]}");
    // What jsonencode makes of the default tiers is what the coordinator reads.
    StringBuilder json = new StringBuilder("[");
    for (int mb : defaultTiers()) {
      json.append(json.length() > 1 ? "," : "").append("{\"function\":\"arn:aws:lambda:eu-west-1:123456789012:function:squall-task-")
          .append(mb).append(":live\",\"memoryMb\":").append(mb).append('}');
    }
    TaskTiers tiers = CoordinatorEnvironment.taskTiers(Map.of("SQUALL_TASK_TIERS", json + "]"), "unused", 1024);
    assertThat(tiers.tiers()).extracting(TaskTiers.Tier::memoryMb).containsExactlyElementsOf(defaultTiers());
    assertThat(tiers.largest().function()).endsWith("squall-task-10240:live");

    JsonNode invoke = tf.policyStatements("coordinator").stream()
        .filter(s -> tf.literals(s.get("actions")).contains("lambda:InvokeFunction")).findFirst().orElseThrow();
    assertThat(invoke.path("resources").asText())
        .isEqualTo("${concat(local.task_alias_arns, [local.coordinator_arn, \"${local.coordinator_arn}:*\"])}");
    assertThat(tf.resources("aws_lambda_function").keySet()).containsExactlyInAnyOrder("coordinator", "task");
  }

  // ---- Concurrency

  @Test
  void theCoordinatorHasItsOwnReservationAndAdmitsQueriesBelowIt() {
    // Reserved by default, apart from the task function's reservation.
    long reserved = defaultOf("coordinator_reserved_concurrency");
    assertThat(reserved).isGreaterThanOrEqualTo(2);
    assertThat(tf.resource("aws_lambda_function", "coordinator").path("reserved_concurrent_executions").asText())
        .isEqualTo("${var.coordinator_reserved_concurrency}");
    assertThat(tf.resource("aws_lambda_function", "task").path("reserved_concurrent_executions").asText())
        .isEqualTo("${var.task_reserved_concurrency}");
    // The running-query cap the coordinator reads leaves room for requests, as the local stack computes it.
    assertThat(tf.local("coordinator_settings").path("SQUALL_MAX_RUNNING_QUERIES").asText())
        .isEqualTo("${tostring(local.max_running_queries)}");
    assertThat(tf.local("max_running_queries").asText())
        .isEqualTo("${var.coordinator_reserved_concurrency - max(1, floor(var.coordinator_reserved_concurrency / 4))}");
    for (int n : new int[] {2, 3, 4, 10, 101}) {
      assertThat(JobSettings.runningQueriesFor(n)).isEqualTo(n - Math.max(1, Math.floorDiv(n, 4))).isLessThan(n);
    }
    // Task slots in the job table never exceed what Lambda gives the task function.
    assertThat(tf.resource("aws_lambda_function", "task").at("/lifecycle/0/precondition/0/condition").asText())
        .contains("coalesce(var.account_concurrent_tasks, var.task_reserved_concurrency) <= var.task_reserved_concurrency");
  }

  // ---- Timeouts

  private long defaultOf(String variable) {
    return tf.variable(variable).path("default").asLong();
  }

  private long upperBoundOf(String variable) {
    Matcher m = Pattern.compile(String.format(NUMBER_BOUND.pattern(), variable))
        .matcher(tf.variable(variable).at("/validation/0/condition").asText());
    assertThat(m.find()).as("validation of %s bounds it from above", variable).isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void timeoutsAlongAQueryAgree() {
    long coordinatorTimeout = defaultOf("coordinator_timeout_seconds");
    long coordinatorMax = upperBoundOf("coordinator_timeout_seconds");
    long taskTimeout = defaultOf("task_timeout_seconds");
    long taskMax = upperBoundOf("task_timeout_seconds");

    // The coordinator's Invoke client waits the task timeout Terraform passes, plus its margin.
    JsonNode env = tf.local("coordinator_settings");
    assertThat(env.path("SQUALL_TASK_TIMEOUT_SECONDS").asText()).isEqualTo("${tostring(var.task_timeout_seconds)}");
    assertThat(tf.local("task_invoke_margin_seconds").asLong())
        .isEqualTo(CoordinatorEnvironment.TASK_INVOKE_MARGIN.toSeconds());
    for (long task : List.of(taskTimeout, taskMax)) {
      Duration invokeWait = CoordinatorEnvironment.taskInvokeTimeout(Map.of("SQUALL_TASK_TIMEOUT_SECONDS", Long.toString(task)));
      assertThat(invokeWait).isGreaterThan(Duration.ofSeconds(task));
      assertThat(invokeWait).as("an Invoke of a %d s task ends before the coordinator's own timeout", task)
          .isLessThan(Duration.ofSeconds(coordinatorTimeout));
    }
    assertThat(coordinatorMax).isLessThanOrEqualTo(900);
    // A job outlives its invocations (its deadline counts from submission): each invocation hands the
    // job over its hand-off margin before the coordinator's limit, and planning fits in one invocation.
    JobSettings job = JobSettings.defaults();
    assertThat(job.handOffMargin().plus(job.planningTimeout())).isLessThan(Duration.ofSeconds(coordinatorTimeout));
    assertThat(CoordinatorSettings.defaults("t", "b").jobTimeout()).isGreaterThan(Duration.ofSeconds(coordinatorTimeout));

    // The API waits for the coordinator as long as API Gateway allows, and the coordinator answers
    // a synchronous query before that.
    JsonNode integration = tf.resource("aws_apigatewayv2_integration", "coordinator");
    assertThat(integration.path("timeout_milliseconds").asText()).isEqualTo("${local.api_integration_timeout_ms}");
    long integrationMs = tf.local("api_integration_timeout_ms").asLong();
    assertThat(Duration.ofMillis(integrationMs)).isLessThanOrEqualTo(API_GATEWAY_MAX_INTEGRATION_TIMEOUT);
    assertThat(Duration.ofSeconds(upperBoundOf("sync_wait_seconds"))).isLessThan(Duration.ofMillis(integrationMs));
    assertThat(Duration.ofSeconds(defaultOf("sync_wait_seconds"))).isEqualTo(JobSettings.defaults().syncWait());
    assertThat(env.path("SQUALL_SYNC_WAIT_SECONDS").asText()).contains("var.sync_wait_seconds");
  }

  // ---- Formatting

  @Test
  void moduleIsInTerraformsCanonicalFormat() throws Exception {
    Path terraform = dev.squall.jobstore.NpmPackages.onPath("terraform").orElse(null);
    org.junit.jupiter.api.Assumptions.assumeTrue(terraform != null,
        "no terraform binary on the PATH: the format check is skipped (parsing is checked above)");
    Process p = new ProcessBuilder(terraform.toString(), "fmt", "-check", "-recursive", "-no-color", module.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("terraform fmt -check lists files not in canonical format: %s", out).isZero();
  }

  // ---- Examples

  @Test
  void examplesParseAndUseThisModule() throws IOException {
    try (Stream<Path> dirs = Files.list(module.resolve("examples"))) {
      List<Path> examples = dirs.filter(Files::isDirectory).toList();
      assertThat(examples).hasSizeGreaterThanOrEqualTo(2);
      for (Path example : examples) {
        TerraformConfig config = TerraformConfig.load(example);
        assertThat(config.modules()).as("modules of %s", example).hasSize(1);
        assertThat(config.modules().values().iterator().next().path("source").asText()).isEqualTo("../..");
      }
    }
  }
}
