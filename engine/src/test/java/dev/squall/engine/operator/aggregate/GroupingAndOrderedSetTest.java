package dev.squall.engine.operator.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.squall.engine.EngineException;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.MemTable;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Expand;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Literal;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Project;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.SortKey;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Expand operator under an aggregate with a kept empty group (how grouping sets run), the
 * ordered-set aggregates LISTAGG, PERCENTILE_CONT and PERCENTILE_DISC, and SINGLE_VALUE, over
 * random rows with NULLs in every column but id (t: id BIGINT, i INTEGER, d DECIMAL(12,2),
 * x DOUBLE, s VARCHAR, dt DATE, b BOOLEAN), each compared with DuckDB over the same rows.
 */
class GroupingAndOrderedSetTest {
  private static final List<String> NAMES = List.of("id", "i", "d", "x", "s", "dt", "b");
  private static final List<SqlType> TYPES = List.of(SqlType.BIGINT, SqlType.INTEGER, SqlType.decimal(12, 2), SqlType.DOUBLE,
      SqlType.VARCHAR, SqlType.DATE, SqlType.BOOLEAN);
  private static final DataType BIGINT = SqlType.BIGINT.toProto();

  private static Operator input() {
    Schema.Builder schema = Schema.newBuilder();
    for (int c = 0; c < NAMES.size(); c++) {
      schema.addFields(field(NAMES.get(c), TYPES.get(c).toProto()));
    }
    return Operator.newBuilder().setOutputSchema(schema).setShuffleRead(ShuffleRead.newBuilder().setInputIndex(0)).build();
  }

  private static Field field(String name, DataType type) {
    return Field.newBuilder().setName(name).setType(type.toBuilder().setNullable(true)).build();
  }

  private static Expr column(int c, DataType type) {
    return Expr.newBuilder().setType(type).setColumn(c).build();
  }

  private static List<List<Object>> engine(Operator plan, MemTable t) {
    return Rows.run(plan, new TestInputs().withShuffle(0, alloc -> t.batches(alloc, 256)), 256L << 20);
  }

  private static List<List<Object>> duckDb(MemTable t, String sql) throws Exception {
    t.load(DuckDbOracle.connection());
    return Rows.duckdb(DuckDbOracle.connection(), sql);
  }

  /** ROLLUP (i, s) as the planner runs it: Expand to sets (i, s), (i), () and one aggregate on (i, s, set). */
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3000})
  void expandBelowAnAggregateAnswersRollup(int rows) throws Exception {
    MemTable t = MemTable.random("t", rows, 15, 5 + rows);
    Operator in = input();
    DataType i = TYPES.get(1).toProto().toBuilder().setNullable(true).build();
    DataType s = TYPES.get(4).toProto().toBuilder().setNullable(true).build();
    Schema.Builder expanded = in.getOutputSchema().toBuilder().addFields(field("ki", i)).addFields(field("ks", s))
        .addFields(field("set", BIGINT));
    Expand.Builder expand = Expand.newBuilder().setInput(in);
    Expr nullI = Expr.newBuilder().setType(i).setLiteral(Literal.newBuilder().setIsNull(true)).build();
    Expr nullS = Expr.newBuilder().setType(s).setLiteral(Literal.newBuilder().setIsNull(true)).build();
    for (int set = 0; set < 3; set++) {
      Expand.Projection.Builder p = Expand.Projection.newBuilder();
      for (int c = 0; c < NAMES.size(); c++) {
        p.addExpressions(column(c, in.getOutputSchema().getFields(c).getType()));
      }
      p.addExpressions(set < 2 ? column(1, i) : nullI).addExpressions(set < 1 ? column(4, s) : nullS)
          .addExpressions(Expr.newBuilder().setType(BIGINT).setLiteral(Literal.newBuilder().setLongValue(set)));
      expand.addProjections(p);
    }
    Operator expandOp = Operator.newBuilder().setOutputSchema(expanded).setExpand(expand).build();
    DataType sum = SqlType.decimal(38, 2).toProto().toBuilder().setNullable(true).build();
    Aggregate.Builder agg = Aggregate.newBuilder().setInput(expandOp).setMode(Aggregate.Mode.SINGLE)
        .addGroupKeys(7).addGroupKeys(8).addGroupKeys(9)
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.COUNT_STAR).setType(BIGINT).setName("n"))
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.SUM).addArgs(2).setType(sum).setName("sd"))
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.MAX).addArgs(1).setType(i).setName("mi"))
        .addAlwaysGroup(Literal.newBuilder().setIsNull(true)).addAlwaysGroup(Literal.newBuilder().setIsNull(true))
        .addAlwaysGroup(Literal.newBuilder().setLongValue(2));
    Operator plan = Operator.newBuilder().setOutputSchema(Schema.newBuilder().addFields(field("i", i)).addFields(field("s", s))
        .addFields(field("set", BIGINT)).addFields(field("n", BIGINT)).addFields(field("sd", sum)).addFields(field("mi", i)))
        .setAggregate(agg).build();
    List<List<Object>> expected = duckDb(t, "select i, s, case grouping(i, s) when 3 then 2 else grouping(i, s) end,"
        + " count(*), sum(d), max(i) from t group by rollup (i, s)");
    assertThat(expected).as("the grand total is there even over no rows").isNotEmpty();
    assertThat(Rows.difference(expected, engine(plan, t), false)).isNull();
  }

  /** LISTAGG, PERCENTILE_CONT and PERCENTILE_DISC per group, in ascending and descending order. */
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3000})
  void orderedSetAggregatesEqualDuckDb(int rows) throws Exception {
    MemTable t = MemTable.random("t", rows, 15, 7 + rows);
    Operator in = input();
    DataType varchar = SqlType.VARCHAR.toProto().toBuilder().setNullable(true).build();
    DataType dbl = SqlType.DOUBLE.toProto().toBuilder().setNullable(true).build();
    // b, s, id, separator ', ', x, i
    Project.Builder project = Project.newBuilder().setInput(in);
    Schema.Builder projected = Schema.newBuilder();
    for (int c : new int[] {6, 4, 0}) {
      project.addExpressions(column(c, in.getOutputSchema().getFields(c).getType()));
      projected.addFields(in.getOutputSchema().getFields(c));
    }
    project.addExpressions(Expr.newBuilder().setType(SqlType.VARCHAR.toProto())
        .setLiteral(Literal.newBuilder().setStringValue(", ")));
    projected.addFields(field("sep", SqlType.VARCHAR.toProto()));
    for (int c : new int[] {3, 1}) {
      project.addExpressions(column(c, in.getOutputSchema().getFields(c).getType()));
      projected.addFields(in.getOutputSchema().getFields(c));
    }
    Operator projectOp = Operator.newBuilder().setOutputSchema(projected).setProject(project).build();
    Aggregate.Builder agg = Aggregate.newBuilder().setInput(projectOp).setMode(Aggregate.Mode.SINGLE).addGroupKeys(0)
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.LISTAGG).addArgs(1).addArgs(3)
            .addOrderKeys(SortKey.newBuilder().setColumn(2).setDescending(true)).setType(varchar).setName("l"))
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.LISTAGG).addArgs(1).addArgs(3)
            .addOrderKeys(SortKey.newBuilder().setColumn(5).setNullsFirst(true))
            .addOrderKeys(SortKey.newBuilder().setColumn(2)).setType(varchar).setName("l2"))
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.PERCENTILE_CONT).addArgs(4).setPercentile(0.3)
            .addOrderKeys(SortKey.newBuilder().setColumn(4)).setType(dbl).setName("pc"))
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.PERCENTILE_CONT).addArgs(5).setPercentile(0.75)
            .addOrderKeys(SortKey.newBuilder().setColumn(5).setDescending(true)).setType(dbl).setName("pcd"))
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.PERCENTILE_DISC).addArgs(5).setPercentile(0.5)
            .addOrderKeys(SortKey.newBuilder().setColumn(5).setDescending(true)).setType(dbl).setName("pd"))
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.PERCENTILE_DISC).addArgs(4).setPercentile(0.1)
            .addOrderKeys(SortKey.newBuilder().setColumn(4)).setType(dbl).setName("pd2"));
    Operator plan = Operator.newBuilder().setOutputSchema(Schema.newBuilder().addFields(projected.getFields(0))
        .addFields(field("l", varchar)).addFields(field("l2", varchar)).addFields(field("pc", dbl)).addFields(field("pcd", dbl))
        .addFields(field("pd", dbl)).addFields(field("pd2", dbl))).setAggregate(agg).build();
    List<List<Object>> expected = duckDb(t, "select b, string_agg(s, ', ' order by id desc),"
        + " string_agg(s, ', ' order by i nulls first, id), quantile_cont(x, 0.3),"
        + " percentile_cont(0.75) within group (order by i desc), cast(percentile_disc(0.5) within group (order by i desc) as double),"
        + " percentile_disc(0.1) within group (order by x) from t group by b");
    assertThat(Rows.difference(expected, engine(plan, t), false)).isNull();
  }

  private static Operator singleValue(boolean grouped) {
    Operator in = input();
    DataType s = TYPES.get(4).toProto().toBuilder().setNullable(true).build();
    Aggregate.Builder agg = Aggregate.newBuilder().setInput(in).setMode(Aggregate.Mode.SINGLE)
        .addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.SINGLE_VALUE).addArgs(4).setType(s).setName("v"));
    Schema.Builder schema = Schema.newBuilder();
    if (grouped) {
      agg.addGroupKeys(0);
      schema.addFields(in.getOutputSchema().getFields(0));
    }
    schema.addFields(field("v", s));
    return Operator.newBuilder().setOutputSchema(schema).setAggregate(agg).build();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3000})
  void singleValueOfOneRowPerGroupIsItsValue(int rows) throws Exception {
    MemTable t = MemTable.random("t", rows, 15, 3 + rows);
    assertThat(Rows.difference(duckDb(t, "select id, s from t"), engine(singleValue(true), t), false)).isNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1})
  void singleValueOfAtMostOneRowIsItsValueOrNull(int rows) throws Exception {
    MemTable t = MemTable.random("t", rows, 0, 3);
    List<List<Object>> expected = duckDb(t, "select (select s from t)");
    assertThat(Rows.difference(expected, engine(singleValue(false), t), false)).isNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3000})
  void singleValueOfSeveralRowsIsAUserError(int rows) {
    MemTable t = MemTable.random("t", rows, 50, 3);
    EngineException e = catchThrowableOfType(EngineException.class, () -> engine(singleValue(false), t));
    assertThat(e.code()).isEqualTo(ErrorCode.USER_ERROR);
    assertThat(e.getMessage()).isEqualTo("scalar sub-query returned more than one row");
  }

}
