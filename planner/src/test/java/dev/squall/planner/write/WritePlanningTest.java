package dev.squall.planner.write;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.planner.DistributedPlanner;
import dev.squall.planner.PlannedQuery;
import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.StageGraphs;
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.proto.v1.DataFileWrite;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Stage;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * INSERT and CREATE TABLE AS plan as the query plus a final projection onto the target's columns
 * in the root stage; the target (schema, spec, location, properties, base snapshot) is resolved
 * against a real Iceberg catalog, and bad writes are refused with a position.
 */
class WritePlanningTest {
  private static final TableIdentifier SALES = TableIdentifier.of(TpchCatalog.TPCH, "sales");

  private InMemoryCatalog catalog;
  private Table sales;

  @BeforeEach
  void createCatalog() {
    catalog = TpchCatalog.create(0.01);
    sales = catalog.buildTable(SALES, new Schema(
            required(1, "k", Types.LongType.get()),
            optional(2, "qty", Types.DoubleType.get()),
            optional(3, "note", Types.StringType.get()),
            optional(4, "shipped", Types.DateType.get())))
        .withProperty(TableProperties.PARQUET_COMPRESSION, "zstd")
        .withProperty("owner", "analytics")
        .create();
  }

  private PlannedQuery plan(String sql) {
    return new DistributedPlanner(catalog).plan(sql, Planning.SETTINGS);
  }

  private PlanningException refused(String sql) {
    PlanningException e = catchThrowableOfType(PlanningException.class, () -> plan(sql));
    assertThat(e).as("planning of %s must fail", sql).isNotNull();
    return e;
  }

  private static List<DataType.Kind> kinds(dev.squall.proto.v1.Schema schema) {
    return schema.getFieldsList().stream().map(f -> f.getType().getKind()).toList();
  }

  private static List<String> names(dev.squall.proto.v1.Schema schema) {
    return schema.getFieldsList().stream().map(Field::getName).toList();
  }

  /** The expressions of the root fragment's top Project. */
  private static List<Expr> rootProjection(PlannedQuery q) {
    Operator top = StageGraphs.root(q.stageGraph()).getFragment();
    assertThat(top.getOpCase()).isEqualTo(Operator.OpCase.PROJECT);
    return top.getProject().getExpressionsList();
  }

  private static boolean isCast(Expr e) {
    return e.hasCall() && e.getCall().getFunction() == Function.CAST;
  }

  @Test
  void insertSelectCastsTheQueryColumnsToTheTableTypesInTheRootStage() {
    PlannedQuery q = plan("insert into sales select l_linenumber, l_quantity, l_comment, l_shipdate from lineitem");
    StageGraphs.assertWellFormed(q.stageGraph());
    Stage root = StageGraphs.root(q.stageGraph());
    assertThat(names(root.getOutputSchema())).containsExactly("k", "qty", "note", "shipped");
    assertThat(kinds(root.getOutputSchema())).containsExactly(
        DataType.Kind.BIGINT, DataType.Kind.DOUBLE, DataType.Kind.VARCHAR, DataType.Kind.DATE);
    List<Expr> projection = rootProjection(q);
    // INTEGER -> BIGINT and DECIMAL(15,2) -> DOUBLE are casts; VARCHAR and DATE pass through.
    assertThat(isCast(projection.get(0))).isTrue();
    assertThat(isCast(projection.get(1))).isTrue();
    assertThat(isCast(projection.get(3))).isFalse();

    assertThat(q.isWrite()).isTrue();
    assertThat(q.outputSchema()).isEqualTo(PlannedQuery.ROW_COUNT_SCHEMA);
    WriteTarget target = q.write().orElseThrow();
    assertThat(target.table()).isEqualTo(SALES);
    assertThat(target.createsTable()).isFalse();
    assertThat(target.schema().sameSchema(sales.schema())).isTrue();
    assertThat(target.location()).isEqualTo(sales.location());
    assertThat(target.baseSnapshotId()).isEmpty();
  }

  @Test
  void insertRecordsTheSnapshotItWasPlannedAgainst() {
    long lineitemSnapshot = catalog.loadTable(TableIdentifier.of(TpchCatalog.TPCH, "lineitem"))
        .currentSnapshot().snapshotId();
    PlannedQuery q = plan("insert into tpch.lineitem select * from lineitem where l_orderkey < 10");
    assertThat(q.write().orElseThrow().baseSnapshotId()).hasValue(lineitemSnapshot);
    assertThat(names(StageGraphs.root(q.stageGraph()).getOutputSchema()))
        .isEqualTo(TpchCatalog.lineitemSchema().columns().stream().map(Types.NestedField::name).toList());
  }

  @Test
  void insertValuesPlansOneStageWithTheTableTypes() {
    PlannedQuery q = plan("INSERT INTO sales VALUES (1, 2.5, 'a', DATE '2024-01-31'), (2, 3, 'bb', NULL)");
    StageGraphs.assertWellFormed(q.stageGraph());
    assertThat(q.stageGraph().getStagesCount()).isEqualTo(1);
    Stage root = StageGraphs.root(q.stageGraph());
    assertThat(kinds(root.getOutputSchema())).containsExactly(
        DataType.Kind.BIGINT, DataType.Kind.DOUBLE, DataType.Kind.VARCHAR, DataType.Kind.DATE);
    assertThat(StageGraphs.operators(root.getFragment(), Operator.OpCase.VALUES)).hasSize(1);
  }

  @Test
  void insertWithColumnListPutsEachValueInItsColumnAndNullInTheOthers() {
    PlannedQuery q = plan("insert into sales (note, K) select o_comment, o_orderkey from orders");
    Stage root = StageGraphs.root(q.stageGraph());
    assertThat(names(root.getOutputSchema())).containsExactly("k", "qty", "note", "shipped");
    List<Expr> projection = rootProjection(q);
    // k <- o_orderkey, qty <- NULL, note <- o_comment, shipped <- NULL
    assertThat(projection.get(0).hasColumn()).isTrue();
    assertThat(projection.get(1).getLiteral().getIsNull()).isTrue();
    assertThat(projection.get(1).getType().getKind()).isEqualTo(DataType.Kind.DOUBLE);
    assertThat(projection.get(2).hasColumn()).isTrue();
    assertThat(projection.get(0).getColumn()).isNotEqualTo(projection.get(2).getColumn());
    assertThat(projection.get(3).getLiteral().getIsNull()).isTrue();
  }

  @Test
  void insertWithoutANotNullColumnIsRefused() {
    PlanningException e = refused("insert into sales (note) select o_comment from orders");
    assertThat(e.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("'k'").contains("NOT NULL");
  }

  @Test
  void insertIntoMissingTableIsNamedWithItsPosition() {
    PlanningException e = refused("insert into\n  tpch.nosuch select 1");
    assertThat(e.code()).isEqualTo(Code.UNKNOWN_TABLE);
    assertThat(e.reason()).contains("nosuch");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(3);
  }

  @Test
  void insertWithTheWrongColumnCountIsRefusedAtTheQuery() {
    PlanningException e = refused("insert into sales\nselect o_orderkey, o_comment from orders");
    assertThat(e.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("4 target columns").contains("produces 2");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(1);
  }

  @Test
  void varcharIntoBigintIsRefusedAtTheSelectItem() {
    PlanningException e = refused("insert into sales (k, note)\nselect o_comment, o_comment from orders");
    assertThat(e.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("column 'k'").contains("VARCHAR").contains("BIGINT").doesNotContain("long");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(8);
  }

  @Test
  void nullIntoANotNullColumnIsRefusedAtTheValue() {
    PlanningException e = refused("insert into sales (k, note) values (null, 'x')");
    assertThat(e.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(e.reason()).contains("NULL").contains("'k'");
    assertThat(e.column()).isEqualTo(37);
  }

  @Test
  void assignmentRulesFollowTheColumnTypeFamily() {
    assertThat(ColumnAssignment.assignable(SqlTypeName.INTEGER, Types.LongType.get())).isTrue();
    assertThat(ColumnAssignment.assignable(SqlTypeName.DOUBLE, Types.DecimalType.of(10, 2))).isTrue();
    assertThat(ColumnAssignment.assignable(SqlTypeName.CHAR, Types.StringType.get())).isTrue();
    assertThat(ColumnAssignment.assignable(SqlTypeName.DATE, Types.TimestampType.withoutZone())).isTrue();
    assertThat(ColumnAssignment.assignable(SqlTypeName.NULL, Types.DateType.get())).isTrue();
    assertThat(ColumnAssignment.assignable(SqlTypeName.VARCHAR, Types.LongType.get())).isFalse();
    assertThat(ColumnAssignment.assignable(SqlTypeName.BIGINT, Types.StringType.get())).isFalse();
    assertThat(ColumnAssignment.assignable(SqlTypeName.TIMESTAMP, Types.DateType.get())).isFalse();
    assertThat(ColumnAssignment.assignable(SqlTypeName.BOOLEAN, Types.IntegerType.get())).isFalse();
    assertThat(ColumnAssignment.assignable(SqlTypeName.INTEGER, Types.UUIDType.get())).isFalse();
  }

  @Test
  void insertIntoAPartitionedTableCarriesItsSpec() {
    PartitionSpec spec = PartitionSpec.builderFor(sales.schema()).day("shipped").bucket("k", 8).build();
    catalog.buildTable(TableIdentifier.of(TpchCatalog.TPCH, "daily"), sales.schema()).withPartitionSpec(spec).create();
    WriteTarget target = plan("insert into daily select l_orderkey, l_quantity, l_comment, l_shipdate from lineitem")
        .write().orElseThrow();
    assertThat(target.spec().fields()).hasSize(2);
    assertThat(target.spec().fields().get(0).transform().toString()).isEqualTo("day");
    assertThat(target.spec().fields().get(1).transform().toString()).isEqualTo("bucket[8]");
  }

  @Test
  void partitionedCreateTableAsHashesRowsOnTheirMonthBeforeTheWriterStage() {
    PlannedQuery q = plan("explain create table tpch.monthly partitioned by (month(l_shipdate)) as "
        + "select l_orderkey, l_quantity, l_shipdate from lineitem");
    StageGraphs.assertWellFormed(q.stageGraph());
    Stage root = StageGraphs.root(q.stageGraph());
    assertThat(names(root.getOutputSchema())).containsExactly("l_orderkey", "l_quantity", "l_shipdate");
    var into = StageGraphs.edgesInto(q.stageGraph(), root.getStageId());
    assertThat(into).hasSize(1);
    var hash = into.get(0).getPartitioning().getHash();
    // Keys are EXTRACT(YEAR) and EXTRACT(MONTH) of l_shipdate, appended after the table's columns.
    assertThat(hash.getKeysList()).containsExactly(3, 4);
    Operator producerTop = StageGraphs.stage(q.stageGraph(), into.get(0).getProducerStageId()).getFragment();
    List<Function> keyFunctions = producerTop.getProject().getExpressionsList().subList(3, 5).stream()
        .map(e -> e.getCall().getFunction()).toList();
    assertThat(keyFunctions).containsExactly(Function.EXTRACT_YEAR, Function.EXTRACT_MONTH);
    // The writer stage drops the keys: it writes the table's columns only.
    assertThat(rootProjection(q)).hasSize(3);
    assertThat(q.explain()).contains("hash");
    // Before that it sorts on the keys, so that each month reaches the writer in one run, and
    // tells the writer so: one open file at a time.
    Operator sorted = StageGraphs.root(q.stageGraph()).getFragment().getProject().getInput();
    assertThat(sorted.getOpCase()).isEqualTo(Operator.OpCase.SORT);
    assertThat(sorted.getSort().getKeysList()).extracting(k -> k.getColumn()).containsExactly(3, 4);
    assertThat(q.write().orElseThrow().toDataFileWrite().getClustered()).isTrue();
  }

  @Test
  void identityPartitionsClusterOnTheColumnAndUnpartitionedWritesGetNoEdge() {
    PlannedQuery byStatus = plan("create table tpch.by_status partitioned by (o_orderstatus) as "
        + "select o_orderkey, o_orderstatus from orders");
    Stage root = StageGraphs.root(byStatus.stageGraph());
    var into = StageGraphs.edgesInto(byStatus.stageGraph(), root.getStageId());
    assertThat(into).hasSize(1);
    assertThat(into.get(0).getPartitioning().getHash().getKeysList()).containsExactly(1);
    PlannedQuery flat = plan("create table tpch.flat as select o_orderkey, o_orderstatus from orders");
    assertThat(flat.stageGraph().getStagesCount()).isEqualTo(1);
  }

  @Test
  void unknownColumnInTheColumnListIsNamedWithItsPosition() {
    PlanningException e = refused("insert into sales (k, nosuch) select 1, 2");
    assertThat(e.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(e.reason()).contains("nosuch");
    assertThat(e.column()).isEqualTo(23);
  }

  @Test
  void errorInsideTheInsertedQueryKeepsItsPosition() {
    PlanningException e = refused("insert into sales\nselect l_nonsense from lineitem");
    assertThat(e.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(8);
  }

  @Test
  void createTableAsMapsQueryTypesToIcebergTypesAndCreatesNothing() {
    PlannedQuery q = plan("""
        create table tpch.revenue as
        select l_returnflag as flag, sum(l_extendedprice) as revenue, count(*) as n,
               cast(l_linenumber as smallint) as line, max(l_shipdate) as last_ship,
               avg(l_quantity) as avg_qty, 'x' as tag
        from lineitem group by l_returnflag, l_linenumber""");
    StageGraphs.assertWellFormed(q.stageGraph());
    WriteTarget target = q.write().orElseThrow();
    assertThat(target.createsTable()).isTrue();
    assertThat(target.table()).isEqualTo(TableIdentifier.of("tpch", "revenue"));
    assertThat(target.schema().asStruct()).isEqualTo(new Schema(
        optional(1, "flag", Types.StringType.get()),
        optional(2, "revenue", Types.DecimalType.of(38, 2)),
        optional(3, "n", Types.LongType.get()),
        optional(4, "line", Types.IntegerType.get()),
        optional(5, "last_ship", Types.DateType.get()),
        optional(6, "avg_qty", Types.DoubleType.get()),
        optional(7, "tag", Types.StringType.get())).asStruct());
    assertThat(target.spec().isUnpartitioned()).isTrue();
    assertThat(target.location()).endsWith("revenue");
    assertThat(target.baseSnapshotId()).isEmpty();
    assertThat(catalog.tableExists(target.table())).isFalse();

    Stage root = StageGraphs.root(q.stageGraph());
    assertThat(names(root.getOutputSchema()))
        .containsExactly("flag", "revenue", "n", "line", "last_ship", "avg_qty", "tag");
    assertThat(kinds(root.getOutputSchema())).containsExactly(DataType.Kind.VARCHAR, DataType.Kind.DECIMAL,
        DataType.Kind.BIGINT, DataType.Kind.INTEGER, DataType.Kind.DATE, DataType.Kind.DOUBLE,
        DataType.Kind.VARCHAR);
    assertThat(root.getOutputSchema().getFields(1).getType().getPrecision()).isEqualTo(38);
    // The TPC-H aggregate keeps its partial/final split; the final projection is in the root stage.
    assertThat(q.stageGraph().getStagesCount()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void createTableAsBuildsIdentityDayAndBucketPartitionSpecs() {
    PlannedQuery q = plan("""
        CREATE TABLE recent PARTITIONED BY (o_orderstatus, day(o_orderdate), bucket(16, O_CUSTKEY))
        AS SELECT o_orderkey, o_custkey, o_orderstatus, o_orderdate FROM orders""");
    PartitionSpec spec = q.write().orElseThrow().spec();
    Schema schema = q.write().orElseThrow().schema();
    List<String> fields = new ArrayList<>();
    for (PartitionField f : spec.fields()) {
      fields.add(f.transform() + ":" + schema.findColumnName(f.sourceId()));
    }
    assertThat(fields).containsExactly("identity:o_orderstatus", "day:o_orderdate", "bucket[16]:o_custkey");
    assertThat(q.write().orElseThrow().table()).isEqualTo(TableIdentifier.of("tpch", "recent"));
    assertThat(q.explain()).startsWith(
        "Write: CREATE TABLE tpch.recent PARTITIONED BY (o_orderstatus, day(o_orderdate), bucket[16](o_custkey))");
  }

  @Test
  void dataFileWriteCarriesSchemaSpecFormatAndOnlyFileProperties() {
    PlannedQuery q = plan("create table t2 partitioned by (bucket(4, k)) as select o_orderkey as k from orders");
    WriteTarget target = q.write().orElseThrow();
    DataFileWrite write = target.toDataFileWrite();
    assertThat(write.getTableLocation()).isEqualTo(target.location());
    assertThat(write.getFileFormat()).isEqualTo("parquet");
    Schema schema = SchemaParser.fromJson(write.getIcebergSchemaJson());
    assertThat(schema.sameSchema(target.schema())).isTrue();
    assertThat(PartitionSpecParser.fromJson(schema, write.getPartitionSpecJson())).isEqualTo(target.spec());
    // A bucket's rows do not come in one run when sorted on the source column.
    assertThat(write.getClustered()).isFalse();

    DataFileWrite insert = plan("insert into sales (k) values (1)").write().orElseThrow().toDataFileWrite();
    assertThat(insert.getPropertiesMap()).containsEntry(TableProperties.PARQUET_COMPRESSION, "zstd");
    assertThat(insert.getPropertiesMap()).doesNotContainKey("owner");
    assertThat(insert.getPropertiesMap().keySet()).allMatch(k -> k.startsWith("write."));
  }

  @Test
  void createTableAsOverAnExistingTableIsRefusedAtTheName() {
    PlanningException e = refused("create table\n  tpch.SALES as select 1 as a");
    assertThat(e.code()).isEqualTo(Code.TABLE_EXISTS);
    assertThat(e.reason()).contains("tpch.sales");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(8);
  }

  @Test
  void createTableAsInAMissingNamespaceIsRefused() {
    PlanningException e = refused("create table nowhere.t as select 1 as a");
    assertThat(e.code()).isEqualTo(Code.UNKNOWN_SCHEMA);
    assertThat(e.reason()).contains("nowhere").contains("create it with CREATE SCHEMA");
    assertThat(e.column()).isEqualTo(14);
    assertThat(catalog.namespaceExists(org.apache.iceberg.catalog.Namespace.of("nowhere"))).isFalse();
  }

  @Test
  void partitionClauseErrorsNameTheItem() {
    PlanningException unknownColumn = refused("create table t3 partitioned by (day(nosuch)) as select o_orderdate from orders");
    assertThat(unknownColumn.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(unknownColumn.column()).isEqualTo(37);

    PlanningException unknownTransform = refused("create table t3 partitioned by (week(o_orderdate)) as select o_orderdate from orders");
    assertThat(unknownTransform.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(unknownTransform.reason()).contains("week");
    assertThat(unknownTransform.column()).isEqualTo(33);

    PlanningException zeroBuckets = refused("create table t3 partitioned by (bucket(0, k)) as select o_orderkey as k from orders");
    assertThat(zeroBuckets.reason()).contains("Bucket count").contains("got 0");
    assertThat(zeroBuckets.column()).isEqualTo(33);
    PlanningException negativeBuckets = refused("create table t3 partitioned by (k, bucket(-3, k)) as select o_orderkey as k from orders");
    assertThat(negativeBuckets.reason()).contains("got -3");
    assertThat(negativeBuckets.column()).isEqualTo(36);

    PlanningException dayOfString = refused("create table t3 partitioned by (day(s)) as select o_comment as s from orders");
    assertThat(dayOfString.code()).as(dayOfString.getMessage()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(dayOfString.reason()).contains("day(s)").contains("string");
  }

  @Test
  void errorInsideTheCreateTableAsQueryPointsIntoTheOriginalText() {
    PlanningException syntax = refused("create table t4\n  partitioned by (a)\n  as select 1 as a frm orders");
    assertThat(syntax.code()).isEqualTo(Code.SYNTAX_ERROR);
    assertThat(syntax.line()).isEqualTo(3);
    assertThat(syntax.column()).isEqualTo(20);

    PlanningException unknown = refused("create table t4 as\nselect o_nonsense from orders");
    assertThat(unknown.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(unknown.line()).isEqualTo(2);
    assertThat(unknown.column()).isEqualTo(8);
  }

  @Test
  void createTableAsHeaderSyntaxErrorsArePositioned() {
    PlanningException noAs = refused("create table t5 select 1");
    assertThat(noAs.code()).isEqualTo(Code.SYNTAX_ERROR);
    assertThat(noAs.column()).isEqualTo(17);
    PlanningException unclosed = refused("create table t5 partitioned by (a as select 1 as a");
    assertThat(unclosed.code()).isEqualTo(Code.SYNTAX_ERROR);
    assertThat(unclosed.column()).isEqualTo(35);
    PlanningException ifNotExists = refused("create table if not exists t5 as select 1 as a");
    assertThat(ifNotExists.code()).isEqualTo(Code.UNSUPPORTED);
  }

  @Test
  void createTableAsRefusesUnnamedAndUntypedColumns() {
    PlanningException unnamed = refused("create table t6 as select o_orderkey + 1 from orders");
    assertThat(unnamed.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(unnamed.reason()).contains("Column 1").contains("AS");
    assertThat(unnamed.column()).isEqualTo(27);
    PlanningException untyped = refused("create table t6 as select null as x");
    assertThat(untyped.reason()).contains("CAST");
    PlanningException repeated = refused("create table t6 as select o_orderkey, o_custkey as O_ORDERKEY from orders");
    assertThat(repeated.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(repeated.reason()).contains("appears twice");
    assertThat(repeated.column()).isEqualTo(39);
  }

  @Test
  void explainOfAnInsertNamesTheTargetAndRunsNothing() {
    PlannedQuery text = plan("explain insert into sales (k) select o_orderkey from orders");
    assertThat(text.isExplain()).isTrue();
    assertThat(text.isWrite()).isTrue();
    assertThat(text.explain()).startsWith("Write: INSERT INTO tpch.sales");
    PlannedQuery json = plan("explain (format json) create table t7 as select o_orderkey as k from orders");
    assertThat(json.explain()).contains("\"write\" : \"CREATE TABLE tpch.t7\"");
    assertThat(catalog.tableExists(TableIdentifier.of("tpch", "t7"))).isFalse();
  }

  @Test
  void explainPrefixKeepsErrorPositionsOfAWrite() {
    PlanningException e = refused("explain create table\n  tpch.sales as select 1 as a");
    assertThat(e.code()).isEqualTo(Code.TABLE_EXISTS);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(8);
  }

  @Test
  void queriesStillPlanWithoutAWriteTarget() {
    PlannedQuery q = plan("select count(*) as n from orders");
    assertThat(q.isWrite()).isFalse();
    assertThat(names(q.outputSchema())).containsExactly("n");
    assertThat(catalog.listTables(TpchCatalog.TPCH)).hasSize(9);
  }
}
