package dev.squall.coordinator.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.coordinator.CoordinatorSettings;
import dev.squall.coordinator.SchemaAllowList;
import dev.squall.coordinator.api.SquallException;
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

/** EXPLAIN ANALYZE of a statement that is not a query is refused at that statement's position. */
class ExplainAnalyzeStatementTest {
  private InMemoryCatalog catalog;

  @BeforeEach
  void tables() {
    catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of(CatalogProperties.WAREHOUSE_LOCATION, "mem://warehouse"));
    catalog.createNamespace(Namespace.of("sales"));
    catalog.createTable(TableIdentifier.of("sales", "t"), new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
  }

  private JobPlanner planner() {
    return new JobPlanner(catalog, CoordinatorSettings.defaults("task", "shuffle-bucket"), PlannerSettings.defaults(),
        SchemaAllowList.parse(""));
  }

  @Test
  void explainAnalyzeOfAnalyzeIsRefusedAtTheAnalyzedStatement() {
    assertThatThrownBy(() -> planner().plan("j1", "explain analyze analyze sales.t", Map.of(), "alice"))
        .isInstanceOfSatisfying(SquallException.class, e -> {
          assertThat(e.line()).isEqualTo(1);
          assertThat(e.column()).isEqualTo(17);
        })
        .hasMessageContaining("EXPLAIN ANALYZE runs queries only");
    assertThatThrownBy(() -> planner().plan("j2", "EXPLAIN ANALYZE\n  insert into sales.t values (1)", Map.of(), "alice"))
        .isInstanceOfSatisfying(SquallException.class, e -> {
          assertThat(e.line()).isEqualTo(2);
          assertThat(e.column()).isEqualTo(3);
        });
  }
}
