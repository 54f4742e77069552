package dev.squall.planner.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlannerSettings;
import dev.squall.planner.PlanningException;
import dev.squall.planner.sql.SquallTypeSystem;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Field;
import java.util.List;
import java.util.Map;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class IcebergCatalogSchemaTest {
  private static final Schema ALL_TYPES = new Schema(
      Types.NestedField.required(1, "b", Types.BooleanType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.required(3, "l", Types.LongType.get()),
      Types.NestedField.required(4, "f", Types.FloatType.get()),
      Types.NestedField.required(5, "d", Types.DoubleType.get()),
      Types.NestedField.required(6, "m", Types.DecimalType.of(38, 10)),
      Types.NestedField.required(7, "dt", Types.DateType.get()),
      Types.NestedField.required(8, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.required(9, "s", Types.StringType.get()),
      Types.NestedField.required(10, "bin", Types.BinaryType.get()),
      Types.NestedField.optional(11, "nested", Types.StructType.of(
          Types.NestedField.optional(12, "x", Types.IntegerType.get()))));

  @Test
  void icebergTypesMapToSqlTypes() {
    JavaTypeFactoryImpl types = new JavaTypeFactoryImpl(SquallTypeSystem.INSTANCE);
    List<SqlTypeName> expected = List.of(SqlTypeName.BOOLEAN, SqlTypeName.INTEGER, SqlTypeName.BIGINT,
        SqlTypeName.REAL, SqlTypeName.DOUBLE, SqlTypeName.DECIMAL, SqlTypeName.DATE, SqlTypeName.TIMESTAMP,
        SqlTypeName.VARCHAR, SqlTypeName.VARBINARY, SqlTypeName.ANY);
    for (int i = 0; i < expected.size(); i++) {
      Types.NestedField field = ALL_TYPES.columns().get(i);
      RelDataType sql = IcebergTypeMapping.toSql(types, field.type(), field.isOptional());
      assertThat(sql.getSqlTypeName()).as(field.name()).isEqualTo(expected.get(i));
      assertThat(sql.isNullable()).isEqualTo(field.isOptional());
    }
    RelDataType decimal = IcebergTypeMapping.toSql(types, Types.DecimalType.of(38, 10), false);
    assertThat(decimal.getPrecision()).isEqualTo(38);
    assertThat(decimal.getScale()).isEqualTo(10);
    assertThat(IcebergTypeMapping.toSql(types, Types.TimestampType.withoutZone(), false).getPrecision()).isEqualTo(6);
  }

  @Test
  void plannedOutputCarriesTheMappedTypes() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("types", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    catalog.createTable(TableIdentifier.of("db", "all_types"), ALL_TYPES, PartitionSpec.unpartitioned());
    PlannedQuery planned = new DistributedPlanner(catalog).plan(
        "select b, i, l, f, d, m, dt, ts, s, bin from db.all_types", PlannerSettings.defaults());
    assertThat(planned.outputSchema().getFieldsList()).extracting(Field::getType).extracting(DataType::getKind)
        .containsExactly(DataType.Kind.BOOLEAN, DataType.Kind.INTEGER, DataType.Kind.BIGINT, DataType.Kind.REAL,
            DataType.Kind.DOUBLE, DataType.Kind.DECIMAL, DataType.Kind.DATE, DataType.Kind.TIMESTAMP,
            DataType.Kind.VARCHAR, DataType.Kind.VARBINARY);
    assertThat(planned.outputSchema().getFields(1).getType().getNullable()).isTrue();
    assertThat(planned.outputSchema().getFields(0).getType().getNullable()).isFalse();
  }

  @Test
  void readingANestedColumnIsRefusedButTheTableStillResolves() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("types", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    catalog.createTable(TableIdentifier.of("db", "all_types"), ALL_TYPES, PartitionSpec.unpartitioned());
    DistributedPlanner planner = new DistributedPlanner(catalog);
    assertThat(planner.plan("select s from db.all_types", PlannerSettings.defaults()).outputSchema().getFieldsCount()).isEqualTo(1);
    try {
      planner.plan("select nested from db.all_types", PlannerSettings.defaults());
      throw new AssertionError("expected a refusal");
    } catch (PlanningException e) {
      assertThat(e.code()).isIn(PlanningException.Code.UNSUPPORTED, PlanningException.Code.VALIDATION_ERROR);
    }
  }

  @Test
  void rowCountsComeFromTheSnapshotSummary() {
    IcebergTable lineitem = new IcebergTable(Planning.SF1, TableIdentifier.of("tpch", "lineitem"));
    TableStatistics stats = lineitem.statistics();
    assertThat(stats.rowCount()).isEqualTo(6_001_215 / 7 * 7);
    assertThat(stats.fileBytes()).isEqualTo(180_000_000L / 7 * 7);
    assertThat(stats.dataFiles()).isEqualTo(7);
    assertThat(stats.snapshotId()).isEqualTo(lineitem.table().currentSnapshot().snapshotId());
    assertThat(lineitem.getStatistic().getRowCount()).isEqualTo((double) stats.rowCount());
    // Identifier fields (l_orderkey, l_linenumber) are the key.
    assertThat(lineitem.getStatistic().getKeys()).hasSize(1);
  }

  @Test
  void namespacesAreSchemasAndTheDefaultSchemaResolvesUnqualifiedNames() {
    PlannedQuery qualified = new DistributedPlanner(Planning.SF1).plan("select n_name from tpch.nation", PlannerSettings.defaults());
    PlannedQuery unqualified = Planning.sf1("select n_name from NATION");
    assertThat(unqualified.stageGraph().getStages(0).getFragment())
        .isEqualTo(qualified.stageGraph().getStages(0).getFragment());
  }

  @Test
  void tableStatisticsOfATableWithoutSnapshotAreEmpty() {
    InMemoryCatalog catalog = TpchCatalog.create(0.01);
    catalog.createTable(TableIdentifier.of("tpch", "fresh"), TpchCatalog.regionSchema(), PartitionSpec.unpartitioned());
    assertThat(new IcebergTable(catalog, TableIdentifier.of("tpch", "fresh")).statistics()).isEqualTo(TableStatistics.EMPTY);
  }
}
