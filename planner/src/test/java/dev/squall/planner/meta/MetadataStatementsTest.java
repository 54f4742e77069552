package dev.squall.planner.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlanningException;
import dev.squall.planner.testing.Planning;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Values;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Metadata statements plan as a VALUES relation of rows read from the catalog; the expected rows
 * are the TPC-H schemas of the test catalog ({@code TpchCatalog}).
 */
class MetadataStatementsTest {
  private static List<String> columns(PlannedQuery q) {
    return q.outputSchema().getFieldsList().stream().map(Field::getName).toList();
  }

  /** The first column of every VALUES row in the plan (metadata answers are small: one VALUES). */
  private static List<String> firstColumn(PlannedQuery q) {
    List<String> out = new ArrayList<>();
    for (var stage : q.stageGraph().getStagesList()) {
      collect(stage.getFragment(), out);
    }
    return out;
  }

  private static void collect(Operator op, List<String> out) {
    if (op.hasValues()) {
      for (Values.Row row : op.getValues().getRowsList()) {
        Literal l = row.getValues(0);
        out.add(l.hasStringValue() ? l.getStringValue() : null);
      }
      return;
    }
    for (var f : op.getAllFields().entrySet()) {
      if (f.getValue() instanceof Operator child) {
        collect(child, out);
      }
    }
  }

  @Test
  void showTablesListsTheDefaultSchemaSorted() {
    PlannedQuery q = Planning.sf1("SHOW TABLES");
    assertThat(columns(q)).containsExactly("Table");
    assertThat(firstColumn(q)).containsExactly("customer", "lineitem", "nation", "orders", "part", "partsupp",
        "region", "supplier");
  }

  @Test
  void showTablesFromSchemaLike() {
    assertThat(firstColumn(Planning.sf1("show tables from TPCH like 'p%'"))).containsExactly("part", "partsupp");
  }

  @Test
  void showSchemasIncludesInformationSchema() {
    assertThat(firstColumn(Planning.sf1("SHOW SCHEMAS"))).containsExactly("information_schema", "tpch");
  }

  @Test
  void describeQualifiedTable() {
    PlannedQuery q = Planning.sf1("describe tpch.orders");
    assertThat(columns(q)).containsExactly("Column", "Type", "Extra", "Comment");
    assertThat(firstColumn(q)).startsWith("o_orderkey", "o_custkey").hasSize(9);
  }

  @Test
  void unknownTableIsNamedAtItsPosition() {
    assertThatThrownBy(() -> Planning.sf1("DESCRIBE\n  tpch.nope"))
        .isInstanceOfSatisfying(PlanningException.class, e -> {
          assertThat(e.code()).isEqualTo(PlanningException.Code.UNKNOWN_TABLE);
          assertThat(e.line()).isEqualTo(2);
          assertThat(e.column()).isEqualTo(3);
        });
  }

  @Test
  void unsupportedShowIsRefusedAtItsPosition() {
    assertThatThrownBy(() -> Planning.sf1("SHOW FUNCTIONS"))
        .isInstanceOfSatisfying(PlanningException.class, e -> {
          assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
          assertThat(e.column()).isEqualTo(6);
        });
  }

  @Test
  void showStatsForAQueryIsRefusedAsSuchEvenWithCharactersTheStatementNeverUses() {
    assertThatThrownBy(() -> Planning.sf1("show stats for (select * from tpch.nation)"))
        .isInstanceOfSatisfying(PlanningException.class, e -> {
          assertThat(e.code()).isEqualTo(PlanningException.Code.UNSUPPORTED);
          assertThat(e.column()).isEqualTo(16);
        })
        .hasMessageContaining("SHOW STATS FOR a query is not supported");
  }

  @Test
  void informationSchemaColumnsCanBeFilteredAndJoined() {
    PlannedQuery q = Planning.sf1("select c.column_name from information_schema.columns c "
        + "join information_schema.tables t on c.table_name = t.table_name and c.table_schema = t.table_schema "
        + "where c.table_name = 'nation' order by c.ordinal_position");
    assertThat(columns(q)).containsExactly("column_name");
  }
}
