package dev.squall.planner.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.write.WriteTarget;
import dev.squall.proto.v1.DdlRecord;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.StageGraph;
import java.util.List;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** DDL plans into the record the coordinator applies, or is refused with the offending position. */
class DdlPlanningTest {
  private static DdlRecord ddl(String sql) {
    PlannedQuery q = Planning.sf1(sql);
    assertThat(q.isDdl()).isTrue();
    assertThat(q.stageGraph().getStagesCount()).isZero();
    return q.ddl().orElseThrow();
  }

  private static PlanningException refused(String sql) {
    return (PlanningException) org.assertj.core.api.Assertions.catchThrowable(() -> Planning.sf1(sql));
  }

  @Test
  void expireSnapshotsAndRemoveOrphanFilesPlanTheirCutoff() {
    long before = System.currentTimeMillis();
    DdlRecord expire = ddl("ALTER TABLE tpch.orders EXECUTE expire_snapshots(retention_threshold => '8d')");
    assertThat(expire.getKind()).isEqualTo(DdlRecord.Kind.EXPIRE_SNAPSHOTS);
    assertThat(expire.getTable()).isEqualTo("orders");
    long eightDays = java.time.Duration.ofDays(8).toMillis();
    assertThat(expire.getOlderThanMillis()).isBetween(before - eightDays, System.currentTimeMillis() - eightDays);
    DdlRecord orphans = ddl("alter table tpch.orders execute remove_orphan_files('7d')");
    assertThat(orphans.getKind()).isEqualTo(DdlRecord.Kind.REMOVE_ORPHAN_FILES);
    DdlRecord byDefault = ddl("alter table tpch.orders execute remove_orphan_files");
    // Thresholds are echoed in the unit the user gave; the default in whole days.
    assertThat(byDefault.getDescription()).contains("retention_threshold => '7d'");
    assertThat(expire.getDescription()).contains("retention_threshold => '8d'");
    DdlRecord inHours = new dev.squall.planner.DistributedPlanner(dev.squall.planner.testing.TpchCatalog.create(0.01))
        .plan("ALTER TABLE tpch.orders EXECUTE expire_snapshots(retention_threshold => '1h')",
            Planning.SETTINGS.withMinRetention(java.time.Duration.ZERO)).ddl().orElseThrow();
    assertThat(inHours.getDescription()).contains("retention_threshold => '1h'");
  }

  @Test
  void retentionBelowTheMinimumIsRefusedNamingTheProperty() {
    PlanningException e = refused("ALTER TABLE tpch.orders EXECUTE expire_snapshots(retention_threshold => '36h')");
    assertThat(e.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(e.getMessage()).contains("retention_threshold 36h is shorter").contains("7.00d").contains("table_procedure_min_retention");
    assertThat(e.column()).isEqualTo(50);
    DdlRecord lowered = new dev.squall.planner.DistributedPlanner(dev.squall.planner.testing.TpchCatalog.create(0.01))
        .plan("ALTER TABLE tpch.orders EXECUTE expire_snapshots(retention_threshold => '36h')",
            Planning.SETTINGS.withMinRetention(java.time.Duration.ofHours(1))).ddl().orElseThrow();
    assertThat(lowered.getKind()).isEqualTo(DdlRecord.Kind.EXPIRE_SNAPSHOTS);
  }

  @Test
  void malformedOrUnknownProceduresAreRefusedAtTheirPosition() {
    PlanningException unknown = refused("ALTER TABLE tpch.orders EXECUTE rollback_to_snapshot(1)");
    assertThat(unknown.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(unknown.getMessage()).contains("'rollback_to_snapshot'");
    assertThat(unknown.column()).isEqualTo(33);
    PlanningException noValue = refused("ALTER TABLE tpch.orders EXECUTE optimize(file_size_threshold => )");
    assertThat(noValue.code()).isEqualTo(Code.SYNTAX_ERROR);
    assertThat(noValue.column()).isEqualTo(65);
    PlanningException badSize = refused("ALTER TABLE tpch.orders EXECUTE optimize(file_size_threshold => '10 parsecs')");
    assertThat(badSize.getMessage()).contains("10 parsecs");
    assertThat(badSize.column()).isEqualTo(42);
    PlanningException twoArgs = refused("ALTER TABLE tpch.orders EXECUTE expire_snapshots('7d', '8d')");
    assertThat(twoArgs.getMessage()).contains("takes 1 argument");
    PlanningException unclosed = refused("ALTER TABLE tpch.orders EXECUTE optimize(");
    assertThat(unclosed.code()).isEqualTo(Code.SYNTAX_ERROR);
  }

  @Test
  void optimizeIsAWriteThatRewritesTheSmallFilesOnly() {
    var catalog = dev.squall.planner.testing.TpchCatalog.create(0.01);
    PlannedQuery q = new dev.squall.planner.DistributedPlanner(catalog)
        .plan("ALTER TABLE tpch.orders EXECUTE optimize(file_size_threshold => '1GB')", Planning.SETTINGS);
    assertThat(q.isWrite()).isTrue();
    var target = q.write().orElseThrow();
    assertThat(target.isRewrite()).isTrue();
    org.apache.iceberg.Table orders = catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("tpch", "orders"));
    List<String> all = new java.util.ArrayList<>();
    orders.currentSnapshot().addedDataFiles(orders.io()).forEach(f -> all.add(f.location()));
    if (all.size() > 1) {
      assertThat(target.rewrite().getDataFilePathsList()).containsExactlyInAnyOrderElementsOf(all);
    }
    assertThat(target.baseSnapshotId()).hasValue(orders.currentSnapshot().snapshotId());
    // The answer is one line of text naming the statement, as the other procedures' answers do.
    assertThat(target.rewrite().getDescription())
        .isEqualTo("ALTER TABLE tpch.orders EXECUTE optimize(file_size_threshold => '1GB')");
    assertThat(q.outputSchema()).isEqualTo(PlannedQuery.DDL_SCHEMA);
    PlannedQuery none = new dev.squall.planner.DistributedPlanner(catalog)
        .plan("ALTER TABLE tpch.orders EXECUTE optimize(file_size_threshold => '1B')", Planning.SETTINGS);
    assertThat(none.write().orElseThrow().rewrite().getDataFilePathsList()).isEmpty();
    // Files left alone are skipped by every scan.
    assertThat(dev.squall.planner.testing.StageGraphs.operators(none.stageGraph(),
        dev.squall.proto.v1.Operator.OpCase.SCAN).get(0).getScan().getSkippedDataFilesList())
        .containsExactlyInAnyOrderElementsOf(all);
  }

  @Test
  void createTableMapsTrinoTypesToIceberg() {
    DdlRecord r = ddl("CREATE TABLE tpch.t (id bigint NOT NULL, name varchar COMMENT 'who', "
        + "price decimal(12, 2), ts timestamp(6), d date, ok boolean, n integer, x double) "
        + "PARTITIONED BY (day(ts), bucket(4, id)) WITH (format = 'PARQUET', format_version = 2)");
    assertThat(r.getKind()).isEqualTo(DdlRecord.Kind.CREATE_TABLE);
    assertThat(r.getNamespaceList()).containsExactly("tpch");
    assertThat(r.getTable()).isEqualTo("t");
    Schema schema = SchemaParser.fromJson(r.getSchemaJson());
    assertThat(schema.findField("id").isRequired()).isTrue();
    assertThat(schema.findField("name").doc()).isEqualTo("who");
    assertThat(schema.findField("price").type()).isEqualTo(Types.DecimalType.of(12, 2));
    assertThat(schema.findField("ts").type()).isEqualTo(Types.TimestampType.withoutZone());
    assertThat(PartitionSpecParser.fromJson(schema, r.getPartitionSpecJson()).fields()).hasSize(2);
    assertThat(r.getPropertiesMap()).containsEntry("format-version", "2");
  }

  @Test
  void trinoPartitioningPropertyIsAccepted() {
    DdlRecord r = ddl("create table tpch.t2 (a bigint, s varchar) with (partitioning = ARRAY['bucket(a, 8)', 's'])");
    Schema schema = SchemaParser.fromJson(r.getSchemaJson());
    assertThat(PartitionSpecParser.fromJson(schema, r.getPartitionSpecJson()).fields())
        .extracting(f -> f.transform().toString()).containsExactly("bucket[8]", "identity");
  }

  @Test
  void sortedByBecomesTheTablesSortOrderAndRefusesWhatIsNotAColumnAtItsPosition() {
    DdlRecord r = ddl("create table tpch.t3 (a bigint, s varchar, d date)\n"
        + "with (sorted_by = ARRAY['s', 'a DESC', '\"D\" asc nulls last', ])".replace(", ])", "])"));
    Schema schema = SchemaParser.fromJson(r.getSchemaJson());
    SortOrder order = SortOrderParser.fromJson(schema, r.getSortOrderJson());
    assertThat(order.fields()).extracting(f -> schema.findColumnName(f.sourceId()) + " " + f.direction() + " "
        + f.nullOrder()).containsExactly("s ASC NULLS FIRST", "a DESC NULLS LAST", "d ASC NULLS LAST");
    assertThat(order.fields()).allMatch(f -> f.transform().isIdentity());
    assertThat(ddl("create table tpch.t3 (a bigint)").getSortOrderJson()).isEmpty();

    PlanningException transform = refused("create table tpch.t3 (a bigint)\nwith (sorted_by = ARRAY['a', 'bucket(a, 4)'])");
    assertThat(transform.code()).isEqualTo(Code.UNSUPPORTED);
    assertThat(transform.getMessage()).contains("'bucket(a, 4)'");
    assertThat(List.of(transform.line(), transform.column())).containsExactly(2, 30);
    PlanningException unknown = refused("create table tpch.t3 (a bigint) with (sorted_by = ARRAY['b'])");
    assertThat(unknown.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(List.of(unknown.line(), unknown.column())).containsExactly(1, 57);
    assertThat(refused("create table tpch.t3 (a bigint) with (sorted_by = ARRAY['a', 'A desc'])").code())
        .isEqualTo(Code.VALIDATION_ERROR);
    assertThat(refused("create table tpch.t3 (a bigint) with (sorted_by = ARRAY['a sideways'])").code())
        .isEqualTo(Code.VALIDATION_ERROR);
  }

  @Test
  void aTablePropertyGivenTwiceIsRefusedAtItsSecondPosition() {
    for (String with : List.of("format_version = 2, FORMAT_VERSION = 3", "sorted_by = ARRAY['a'], sorted_by = ARRAY['a']",
        "partitioning = ARRAY['a'], partitioning = ARRAY['a']",
        "\"write.delete.mode\" = 'copy-on-write', \"write.delete.mode\" = 'merge-on-read'")) {
      String sql = "create table tpch.t3 (a bigint) with (" + with + ")";
      PlanningException e = refused(sql);
      assertThat(e.code()).as(sql).isEqualTo(Code.VALIDATION_ERROR);
      assertThat(e.getMessage()).as(sql).startsWith("Duplicate property: ");
      assertThat(e.column()).as(sql).isEqualTo(sql.indexOf(", ", sql.indexOf("with (")) + 3);
      PlanningException ctas = refused("create table tpch.t4 with (" + with + ") as select 1 as a");
      assertThat(ctas.getMessage()).as(with).startsWith("Duplicate property: ");
    }
  }

  @Test
  void createTableAsTakesWithPropertiesAndSortsEachWriterTasksRowsByPartitionThenSortOrder() {
    PlannedQuery q = Planning.sf1("create table tpch.t5 with (format_version = 3, partitioning = ARRAY['month(o_orderdate)'],"
        + " sorted_by = ARRAY['o_custkey DESC']) as select o_orderkey, o_custkey, o_orderdate from tpch.orders");
    WriteTarget target = q.write().orElseThrow();
    assertThat(target.properties()).containsEntry("format-version", "3");
    assertThat(target.sortOrder().fields()).hasSize(1);
    assertThat(target.toDataFileWrite().getSortOrderJson()).isNotEmpty();
    StageGraph graph = q.stageGraph();
    Operator root = graph.getStagesList().stream().filter(st -> st.getStageId() == graph.getRootStageId())
        .findFirst().orElseThrow().getFragment();
    while (!root.hasSort()) {
      root = root.hasProject() ? root.getProject().getInput() : Operator.getDefaultInstance();
      assertThat(root).isNotEqualTo(Operator.getDefaultInstance());
    }
    // Year and month of o_orderdate (appended columns 3 and 4), then o_custkey descending.
    assertThat(root.getSort().getKeysList()).extracting(k -> k.getColumn() + (k.getDescending() ? " desc" : ""))
        .containsExactly("3", "4", "1 desc");

    // An unsorted table's write has no sort.
    PlannedQuery plain = Planning.sf1("create table tpch.t6 as select o_orderkey from tpch.orders");
    assertThat(plain.write().orElseThrow().toDataFileWrite().getSortOrderJson()).isEmpty();
    assertThat(plain.stageGraph().toString()).doesNotContain("sort {");
  }

  @Test
  void namesLongerThanTheCatalogAllowsAreRefusedAtTheName() {
    // A 3,000-character name reached storage and failed there with a 500 after retries.
    String longName = "y".repeat(3000);
    for (String sql : List.of("CREATE TABLE tpch.\"" + longName + "\" (a int)",
        "CREATE TABLE tpch.\"" + longName + "\" AS SELECT 1 AS a",
        "CREATE SCHEMA \"" + longName + "\"")) {
      PlanningException e = refused(sql);
      assertThat(e.code()).as(sql.substring(0, 20)).isEqualTo(Code.VALIDATION_ERROR);
      assertThat(e.getMessage()).contains("3000 bytes").contains("at most 255");
      assertThat(e.line()).isEqualTo(1);
    }
    assertThat(ddl("CREATE TABLE tpch.\"" + "y".repeat(255) + "\" (a int)").getTable()).hasSize(255);
  }

  @Test
  void existingTableIsRefusedUnlessIfNotExists() {
    PlanningException e = refused("CREATE TABLE tpch.ORDERS (a bigint)");
    assertThat(e.code()).isEqualTo(Code.TABLE_EXISTS);
    assertThat(e.column()).isEqualTo(19);
    assertThat(ddl("CREATE TABLE IF NOT EXISTS tpch.orders (a bigint)").getIfExistsClause()).isTrue();
  }

  @Test
  void unsupportedAlterIsRefusedWholeWithPosition() {
    PlanningException e = refused("ALTER TABLE tpch.orders\n  SET PROPERTIES format_version = 2");
    assertThat(e.code()).isEqualTo(Code.UNSUPPORTED);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(3);
    assertThat(refused("CREATE VIEW v AS SELECT 1").code()).isEqualTo(Code.UNSUPPORTED);
    assertThat(refused("DROP SCHEMA tpch CASCADE").column()).isEqualTo(18);
  }

  @Test
  void typesIcebergCannotHoldAreRefusedAtTheType() {
    PlanningException e = refused("CREATE TABLE tpch.t (a varchar(10))");
    assertThat(e.code()).isEqualTo(Code.UNSUPPORTED);
    assertThat(e.column()).isEqualTo(31);
    assertThat(refused("CREATE TABLE tpch.t (a timestamp with time zone)").column()).isEqualTo(34);
  }

  @Test
  void alterTableChecksColumns() {
    assertThat(refused("ALTER TABLE tpch.nation ADD COLUMN N_NAME varchar").code()).isEqualTo(Code.VALIDATION_ERROR);
    PlanningException unknown = refused("ALTER TABLE tpch.nation RENAME COLUMN nope TO x");
    assertThat(unknown.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(unknown.column()).isEqualTo(39);
    DdlRecord rename = ddl("ALTER TABLE nation RENAME COLUMN N_COMMENT TO note");
    assertThat(rename.getColumn()).isEqualTo("n_comment");
    assertThat(rename.getNewName()).isEqualTo("note");
    DdlRecord to = ddl("ALTER TABLE tpch.nation RENAME TO countries");
    assertThat(to.getNewNamespaceList()).containsExactly("tpch");
    assertThat(to.getNewName()).isEqualTo("countries");
  }

  @Test
  void dropChecksExistence() {
    assertThat(refused("DROP TABLE tpch.nope").code()).isEqualTo(Code.UNKNOWN_TABLE);
    assertThat(ddl("DROP TABLE IF EXISTS tpch.nope").getTable()).isEmpty();
    assertThat(refused("DROP SCHEMA tpch").reason()).contains("not empty");
    assertThat(refused("CREATE SCHEMA TPCH").code()).isEqualTo(Code.SCHEMA_EXISTS);
    assertThat(ddl("CREATE SCHEMA IF NOT EXISTS tpch").getIfExistsClause()).isTrue();
  }

  @Test
  void explainOfDdlDescribesIt() {
    assertThat(Planning.sf1("EXPLAIN DROP TABLE tpch.region").explain()).contains("DDL: DROP TABLE tpch.region");
  }
}
