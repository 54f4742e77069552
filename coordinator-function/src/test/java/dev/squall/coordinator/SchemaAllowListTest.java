package dev.squall.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.job.JobPlanner;
import dev.squall.planner.PlannerSettings;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The schema allow-list over a real Iceberg catalog (Iceberg's in-memory catalog): a caller plans
 * against the schemas listed for it; a table outside them is unknown, as if it did not exist.
 */
class SchemaAllowListTest {
  private InMemoryCatalog catalog;

  @BeforeEach
  void tables() {
    catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of(CatalogProperties.WAREHOUSE_LOCATION, "mem://warehouse"));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    for (String ns : new String[] {"sales", "hr"}) {
      catalog.createNamespace(Namespace.of(ns));
      catalog.createTable(TableIdentifier.of(ns, "t"), schema);
    }
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
  }

  private JobPlanner planner(String allowList) {
    return new JobPlanner(catalog, CoordinatorSettings.defaults("task", "shuffle-bucket"), PlannerSettings.defaults(),
        SchemaAllowList.parse(allowList));
  }

  @Test
  void callerPlansOnlyAgainstItsSchemas() {
    JobPlanner planner = planner("{\"alice\": [\"sales\"], \"*\": [\"hr\"]}");
    assertThat(planner.plan("j1", "select id from sales.t", Map.of(), "alice").plan()).isNotNull();
    assertThatThrownBy(() -> planner.plan("j2", "select id from hr.t", Map.of(), "alice"))
        .isInstanceOf(SquallException.class)
        .hasMessageContaining("hr");
    // Not listed: the "*" entry applies.
    assertThat(planner.plan("j3", "select id from hr.t", Map.of(), "bob").plan()).isNotNull();
    assertThatThrownBy(() -> planner.plan("j4", "select id from sales.t", Map.of(), "bob"))
        .isInstanceOf(SquallException.class);
  }

  @Test
  void unlistedCallerWithoutDefaultSeesNothingAndNoListRestrictsNothing() {
    assertThatThrownBy(() -> planner("{\"alice\": [\"*\"]}").plan("j5", "select id from sales.t", Map.of(), "bob"))
        .isInstanceOf(SquallException.class);
    assertThat(planner("{\"alice\": [\"*\"]}").plan("j6", "select id from hr.t", Map.of(), "alice").plan()).isNotNull();
    assertThat(planner("").plan("j7", "select id from hr.t", Map.of(), "anyone").plan()).isNotNull();
  }

  @Test
  void malformedSettingIsRefusedNamingIt() {
    assertThatThrownBy(() -> SchemaAllowList.parse("[\"sales\"]"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SQUALL_SCHEMA_ALLOW_LIST");
    assertThatThrownBy(() -> SchemaAllowList.parse("{\"alice\": \"sales\"}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("alice");
  }
}
