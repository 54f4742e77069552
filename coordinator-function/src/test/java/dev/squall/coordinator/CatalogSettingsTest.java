package dev.squall.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Catalog and task-invoke settings read from the coordinator's environment. */
class CatalogSettingsTest {
  @Test
  void glueIsTheDefault() {
    Map<String, String> props = CatalogSettings.properties(Map.of("SQUALL_CATALOG_WAREHOUSE", "s3://lake/"), id -> {
      throw new AssertionError("no secret is read for Glue");
    });
    assertThat(props).containsEntry("type", "glue").containsEntry("warehouse", "s3://lake/");
  }

  @Test
  void restCatalogComesFromItsSecret() {
    String secret = "{\"uri\": \"https://catalog.example/api\", \"credential\": \"id:s3cr3t\", \"warehouse\": \"wh\"}";
    Map<String, String> props = CatalogSettings.properties(
        Map.of("SQUALL_CATALOG_TYPE", "rest", "SQUALL_CATALOG_SECRET", "arn:secret"),
        id -> id.equals("arn:secret") ? secret : null);
    assertThat(props).containsEntry("type", "rest").containsEntry("uri", "https://catalog.example/api")
        .containsEntry("credential", "id:s3cr3t").containsEntry("warehouse", "wh");
  }

  @Test
  void malformedSecretIsNamedWithoutItsValue() {
    assertThatThrownBy(() -> CatalogSettings.properties(
        Map.of("SQUALL_CATALOG_TYPE", "rest", "SQUALL_CATALOG_SECRET", "my-secret"), id -> "token=s3cr3t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("my-secret")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void s3TablesIsTheRegionalRestEndpointSignedWithSigV4() {
    Map<String, String> props = CatalogSettings.properties(Map.of("SQUALL_CATALOG_TYPE", "s3tables",
        "AWS_REGION", "eu-west-1", "SQUALL_CATALOG_WAREHOUSE", "arn:aws:s3tables:eu-west-1:1:bucket/lake"), id -> null);
    assertThat(props).containsEntry("uri", "https://s3tables.eu-west-1.amazonaws.com/iceberg")
        .containsEntry("rest.sigv4-enabled", "true").containsEntry("rest.signing-name", "s3tables")
        .containsEntry("warehouse", "arn:aws:s3tables:eu-west-1:1:bucket/lake");
  }

  @Test
  void unknownCatalogTypeIsRefused() {
    assertThatThrownBy(() -> CatalogSettings.properties(Map.of("SQUALL_CATALOG_TYPE", "hive"), id -> null))
        .hasMessageContaining("SQUALL_CATALOG_TYPE");
  }

  @Test
  void taskInvokeWaitsTheTaskTimeoutPlusItsMargin() {
    assertThat(CoordinatorEnvironment.taskInvokeTimeout(Map.of("SQUALL_TASK_TIMEOUT_SECONDS", "300")))
        .isEqualTo(Duration.ofSeconds(330));
    assertThat(CoordinatorEnvironment.taskInvokeTimeout(Map.of())).isEqualTo(Duration.ofSeconds(330));
    assertThatThrownBy(() -> CoordinatorEnvironment.taskInvokeTimeout(Map.of("SQUALL_TASK_TIMEOUT_SECONDS", "0")))
        .hasMessageContaining("1-900");
    assertThatThrownBy(() -> CoordinatorEnvironment.taskInvokeTimeout(Map.of("SQUALL_TASK_TIMEOUT_SECONDS", "5m")))
        .hasMessageContaining("SQUALL_TASK_TIMEOUT_SECONDS");
  }

  @Test
  void jobDataDeletionBoundHasADefaultAndARange() {
    assertThat(CoordinatorEnvironment.jobDataDeletionMaxPending(Map.of())).isEqualTo(256);
    assertThat(CoordinatorEnvironment.jobDataDeletionMaxPending(Map.of("SQUALL_JOB_DATA_DELETION_MAX_PENDING", "0")))
        .isZero();
    assertThatThrownBy(() -> CoordinatorEnvironment.jobDataDeletionMaxPending(
        Map.of("SQUALL_JOB_DATA_DELETION_MAX_PENDING", "-1"))).hasMessageContaining("SQUALL_JOB_DATA_DELETION_MAX_PENDING")
        .hasMessageContaining("0-100000");
  }

  @Test
  void numericSettingsNameTheVariableAndItsRangeWhenRefused() {
    assertThat(CoordinatorEnvironment.setting(Map.of(), "SQUALL_MAX_CONCURRENT_TASKS", 64, 1, 1000)).isEqualTo(64);
    assertThat(CoordinatorEnvironment.setting(Map.of("SQUALL_SYNC_WAIT_SECONDS", " 20 "), "SQUALL_SYNC_WAIT_SECONDS", 25, 1, 27))
        .isEqualTo(20);
    assertThatThrownBy(() -> CoordinatorEnvironment.setting(Map.of("SQUALL_MAX_CONCURRENT_TASKS", "abc"),
        "SQUALL_MAX_CONCURRENT_TASKS", 64, 1, 1000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("SQUALL_MAX_CONCURRENT_TASKS must be a whole number within 1-1000, not 'abc'");
    assertThatThrownBy(() -> CoordinatorEnvironment.setting(Map.of("SQUALL_SYNC_WAIT_SECONDS", "600"),
        "SQUALL_SYNC_WAIT_SECONDS", 25, 1, 27))
        .hasMessage("SQUALL_SYNC_WAIT_SECONDS must be within 1-27, not 600");
  }
}
