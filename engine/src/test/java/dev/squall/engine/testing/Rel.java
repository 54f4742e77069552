package dev.squall.engine.testing;

import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Aggregate;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.Field;
import dev.squall.proto.v1.Filter;
import dev.squall.proto.v1.HashJoin;
import dev.squall.proto.v1.JoinType;
import dev.squall.proto.v1.Limit;
import dev.squall.proto.v1.NestedLoopJoin;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.Project;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.Schema;
import dev.squall.proto.v1.Sort;
import dev.squall.proto.v1.SortKey;
import dev.squall.proto.v1.TopN;
import dev.squall.proto.v1.UnionAll;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Types;

/**
 * A test relation built twice at once: a plan-proto operator tree (with every output schema) and a
 * DuckDB SELECT producing the same columns under the same names. Column names must be unique.
 */
public record Rel(Operator op, List<String> names, List<SqlType> types, String sql, boolean ordered, int scanInputs) {

  /** A scan of TPC-H table columns (input index {@code inputIndex}). */
  public static Rel scan(TpchFixture fixture, String table, int inputIndex, String... columns) {
    TpchFixture.Table t = fixture.table(table);
    Scan.Builder scan = Scan.newBuilder().setInputIndex(inputIndex).setTable("tpch." + table)
        .setIcebergSchemaJson(SchemaParser.toJson(t.schema()));
    List<String> names = new ArrayList<>();
    List<SqlType> types = new ArrayList<>();
    for (String c : columns) {
      Types.NestedField f = t.field(c);
      scan.addProjectedFieldIds(f.fieldId());
      names.add(c);
      types.add(icebergType(f));
    }
    Operator op = Operator.newBuilder().setOutputSchema(schema(names, types)).setScan(scan).build();
    String sql = "SELECT " + String.join(", ", columns) + " FROM " + fixture.duckdbSource(table);
    return new Rel(op, names, types, sql, false, 1);
  }

  static SqlType icebergType(Types.NestedField f) {
    return switch (f.type().typeId()) {
      case LONG -> SqlType.BIGINT;
      case INTEGER -> SqlType.INTEGER;
      case DATE -> SqlType.DATE;
      case STRING -> SqlType.VARCHAR;
      case DECIMAL -> SqlType.decimal(((Types.DecimalType) f.type()).precision(), ((Types.DecimalType) f.type()).scale());
      case DOUBLE -> SqlType.DOUBLE;
      case BOOLEAN -> SqlType.BOOLEAN;
      default -> throw new IllegalArgumentException(f.toString());
    };
  }

  static Schema schema(List<String> names, List<SqlType> types) {
    Schema.Builder s = Schema.newBuilder();
    for (int i = 0; i < names.size(); i++) {
      s.addFields(Field.newBuilder().setName(names.get(i)).setType(types.get(i).toProto()));
    }
    return s.build();
  }

  public int index(String name) {
    int i = names.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException("no column " + name + " in " + names);
    }
    return i;
  }

  public X col(String name) {
    int i = index(name);
    return X.column(i, name, types.get(i));
  }

  public Rel withScanIcebergFilter(String filterJson) {
    Operator o = op.toBuilder().setScan(op.getScan().toBuilder().setIcebergFilterJson(filterJson)).build();
    return new Rel(o, names, types, sql, ordered, scanInputs);
  }

  public Rel filter(Function<Rel, X> condition) {
    X c = condition.apply(this);
    Operator o = Operator.newBuilder().setOutputSchema(op.getOutputSchema())
        .setFilter(Filter.newBuilder().setInput(op).setCondition(c.expr())).build();
    return new Rel(o, names, types, "SELECT * FROM (" + sql + ") WHERE " + c.sql(), false, scanInputs);
  }

  /** Projection: alternating names and expressions. */
  public Rel project(Function<Rel, Map<String, X>> exprs) {
    Map<String, X> m = exprs.apply(this);
    List<String> n = new ArrayList<>(m.keySet());
    List<SqlType> t = new ArrayList<>();
    Project.Builder p = Project.newBuilder().setInput(op);
    List<String> sel = new ArrayList<>();
    for (String name : n) {
      X x = m.get(name);
      t.add(x.type());
      p.addExpressions(x.expr());
      sel.add(x.sql() + " AS " + name);
    }
    Operator o = Operator.newBuilder().setOutputSchema(schema(n, t)).setProject(p).build();
    return new Rel(o, n, t, "SELECT " + String.join(", ", sel) + " FROM (" + sql + ")", false, scanInputs);
  }

  /** One aggregate call of {@link #aggregate}. */
  public record Agg(AggregateCall.Kind kind, String arg, String name, boolean distinct) {
    public static Agg sum(String arg, String name) { return new Agg(AggregateCall.Kind.SUM, arg, name, false); }
    public static Agg count(String arg, String name) { return new Agg(AggregateCall.Kind.COUNT, arg, name, false); }
    public static Agg countStar(String name) { return new Agg(AggregateCall.Kind.COUNT_STAR, null, name, false); }
    public static Agg min(String arg, String name) { return new Agg(AggregateCall.Kind.MIN, arg, name, false); }
    public static Agg max(String arg, String name) { return new Agg(AggregateCall.Kind.MAX, arg, name, false); }
    public static Agg avg(String arg, String name) { return new Agg(AggregateCall.Kind.AVG, arg, name, false); }
    public static Agg countDistinct(String arg, String name) { return new Agg(AggregateCall.Kind.COUNT, arg, name, true); }
  }

  public enum AggMode { SINGLE, SPLIT }

  static SqlType aggType(AggregateCall.Kind kind, SqlType arg) {
    return switch (kind) {
      case COUNT, COUNT_STAR -> SqlType.BIGINT;
      case SUM -> arg.isDecimal() ? SqlType.decimal(38, arg.scale()) : arg.isFloating() ? SqlType.DOUBLE : SqlType.BIGINT;
      case AVG -> SqlType.DOUBLE;
      default -> arg;
    };
  }

  private static String aggSql(Agg a) {
    return switch (a.kind()) {
      case SUM -> "sum(" + a.arg() + ")";
      case COUNT -> a.distinct() ? "count(DISTINCT " + a.arg() + ")" : "count(" + a.arg() + ")";
      case COUNT_STAR -> "count(*)";
      case MIN -> "min(" + a.arg() + ")";
      case MAX -> "max(" + a.arg() + ")";
      case AVG -> "avg(" + a.arg() + ")";
      default -> throw new IllegalArgumentException();
    };
  }

  /**
   * GROUP BY keys with aggregates over columns. SPLIT runs a PARTIAL aggregate under a FINAL one
   * (as around a hash exchange). A COUNT(DISTINCT x) must be the only aggregate: it is planned as a
   * distinct step (group by keys + x) under a COUNT.
   */
  public Rel aggregate(List<String> keys, List<Agg> aggs, AggMode mode) {
    String sqlText = "SELECT " + String.join(", ", concat(keys, aggs.stream().map(a -> aggSql(a) + " AS " + a.name()).toList()))
        + " FROM (" + sql + ")" + (keys.isEmpty() ? "" : " GROUP BY " + String.join(", ", keys));
    if (aggs.size() == 1 && aggs.get(0).distinct()) {
      Agg a = aggs.get(0);
      List<String> distinctKeys = new ArrayList<>(keys);
      distinctKeys.add(a.arg());
      Rel distinct = aggregatePlan(distinctKeys, List.of(), mode);
      Rel counted = distinct.aggregatePlan(keys, List.of(Agg.count(a.arg(), a.name())), mode);
      return new Rel(counted.op, counted.names, counted.types, sqlText, false, scanInputs);
    }
    Rel r = aggregatePlan(keys, aggs, mode);
    return new Rel(r.op, r.names, r.types, sqlText, false, scanInputs);
  }

  private Rel aggregatePlan(List<String> keys, List<Agg> aggs, AggMode mode) {
    List<String> outNames = new ArrayList<>(keys);
    List<SqlType> outTypes = new ArrayList<>();
    for (String k : keys) {
      outTypes.add(types.get(index(k)));
    }
    List<SqlType> finalTypes = new ArrayList<>(outTypes);
    List<String> finalNames = new ArrayList<>(outNames);
    for (Agg a : aggs) {
      SqlType argType = a.arg() == null ? null : types.get(index(a.arg()));
      finalNames.add(a.name());
      finalTypes.add(aggType(a.kind(), argType));
    }
    if (mode == AggMode.SINGLE) {
      Aggregate.Builder b = Aggregate.newBuilder().setInput(op).setMode(Aggregate.Mode.SINGLE);
      keys.forEach(k -> b.addGroupKeys(index(k)));
      for (int i = 0; i < aggs.size(); i++) {
        b.addAggregates(call(aggs.get(i), finalTypes.get(keys.size() + i)));
      }
      Operator o = Operator.newBuilder().setOutputSchema(schema(finalNames, finalTypes)).setAggregate(b).build();
      return new Rel(o, finalNames, finalTypes, null, false, scanInputs);
    }
    // PARTIAL: keys, then per aggregate its state column(s).
    Aggregate.Builder p = Aggregate.newBuilder().setInput(op).setMode(Aggregate.Mode.PARTIAL);
    keys.forEach(k -> p.addGroupKeys(index(k)));
    List<String> pNames = new ArrayList<>(outNames);
    List<SqlType> pTypes = new ArrayList<>(outTypes);
    Aggregate.Builder f = Aggregate.newBuilder().setMode(Aggregate.Mode.FINAL);
    for (int i = 0; i < keys.size(); i++) {
      f.addGroupKeys(i);
    }
    for (int i = 0; i < aggs.size(); i++) {
      Agg a = aggs.get(i);
      SqlType finalType = finalTypes.get(keys.size() + i);
      SqlType argType = a.arg() == null ? null : types.get(index(a.arg()));
      if (a.kind() == AggregateCall.Kind.AVG) {
        SqlType sumType = aggType(AggregateCall.Kind.SUM, argType);
        p.addAggregates(call(a, sumType));
        pNames.add(a.name() + "_sum");
        pTypes.add(sumType);
        pNames.add(a.name() + "_count");
        pTypes.add(SqlType.BIGINT);
        f.addAggregates(AggregateCall.newBuilder().setKind(AggregateCall.Kind.AVG).setType(finalType.toProto())
            .addArgs(pNames.size() - 2).addArgs(pNames.size() - 1).setName(a.name()));
      } else {
        SqlType stateType = finalType;
        p.addAggregates(call(a, stateType));
        pNames.add(a.name() + "_state");
        pTypes.add(stateType);
        AggregateCall.Kind fk = a.kind();
        f.addAggregates(AggregateCall.newBuilder().setKind(fk).setType(finalType.toProto()).addArgs(pNames.size() - 1).setName(a.name()));
      }
    }
    Operator partial = Operator.newBuilder().setOutputSchema(schema(pNames, pTypes)).setAggregate(p).build();
    f.setInput(partial);
    Operator fin = Operator.newBuilder().setOutputSchema(schema(finalNames, finalTypes)).setAggregate(f).build();
    return new Rel(fin, finalNames, finalTypes, null, false, scanInputs);
  }

  private AggregateCall call(Agg a, SqlType type) {
    AggregateCall.Builder c = AggregateCall.newBuilder().setKind(a.kind()).setType(type.toProto()).setName(a.name());
    if (a.arg() != null) {
      c.addArgs(index(a.arg()));
    }
    return c.build();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> r = new ArrayList<>(a);
    r.addAll(b);
    return r;
  }

  /** Hash join on equi-keys with an optional residual over (left ++ right). */
  public Rel join(Rel right, JoinType type, List<String> leftKeys, List<String> rightKeys,
      Function<Rel, X> residual, boolean buildLeft) {
    Rel both = concatenated(right);
    HashJoin.Builder j = HashJoin.newBuilder().setLeft(op).setRight(right.op).setJoinType(type)
        .setBuildSide(buildLeft ? HashJoin.BuildSide.BUILD_LEFT : HashJoin.BuildSide.BUILD_RIGHT);
    List<String> conds = new ArrayList<>();
    for (int i = 0; i < leftKeys.size(); i++) {
      j.addLeftKeys(index(leftKeys.get(i)));
      j.addRightKeys(right.index(rightKeys.get(i)));
      conds.add(leftKeys.get(i) + " = " + rightKeys.get(i));
    }
    if (residual != null) {
      X r = residual.apply(both);
      j.setResidual(r.expr());
      conds.add(r.sql());
    }
    Rel out = semiOrAnti(type) ? this : both;
    Operator o = Operator.newBuilder().setOutputSchema(schema(out.names, out.types)).setHashJoin(j).build();
    return new Rel(o, out.names, out.types, joinSql(right, type, conds), false, scanInputs + right.scanInputs);
  }

  /** Nested-loop join on an arbitrary condition (null: cross join). */
  public Rel nestedLoopJoin(Rel right, JoinType type, Function<Rel, X> condition) {
    Rel both = concatenated(right);
    NestedLoopJoin.Builder j = NestedLoopJoin.newBuilder().setLeft(op).setRight(right.op).setJoinType(type);
    List<String> conds = new ArrayList<>();
    if (condition != null) {
      X c = condition.apply(both);
      j.setCondition(c.expr());
      conds.add(c.sql());
    }
    Rel out = semiOrAnti(type) ? this : both;
    Operator o = Operator.newBuilder().setOutputSchema(schema(out.names, out.types)).setNestedLoopJoin(j).build();
    return new Rel(o, out.names, out.types, joinSql(right, type, conds), false, scanInputs + right.scanInputs);
  }

  private static boolean semiOrAnti(JoinType t) {
    return t == JoinType.SEMI || t == JoinType.ANTI;
  }

  private String joinSql(Rel right, JoinType type, List<String> conds) {
    String on = conds.isEmpty() ? "TRUE" : String.join(" AND ", conds);
    return switch (type) {
      case SEMI -> "SELECT * FROM (" + sql + ") WHERE EXISTS (SELECT 1 FROM (" + right.sql + ") WHERE " + on + ")";
      case ANTI -> "SELECT * FROM (" + sql + ") WHERE NOT EXISTS (SELECT 1 FROM (" + right.sql + ") WHERE " + on + ")";
      case INNER -> "SELECT * FROM (" + sql + ") INNER JOIN (" + right.sql + ") ON " + on;
      case LEFT -> "SELECT * FROM (" + sql + ") LEFT JOIN (" + right.sql + ") ON " + on;
      case RIGHT -> "SELECT * FROM (" + sql + ") RIGHT JOIN (" + right.sql + ") ON " + on;
      case FULL -> "SELECT * FROM (" + sql + ") FULL JOIN (" + right.sql + ") ON " + on;
      default -> throw new IllegalArgumentException(type.name());
    };
  }

  private Rel concatenated(Rel right) {
    List<String> n = concat(names, right.names);
    List<SqlType> t = new ArrayList<>(types);
    t.addAll(right.types);
    return new Rel(null, n, t, null, false, 0);
  }

  /** A sort key: column name, descending, nulls first. */
  public record Key(String column, boolean desc, boolean nullsFirst) {
    public static Key asc(String c) { return new Key(c, false, false); }
    public static Key desc(String c) { return new Key(c, true, true); }
  }

  private List<SortKey> sortKeys(List<Key> keys) {
    List<SortKey> out = new ArrayList<>();
    for (Key k : keys) {
      out.add(SortKey.newBuilder().setColumn(index(k.column())).setDescending(k.desc()).setNullsFirst(k.nullsFirst()).build());
    }
    return out;
  }

  private static String orderSql(List<Key> keys) {
    List<String> parts = new ArrayList<>();
    for (Key k : keys) {
      parts.add(k.column() + (k.desc() ? " DESC" : " ASC") + (k.nullsFirst() ? " NULLS FIRST" : " NULLS LAST"));
    }
    return " ORDER BY " + String.join(", ", parts);
  }

  public Rel sort(List<Key> keys) {
    Operator o = Operator.newBuilder().setOutputSchema(op.getOutputSchema())
        .setSort(Sort.newBuilder().setInput(op).addAllKeys(sortKeys(keys))).build();
    return new Rel(o, names, types, "SELECT * FROM (" + sql + ")" + orderSql(keys), true, scanInputs);
  }

  public Rel topN(List<Key> keys, long limit, long offset) {
    Operator o = Operator.newBuilder().setOutputSchema(op.getOutputSchema())
        .setTopN(TopN.newBuilder().setInput(op).addAllKeys(sortKeys(keys)).setLimit(limit).setOffset(offset)).build();
    return new Rel(o, names, types, "SELECT * FROM (" + sql + ")" + orderSql(keys) + " LIMIT " + limit + " OFFSET " + offset, true, scanInputs);
  }

  /** LIMIT over an ordered relation (Sort below) keeps the order; limit -1 = OFFSET only. */
  public Rel limit(long offset, long limit) {
    Operator o = Operator.newBuilder().setOutputSchema(op.getOutputSchema())
        .setLimit(Limit.newBuilder().setInput(op).setOffset(offset).setLimit(limit)).build();
    String s = ordered ? sql + (limit >= 0 ? " LIMIT " + limit : "") + " OFFSET " + offset
        : "SELECT * FROM (" + sql + ")" + (limit >= 0 ? " LIMIT " + limit : "") + " OFFSET " + offset;
    return new Rel(o, names, types, s, ordered, scanInputs);
  }

  public Rel unionAll(Rel other) {
    Operator o = Operator.newBuilder().setOutputSchema(op.getOutputSchema())
        .setUnionAll(UnionAll.newBuilder().addInputs(op).addInputs(other.op)).build();
    return new Rel(o, names, types, "(" + sql + ") UNION ALL (" + other.sql + ")", false, scanInputs + other.scanInputs);
  }
}
