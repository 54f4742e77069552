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
import dev.squall.planner.testing.TpchCatalog;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Edge;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.Stage;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DELETE and UPDATE plan as a scan yielding each matching row's data file and position (and for
 * UPDATE its new values, cast to the columns' types), hashed on the data file into the writer
 * stage; targets that cannot take row-level deletes are refused with a position.
 */
class RowLevelPlanningTest {
  private static final TableIdentifier SALES = TableIdentifier.of(TpchCatalog.TPCH, "sales");

  private InMemoryCatalog catalog;

  @BeforeEach
  void createCatalog() {
    catalog = TpchCatalog.create(0.01);
    catalog.buildTable(SALES, new Schema(
            required(1, "k", Types.LongType.get()),
            optional(2, "qty", Types.DoubleType.get()),
            optional(3, "note", Types.StringType.get()),
            optional(4, "shipped", Types.DateType.get())))
        .withProperty(TableProperties.FORMAT_VERSION, "2")
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

  private static Stage root(PlannedQuery q) {
    return q.stageGraph().getStagesList().stream()
        .filter(s -> s.getStageId() == q.stageGraph().getRootStageId()).findFirst().orElseThrow();
  }

  private static List<DataType.Kind> kinds(Stage stage) {
    return stage.getOutputSchema().getFieldsList().stream().map(f -> f.getType().getKind()).toList();
  }

  @Test
  void deleteYieldsFileAndPositionHashedOnTheFileIntoTheWriterStage() {
    PlannedQuery q = plan("delete from tpch.sales where k > 3");
    assertThat(q.write()).isPresent();
    assertThat(q.write().get().isRowDelete()).isTrue();
    assertThat(q.explain()).contains("DELETE FROM tpch.sales");
    assertThat(kinds(root(q))).as(q.logicalPlan()).containsExactly(DataType.Kind.VARCHAR, DataType.Kind.BIGINT);
    Edge into = q.stageGraph().getEdgesList().stream()
        .filter(e -> e.getConsumerStageId() == q.stageGraph().getRootStageId()).findFirst().orElseThrow();
    assertThat(into.getPartitioning().getKindCase()).isEqualTo(Partitioning.KindCase.HASH);
    assertThat(q.write().get().rowDelete().getConflictFilterJson()).as(q.logicalPlan()).contains("\"k\"");
  }

  @Test
  void updateYieldsPositionsThenEveryColumnWithItsNewValueCastToTheColumnType() {
    PlannedQuery q = plan("update tpch.sales as s set qty = 1, note = upper(s.note) where k < 10");
    assertThat(kinds(root(q))).as(q.logicalPlan()).containsExactly(DataType.Kind.VARCHAR, DataType.Kind.BIGINT,
        DataType.Kind.BIGINT, DataType.Kind.DOUBLE, DataType.Kind.VARCHAR, DataType.Kind.DATE);
    assertThat(q.write().get().rowDelete().getDeleteFiles().hasUpdatedRows()).isTrue();
    assertThat(q.explain()).contains("UPDATE tpch.sales");
  }

  @Test
  void rowLevelWritesThatCannotBePlannedAreRefusedWithTheirPosition() {
    PlanningException e = refused("delete from tpch.sales\nwhere nosuch = 1");
    assertThat(e.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(7);
    assertThat(refused("delete from tpch.nosuch").code()).isEqualTo(Code.UNKNOWN_TABLE);
    assertThat(refused("update tpch.sales set nosuch = 1").code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(refused("update tpch.sales set qty = 1, qty = 2").code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(refused("update tpch.sales set qty = 'x'").code()).isEqualTo(Code.VALIDATION_ERROR);
    catalog.loadTable(SALES).updateProperties().set(TableProperties.DELETE_MODE, "merge-on-write").commit();
    PlanningException mode = refused("delete from tpch.sales where k = 1");
    assertThat(mode.code()).isEqualTo(Code.UNSUPPORTED);
    assertThat(mode.getMessage()).contains("merge-on-write");
    catalog.buildTable(TableIdentifier.of(TpchCatalog.TPCH, "legacy"), new Schema(optional(1, "k", Types.LongType.get())))
        .withProperty(TableProperties.FORMAT_VERSION, "1").create();
    assertThat(refused("delete from tpch.legacy").getMessage()).contains("format version 2");
  }
  @Test
  void mergeYieldsPositionsAWriteFlagAndEveryColumnOverAnOuterJoinOfTargetAndSource() {
    PlannedQuery q = plan("merge into tpch.sales t using (select o_orderkey k, o_totalprice p from tpch.orders) s"
        + " on t.k = s.k when matched and s.p > 1000 then update set qty = s.p"
        + " when matched then delete when not matched and s.k % 2 = 0 then insert (k, note) values (s.k, 'new')");
    assertThat(kinds(root(q))).as(q.logicalPlan()).containsExactly(DataType.Kind.VARCHAR, DataType.Kind.BIGINT,
        DataType.Kind.BOOLEAN, DataType.Kind.BIGINT, DataType.Kind.DOUBLE, DataType.Kind.VARCHAR, DataType.Kind.DATE);
    // The source side is kept whole: an outer join (the optimizer may turn it into a left join).
    assertThat(q.logicalPlan()).containsAnyOf("joinType=[right]", "joinType=[left]");
    assertThat(q.write().get().rowDelete().getDeleteFiles().getMerge()).isTrue();
    assertThat(q.explain()).contains("MERGE INTO tpch.sales");
    PlannedQuery matchedOnly = plan("merge into tpch.sales using tpch.orders o on k = o.o_orderkey"
        + " when matched then delete;");
    assertThat(matchedOnly.logicalPlan()).contains("joinType=[inner]");
  }

  @Test
  void mergeHashesInsertsOnTheirValuesAndTakesTheOnConditionsTargetConjunctsAsConflictFilter() {
    PlannedQuery q = plan("merge into tpch.sales t using (select o_orderkey k from tpch.orders) s"
        + " on t.k = s.k and t.shipped < date '1995-01-01' when matched then delete"
        + " when not matched then insert (k, note) values (s.k, 'new')");
    Edge into = q.stageGraph().getEdgesList().stream()
        .filter(e -> e.getConsumerStageId() == q.stageGraph().getRootStageId()).findFirst().orElseThrow();
    // _file, then one key per table column (NULL for rows with a position).
    assertThat(into.getPartitioning().getHash().getKeysCount()).as(into.toString()).isEqualTo(5);
    assertThat(kinds(root(q))).as(q.logicalPlan()).hasSize(7);
    String filter = q.write().get().rowDelete().getConflictFilterJson();
    assertThat(filter).contains("\"shipped\"").doesNotContain("\"k\"");
    // No conjunct on the target alone: any concurrent change conflicts.
    PlannedQuery whole = plan("merge into tpch.sales t using tpch.orders o on t.k = o.o_orderkey"
        + " when matched then delete");
    assertThat(whole.write().get().rowDelete().getConflictFilterJson()).isEqualTo("true");
  }

  @Test
  void mergesThatCannotBePlannedAreRefusedWholeWithTheirPosition() {
    String head = "merge into tpch.sales t using tpch.orders o on t.k = o.o_orderkey\n";
    PlanningException e = refused(head + "when matched then update set nosuch = 1");
    assertThat(e.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(30);
    e = refused(head + "when matched and o.nosuch > 1 then delete");
    assertThat(e.code()).isEqualTo(Code.UNKNOWN_COLUMN);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(20);
    e = refused(head + "when matched then update set qty = 'x'");
    assertThat(e.code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(e.line()).isEqualTo(2);
    e = refused(head + "when not matched then update set qty = 1");
    assertThat(e.code()).isEqualTo(Code.SYNTAX_ERROR);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(23);
    e = refused(head + "when not matched then insert (note) values ('x')");
    assertThat(e.getMessage()).contains("'k' is NOT NULL");
    assertThat(refused(head + "when not matched then insert values (1, 2)").code()).isEqualTo(Code.VALIDATION_ERROR);
    assertThat(refused(head + "when not matched by source then delete").code()).isEqualTo(Code.UNSUPPORTED);
    assertThat(refused(head + "when matched then update set qty = 1 + ").code()).isEqualTo(Code.SYNTAX_ERROR);
    assertThat(refused("merge into tpch.sales using (select 1 k) on true when matched then delete").code())
        .isEqualTo(Code.SYNTAX_ERROR);
  }

  @Test
  void eachStatementFollowsItsOwnModePropertyAndUnsetMeansMergeOnRead() {
    String merge = "merge into tpch.sales t using tpch.orders o on t.k = o.o_orderkey when matched then delete";
    catalog.loadTable(SALES).updateProperties().set(TableProperties.MERGE_MODE, "copy-on-write").commit();
    assertThat(plan(merge).write().get().rowDelete().getDeleteFiles().getCopyOnWrite()).isTrue();
    assertThat(plan("delete from tpch.sales where k = 1").write().get().rowDelete().getDeleteFiles()
        .getCopyOnWrite()).isFalse();
    assertThat(plan("update tpch.sales set k = 1").write().get().rowDelete().getDeleteFiles()
        .getCopyOnWrite()).isFalse();
    catalog.loadTable(SALES).updateProperties().set(TableProperties.DELETE_MODE, "copy-on-write")
        .set(TableProperties.UPDATE_MODE, "copy-on-write").commit();
    assertThat(plan("delete from tpch.sales where k = 1").write().get().rowDelete().getDeleteFiles()
        .getCopyOnWrite()).isTrue();
    assertThat(plan("update tpch.sales set k = 1").write().get().rowDelete().getDeleteFiles()
        .getCopyOnWrite()).isTrue();
  }
}
