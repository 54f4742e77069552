package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.planner.PlanningException;
import dev.squall.planner.sql.SqlFrontEnd;
import dev.squall.planner.testing.Planning;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.Function;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.ShuffleRead;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.junit.jupiter.api.Test;

class AggregateSplitTest {
  private static final Operator INPUT = Operator.newBuilder().setShuffleRead(ShuffleRead.newBuilder()).build();

  private static RelBuilder lineitem() {
    return new SqlFrontEnd(Planning.SF1, Planning.SETTINGS).relBuilder()
        .transform(c -> c.withDedupAggregateCalls(false).withPruneInputOfAggregate(false))
        .scan("tpch", "lineitem");
  }

  private static AggregateSplit split(RelBuilder b) {
    return new AggregateSplit((org.apache.calcite.rel.core.Aggregate) b.build());
  }

  @Test
  void partialEmitsGroupKeysThenOneStatePerAggregate() {
    RelBuilder b = lineitem();
    // l_returnflag is column 8, l_quantity 4, l_shipdate 10.
    b.aggregate(b.groupKey("l_returnflag"),
        b.sum(b.field("l_quantity")), b.count(b.field("l_quantity")), b.countStar("n"), b.min(b.field("l_shipdate")));
    AggregateSplit split = split(b);

    Aggregate partial = split.partial(INPUT).getAggregate();
    assertThat(partial.getMode()).isEqualTo(Aggregate.Mode.PARTIAL);
    assertThat(partial.getGroupKeysList()).containsExactly(8);
    // COUNT of a NOT NULL column is simplified to COUNT(*) by Calcite.
    assertThat(partial.getAggregatesList()).extracting(AggregateCall::getKind)
        .containsExactly(AggregateCall.Kind.SUM, AggregateCall.Kind.COUNT_STAR, AggregateCall.Kind.COUNT_STAR, AggregateCall.Kind.MIN);
    assertThat(partial.getAggregates(0).getArgsList()).containsExactly(4);
    assertThat(partial.getAggregates(2).getArgsList()).isEmpty();

    var schema = split.partialSchema();
    assertThat(schema.getFieldsCount()).isEqualTo(5);
    assertThat(schema.getFields(0).getType().getKind()).isEqualTo(DataType.Kind.VARCHAR);
    // SUM of DECIMAL(15,2) is DECIMAL(38,2); the partial sum is nullable (a task may see no rows).
    assertThat(schema.getFields(1).getType()).isEqualTo(DataType.newBuilder()
        .setKind(DataType.Kind.DECIMAL).setPrecision(38).setScale(2).setNullable(true).build());
    assertThat(schema.getFields(2).getType()).isEqualTo(DataType.newBuilder().setKind(DataType.Kind.BIGINT).build());
    assertThat(schema.getFields(3).getType()).isEqualTo(DataType.newBuilder().setKind(DataType.Kind.BIGINT).build());
    assertThat(schema.getFields(4).getType().getKind()).isEqualTo(DataType.Kind.DATE);
  }

  @Test
  void finalMergesStatesByPositionWithOneArgumentEach() {
    RelBuilder b = lineitem();
    b.aggregate(b.groupKey("l_returnflag", "l_linestatus"), b.sum(b.field("l_quantity")), b.countStar("n"));
    Aggregate fin = split(b).finalOf(INPUT).getAggregate();
    assertThat(fin.getMode()).isEqualTo(Aggregate.Mode.FINAL);
    assertThat(fin.getGroupKeysList()).containsExactly(0, 1);
    assertThat(fin.getAggregates(0).getArgsList()).containsExactly(2);
    assertThat(fin.getAggregates(1).getArgsList()).containsExactly(3);
    assertThat(fin.getAggregates(1).getKind()).isEqualTo(AggregateCall.Kind.COUNT_STAR);
  }

  @Test
  void singleModeReadsInputColumns() {
    RelBuilder b = lineitem();
    b.aggregate(b.groupKey(), b.max(b.field("l_extendedprice")));
    Operator single = split(b).single(INPUT);
    assertThat(single.getAggregate().getMode()).isEqualTo(Aggregate.Mode.SINGLE);
    assertThat(single.getAggregate().getGroupKeysCount()).isZero();
    assertThat(single.getAggregate().getAggregates(0).getArgsList()).containsExactly(5);
  }

  @Test
  void sumZeroRunsAsSumThenCoalesceToZero() {
    RelBuilder b = lineitem();
    b.aggregate(b.groupKey(), b.aggregateCall(SqlStdOperatorTable.SUM0, b.field("l_quantity")).as("s"));
    Operator out = split(b).single(INPUT);
    assertThat(out.hasProject()).isTrue();
    var coalesce = out.getProject().getExpressions(0);
    assertThat(coalesce.getCall().getFunction()).isEqualTo(Function.COALESCE);
    assertThat(coalesce.getCall().getArgs(1).getLiteral().getDecimalUnscaled()).isEqualTo("0");
    assertThat(coalesce.getType().getNullable()).isFalse();
    assertThat(out.getProject().getInput().getAggregate().getAggregates(0).getKind()).isEqualTo(AggregateCall.Kind.SUM);
  }

  @Test
  void otherAggregateFunctionsAreRefusedByName() {
    RelBuilder b = lineitem();
    b.aggregate(b.groupKey(), b.aggregateCall(SqlStdOperatorTable.STDDEV_POP, b.field("l_quantity")));
    assertThatThrownBy(() -> split(b))
        .isInstanceOf(PlanningException.class)
        .hasMessageContaining("STDDEV_POP");
  }
}
