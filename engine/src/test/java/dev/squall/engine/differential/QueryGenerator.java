package dev.squall.engine.differential;

import static dev.squall.engine.testing.X.and;
import static dev.squall.engine.testing.X.or;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rel.Agg;
import dev.squall.engine.testing.Rel.AggMode;
import dev.squall.engine.testing.Rel.Key;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.X;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.DataType.Kind;
import dev.squall.proto.v1.JoinType;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Generates random queries over TPC-H, each as an operator tree and the equivalent DuckDB SQL:
 * single-table and two-table (foreign-key) joins of every join type, random filters (comparisons,
 * BETWEEN, IN, LIKE, AND/OR/NOT, IS NULL), random projections (decimal, integer and double
 * arithmetic, CASE, COALESCE, NULLIF, CAST, string and date functions), grouped or global
 * aggregation in SINGLE or PARTIAL/FINAL mode, ORDER BY with LIMIT/OFFSET. Deterministic per seed.
 */
final class QueryGenerator {
  record Generated(String name, Rel rel) {}

  /** How a column's values look, for choosing literals and functions. */
  enum Cat { KEY, INT, MONEY, RATE, DATE, LABEL, TEXT }

  record Col(String name, Cat cat, double min, double max, List<String> labels) {}

  private static final Map<String, List<Col>> TABLES = new LinkedHashMap<>();

  private static Col c(String n, Cat cat, double min, double max) {
    return new Col(n, cat, min, max, List.of());
  }

  private static Col label(String n, String... values) {
    return new Col(n, Cat.LABEL, 0, 0, List.of(values));
  }

  static {
    TABLES.put("lineitem", List.of(c("l_orderkey", Cat.KEY, 1, 60000), c("l_partkey", Cat.KEY, 1, 2000), c("l_suppkey", Cat.KEY, 1, 100),
        c("l_linenumber", Cat.INT, 1, 7), c("l_quantity", Cat.MONEY, 1, 50), c("l_extendedprice", Cat.MONEY, 900, 100000),
        c("l_discount", Cat.RATE, 0, 0.10), c("l_tax", Cat.RATE, 0, 0.08), label("l_returnflag", "A", "N", "R"),
        label("l_linestatus", "F", "O"), c("l_shipdate", Cat.DATE, 0, 0), c("l_commitdate", Cat.DATE, 0, 0),
        c("l_receiptdate", Cat.DATE, 0, 0), label("l_shipinstruct", "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"),
        label("l_shipmode", "AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "REG AIR", "FOB"), c("l_comment", Cat.TEXT, 0, 0)));
    TABLES.put("orders", List.of(c("o_orderkey", Cat.KEY, 1, 60000), c("o_custkey", Cat.KEY, 1, 1500), label("o_orderstatus", "F", "O", "P"),
        c("o_totalprice", Cat.MONEY, 800, 500000), c("o_orderdate", Cat.DATE, 0, 0),
        label("o_orderpriority", "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"), c("o_clerk", Cat.TEXT, 0, 0),
        c("o_shippriority", Cat.INT, 0, 0), c("o_comment", Cat.TEXT, 0, 0)));
    TABLES.put("customer", List.of(c("c_custkey", Cat.KEY, 1, 1500), c("c_name", Cat.TEXT, 0, 0), c("c_nationkey", Cat.KEY, 0, 24),
        c("c_phone", Cat.TEXT, 0, 0), c("c_acctbal", Cat.MONEY, -999, 9999),
        label("c_mktsegment", "AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"), c("c_comment", Cat.TEXT, 0, 0)));
    TABLES.put("part", List.of(c("p_partkey", Cat.KEY, 1, 2000), c("p_name", Cat.TEXT, 0, 0), label("p_mfgr", "Manufacturer#1", "Manufacturer#2", "Manufacturer#3"),
        label("p_brand", "Brand#11", "Brand#12", "Brand#23", "Brand#34", "Brand#55"), c("p_type", Cat.TEXT, 0, 0), c("p_size", Cat.INT, 1, 50),
        label("p_container", "SM CASE", "MED BOX", "LG PACK", "JUMBO JAR", "WRAP BAG"), c("p_retailprice", Cat.MONEY, 900, 2100)));
    TABLES.put("supplier", List.of(c("s_suppkey", Cat.KEY, 1, 100), c("s_name", Cat.TEXT, 0, 0), c("s_nationkey", Cat.KEY, 0, 24),
        c("s_phone", Cat.TEXT, 0, 0), c("s_acctbal", Cat.MONEY, -999, 9999)));
    TABLES.put("partsupp", List.of(c("ps_partkey", Cat.KEY, 1, 2000), c("ps_suppkey", Cat.KEY, 1, 100), c("ps_availqty", Cat.INT, 1, 9999),
        c("ps_supplycost", Cat.MONEY, 1, 1000)));
    TABLES.put("nation", List.of(c("n_nationkey", Cat.KEY, 0, 24), c("n_name", Cat.TEXT, 0, 0), c("n_regionkey", Cat.KEY, 0, 4)));
  }

  /** Foreign-key joins: left table, left key, right table, right key. */
  private static final String[][] JOINS = {
      {"lineitem", "l_orderkey", "orders", "o_orderkey"},
      {"orders", "o_custkey", "customer", "c_custkey"},
      {"lineitem", "l_partkey", "part", "p_partkey"},
      {"lineitem", "l_suppkey", "supplier", "s_suppkey"},
      {"customer", "c_nationkey", "nation", "n_nationkey"},
      {"supplier", "s_nationkey", "nation", "n_nationkey"},
      {"partsupp", "ps_partkey", "part", "p_partkey"},
      {"partsupp", "ps_suppkey", "supplier", "s_suppkey"},
  };

  private final TpchFixture f;
  private final Random rnd;
  private int nameCounter;

  QueryGenerator(TpchFixture f, long seed) {
    this.f = f;
    this.rnd = new Random(seed);
  }

  List<Generated> generate(int n) {
    List<Generated> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nameCounter = 0;
      boolean join = rnd.nextInt(10) < 4;
      String label = String.format("gen%03d_%s", i, join ? "join" : "single");
      Source src = join ? joinSource() : singleSource();
      label += src.label;
      Rel rel = src.rel;
      List<Col> cols = src.cols;
      if (rnd.nextInt(10) < 7) {
        final List<Col> cs = cols;
        rel = rel.filter(r -> predicate(r, cs, 2));
        label += "_filter";
      }
      if (rnd.nextBoolean()) {
        Shaped s = aggregateShape(rel, cols);
        rel = s.rel;
        label += "_agg" + s.label;
      } else {
        Shaped s = projectShape(rel, cols);
        rel = s.rel;
        label += "_project" + s.label;
      }
      out.add(new Generated(label, rel));
    }
    return out;
  }

  private record Source(Rel rel, List<Col> cols, String label) {}

  private record Shaped(Rel rel, String label) {}

  private List<Col> pickColumns(String table, int n) {
    List<Col> all = new ArrayList<>(TABLES.get(table));
    List<Col> picked = new ArrayList<>();
    while (picked.size() < n && !all.isEmpty()) {
      picked.add(all.remove(rnd.nextInt(all.size())));
    }
    return picked;
  }

  private Source singleSource() {
    String[] names = {"lineitem", "lineitem", "orders", "customer", "part", "supplier", "partsupp", "nation"};
    String table = names[rnd.nextInt(names.length)];
    List<Col> cols = pickColumns(table, 3 + rnd.nextInt(4));
    return new Source(scan(table, 0, cols), cols, "_" + table);
  }

  private Rel scan(String table, int input, List<Col> cols) {
    return Rel.scan(f, table, input, cols.stream().map(Col::name).toArray(String[]::new));
  }

  private Source joinSource() {
    String[] j = JOINS[rnd.nextInt(JOINS.length)];
    List<Col> lc = withColumn(pickColumns(j[0], 2 + rnd.nextInt(3)), j[0], j[1]);
    List<Col> rc = withColumn(pickColumns(j[2], 2 + rnd.nextInt(3)), j[2], j[3]);
    Rel left = scan(j[0], 0, lc);
    Rel right = scan(j[2], 1, rc);
    // Keep joins of the big tables small enough to be quick.
    if (j[0].equals("lineitem") || j[0].equals("partsupp")) {
      final List<Col> l = lc;
      left = left.filter(r -> predicate(r, l, 1));
    }
    if (rnd.nextBoolean()) {
      final List<Col> r2 = rc;
      right = right.filter(r -> predicate(r, r2, 1));
    }
    JoinType[] types = {JoinType.INNER, JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL, JoinType.SEMI, JoinType.ANTI};
    JoinType type = types[rnd.nextInt(types.length)];
    boolean buildLeft = rnd.nextBoolean();
    boolean residual = rnd.nextInt(3) == 0;
    List<Col> both = new ArrayList<>(lc);
    both.addAll(rc);
    Rel rel;
    if (rnd.nextInt(8) == 0 && !j[0].equals("lineitem")) {
      // Nested-loop join on the same key written as a condition.
      rel = left.nestedLoopJoin(right, type, r -> r.col(j[1]).eq(r.col(j[3])));
    } else {
      rel = left.join(right, type, List.of(j[1]), List.of(j[3]), residual ? r -> predicate(r, both, 1) : null, buildLeft);
    }
    List<Col> out = type == JoinType.SEMI || type == JoinType.ANTI ? lc : both;
    return new Source(rel, out, "_" + j[0] + "_" + type + "_" + j[2] + (buildLeft ? "_buildLeft" : "") + (residual ? "_residual" : ""));
  }

  private static List<Col> withColumn(List<Col> cols, String table, String name) {
    for (Col c : cols) {
      if (c.name().equals(name)) {
        return cols;
      }
    }
    List<Col> out = new ArrayList<>(cols);
    for (Col c : TABLES.get(table)) {
      if (c.name().equals(name)) {
        out.add(c);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- predicates

  private X predicate(Rel r, List<Col> cols, int depth) {
    int k = rnd.nextInt(depth > 0 ? 10 : 7);
    if (k >= 7) {
      X a = predicate(r, cols, depth - 1);
      X b = predicate(r, cols, depth - 1);
      return switch (k) {
        case 7 -> and(a, b);
        case 8 -> or(a, b);
        default -> a.not();
      };
    }
    Col c = cols.get(rnd.nextInt(cols.size()));
    X col = r.col(c.name());
    switch (c.cat()) {
      case KEY, INT, MONEY, RATE -> {
        X lit = numberLiteral(c);
        int kind = rnd.nextInt(c.cat() == Cat.KEY ? 4 : 5);
        if (kind == 2) {
          // BETWEEN a wide enough range: low at most the middle, high at least the middle.
          double mid = (c.min() + c.max()) / 2;
          X lo = literalOf(c, c.min() + rnd.nextDouble() * (mid - c.min()));
          X hi = literalOf(c, mid + rnd.nextDouble() * (c.max() - mid));
          return col.between(lo, hi);
        }
        return switch (kind) {
          case 0 -> col.lt(lit);
          case 1 -> col.ge(lit);
          case 3 -> col.ne(lit);
          default -> col.in(numberLiteral(c), numberLiteral(c), lit);
        };
      }
      case DATE -> {
        X d = dateLiteral();
        return switch (rnd.nextInt(4)) {
          case 0 -> col.lt(d);
          case 1 -> col.ge(d.plusInterval(X.monthsInterval(rnd.nextInt(12))));
          case 2 -> col.between(d, d.plusInterval(X.daysInterval(30 + rnd.nextInt(300))));
          default -> col.year().eq(X.lit(1992 + rnd.nextInt(7)));
        };
      }
      case LABEL -> {
        String v = c.labels().get(rnd.nextInt(c.labels().size()));
        return switch (rnd.nextInt(4)) {
          case 0 -> col.eq(X.str(v));
          case 1 -> col.ne(X.str(v));
          case 2 -> col.in(X.str(v), X.str(c.labels().get(rnd.nextInt(c.labels().size()))));
          default -> col.like(v.substring(0, 1) + "%");
        };
      }
      default -> {
        String[] pats = {"%the%", "%ly%", "%re%", "Customer#0000001%", "%9", "%final%", "%a_e%", "1_-%"};
        X like = col.like(pats[rnd.nextInt(pats.length)]);
        return rnd.nextBoolean() ? like : like.not();
      }
    }
  }

  private X numberLiteral(Col c) {
    return literalOf(c, c.min() + rnd.nextDouble() * (c.max() - c.min()));
  }

  private X literalOf(Col c, double v) {
    return switch (c.cat()) {
      case KEY, INT -> X.lit(Math.round(v));
      case RATE -> X.dec(String.format("%.2f", v));
      default -> X.dec(String.format("%.2f", v));
    };
  }

  private X dateLiteral() {
    LocalDate d = LocalDate.of(1992, 1, 1).plusDays(rnd.nextInt(2400));
    return X.date(d.toString());
  }

  // ---------------------------------------------------------------- projections

  private X numeric(Rel r, List<Col> cols, int depth) {
    List<Col> nums = cols.stream().filter(c -> c.cat() == Cat.MONEY || c.cat() == Cat.RATE || c.cat() == Cat.INT || c.cat() == Cat.KEY).toList();
    if (nums.isEmpty()) {
      return X.lit(rnd.nextInt(100));
    }
    Col c = nums.get(rnd.nextInt(nums.size()));
    X x = r.col(c.name());
    if (depth <= 0) {
      return x;
    }
    return switch (rnd.nextInt(11)) {
      case 0 -> x.plus(numeric(r, cols, depth - 1));
      case 1 -> x.minus(numberLiteral(c));
      case 2 -> x.times(X.dec(String.format("%.2f", rnd.nextDouble() * 3)));
      case 3 -> x.neg().abs();
      case 4 -> X.caseWhen(commonCaseType(x.type()), x.times(X.lit(2)).cast(commonCaseType(x.type())),
          predicate(r, cols, 0), x.cast(commonCaseType(x.type())));
      case 5 -> X.coalesce(x.type(), x.nullIf(numberLiteral(c)), x);
      case 6 -> c.cat() == Cat.KEY || c.cat() == Cat.INT ? x.div(X.lit(1 + rnd.nextInt(9))) : x.plus(X.lit(rnd.nextInt(10)));
      case 7 -> c.cat() == Cat.KEY || c.cat() == Cat.INT ? x.mod(X.lit(2 + rnd.nextInt(9))) : x.minus(X.lit(1));
      case 8 -> x.cast(SqlType.decimal(20, 4)).plus(X.dec("0.0001"));
      case 9 -> c.cat() == Cat.KEY || c.cat() == Cat.INT ? x.cast(SqlType.BIGINT).times(X.lit(3)) : x.cast(SqlType.INTEGER);
      default -> x.times(numeric(r, cols, depth - 1));
    };
  }

  private static SqlType commonCaseType(SqlType t) {
    if (t.isDecimal()) {
      return SqlType.decimal(38, t.scale());
    }
    return t.isIntegral() ? SqlType.BIGINT : t;
  }

  /** A non-negative double expression (so sums stay well-conditioned). */
  private X dbl(Rel r, List<Col> cols) {
    List<Col> pos = cols.stream().filter(c -> (c.cat() == Cat.MONEY && c.min() >= 0) || c.cat() == Cat.INT || c.cat() == Cat.KEY).toList();
    if (pos.isEmpty()) {
      return X.dbl(1.5);
    }
    X x = r.col(pos.get(rnd.nextInt(pos.size())).name()).cast(SqlType.DOUBLE);
    return switch (rnd.nextInt(3)) {
      case 0 -> x.times(X.dbl(0.25 + rnd.nextInt(8)));
      case 1 -> x.div(x.plus(X.dbl(1.0)));
      default -> x.plus(X.dbl(rnd.nextInt(100) / 8.0));
    };
  }

  private X text(Rel r, List<Col> cols) {
    List<Col> strs = cols.stream().filter(c -> c.cat() == Cat.TEXT || c.cat() == Cat.LABEL).toList();
    if (strs.isEmpty()) {
      return X.str("none");
    }
    X x = r.col(strs.get(rnd.nextInt(strs.size())).name());
    return switch (rnd.nextInt(7)) {
      case 0 -> x.upper();
      case 1 -> x.lower().concat(X.str("-"));
      case 2 -> x.substring(1 + rnd.nextInt(3), 1 + rnd.nextInt(6));
      case 3 -> x.trim(new String[] {"BOTH", "LEADING", "TRAILING"}[rnd.nextInt(3)], "aeiou ");
      case 4 -> X.coalesce(SqlType.VARCHAR, x.nullIf(X.str("AIR")), X.str("?"));
      case 5 -> X.caseWhen(SqlType.VARCHAR, null, x.like("%e%"), x.concat(x));
      default -> x;
    };
  }

  private X dateExpr(Rel r, List<Col> cols) {
    List<Col> ds = cols.stream().filter(c -> c.cat() == Cat.DATE).toList();
    if (ds.isEmpty()) {
      return null;
    }
    X x = r.col(ds.get(rnd.nextInt(ds.size())).name());
    return switch (rnd.nextInt(8)) {
      case 0 -> x.plusInterval(X.daysInterval(rnd.nextInt(100)));
      case 1 -> x.minusInterval(X.monthsInterval(rnd.nextInt(30)));
      case 2 -> x.year();
      case 3 -> x.month();
      case 4 -> x.day();
      case 5 -> x.quarter();
      case 6 -> x.dow();
      default -> x;
    };
  }

  private Shaped projectShape(Rel rel, List<Col> cols) {
    Rel p = rel.project(r -> {
      Map<String, X> m = new LinkedHashMap<>();
      int n = 2 + rnd.nextInt(4);
      for (int i = 0; i < n; i++) {
        X e = switch (rnd.nextInt(6)) {
          case 0, 1 -> numeric(r, cols, 2);
          case 2 -> text(r, cols);
          case 3 -> dateExpr(r, cols);
          case 4 -> predicate(r, cols, 1);
          default -> dbl(r, cols);
        };
        if (e == null) {
          e = numeric(r, cols, 1);
        }
        m.put("e" + i, e);
      }
      return m;
    });
    int shape = rnd.nextInt(4);
    if (shape == 0) {
      List<Key> keys = allKeys(p);
      return new Shaped(p.topN(keys, 1 + rnd.nextInt(50), rnd.nextInt(3) == 0 ? rnd.nextInt(20) : 0), "_topn");
    } else if (shape == 1) {
      // Limit over an ordered input; keep the result small.
      List<Key> keys = allKeys(p);
      return new Shaped(p.sort(keys).limit(rnd.nextInt(10), 5 + rnd.nextInt(40)), "_sort_limit");
    } else if (shape == 2 && !rel.op().hasHashJoin() && !rel.op().hasNestedLoopJoin()) {
      return new Shaped(p.sort(allKeys(p)), "_sort");
    }
    return new Shaped(p, "");
  }

  private List<Key> allKeys(Rel p) {
    List<Key> keys = new ArrayList<>();
    for (String n : p.names()) {
      keys.add(rnd.nextBoolean() ? Key.asc(n) : new Key(n, true, rnd.nextBoolean()));
    }
    return keys;
  }

  private Shaped aggregateShape(Rel rel, List<Col> cols) {
    // Project group keys and aggregate arguments first (as a planner does).
    int nk = rnd.nextInt(3);
    Rel p = rel.project(r -> {
      Map<String, X> m = new LinkedHashMap<>();
      for (int i = 0; i < nk; i++) {
        List<Col> labels = cols.stream().filter(c -> c.cat() == Cat.LABEL || c.cat() == Cat.INT).toList();
        X k;
        if (!labels.isEmpty() && rnd.nextInt(3) > 0) {
          k = r.col(labels.get(rnd.nextInt(labels.size())).name());
        } else {
          X d = dateExpr(r, cols);
          k = d != null && d.type().kind() == Kind.BIGINT ? d : predicate(r, cols, 0);
        }
        m.put("k" + i, k);
      }
      m.put("v0", numeric(r, cols, 1));
      m.put("v1", dbl(r, cols));
      X d = dateExpr(r, cols);
      m.put("v2", d != null ? d : text(r, cols));
      m.put("v3", text(r, cols));
      return m;
    });
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < nk; i++) {
      keys.add("k" + i);
    }
    AggMode mode = rnd.nextBoolean() ? AggMode.SINGLE : AggMode.SPLIT;
    if (rnd.nextInt(8) == 0) {
      Rel a = p.aggregate(keys, List.of(Agg.countDistinct(rnd.nextBoolean() ? "v2" : "v3", "cd")), mode);
      return new Shaped(nk == 0 ? a : a.sort(allKeys(a)), "_countdistinct_" + mode);
    }
    List<Agg> aggs = new ArrayList<>();
    aggs.add(Agg.countStar("n"));
    aggs.add(Agg.sum("v0", "s0"));
    if (rnd.nextBoolean()) {
      aggs.add(Agg.avg("v0", "a0"));
    }
    if (rnd.nextBoolean()) {
      aggs.add(Agg.sum("v1", "s1"));
    }
    if (rnd.nextBoolean()) {
      aggs.add(Agg.min("v2", "mn"));
    }
    if (rnd.nextBoolean()) {
      aggs.add(Agg.max("v3", "mx"));
    }
    if (rnd.nextBoolean()) {
      aggs.add(Agg.count("v0", "c0"));
    }
    if (rnd.nextBoolean()) {
      aggs.add(Agg.avg("v1", "a1"));
    }
    Rel a = p.aggregate(keys, aggs, mode);
    if (nk > 0 && rnd.nextBoolean()) {
      List<Key> order = new ArrayList<>();
      for (String k : keys) {
        order.add(rnd.nextBoolean() ? Key.asc(k) : Key.desc(k));
      }
      order.add(Key.asc("n"));
      order.add(Key.asc("s0"));
      if (rnd.nextBoolean()) {
        return new Shaped(a.sort(allKeysStable(a, order)), "_" + mode + "_sorted");
      }
    }
    return new Shaped(a, "_" + mode);
  }

  /** Order by the given keys, then every other non-double column, so that the order is total. */
  private static List<Key> allKeysStable(Rel a, List<Key> first) {
    List<Key> keys = new ArrayList<>(first);
    for (int i = 0; i < a.names().size(); i++) {
      String n = a.names().get(i);
      if (keys.stream().noneMatch(k -> k.column().equals(n)) && !a.types().get(i).isFloating()) {
        keys.add(Key.asc(n));
      }
    }
    return keys;
  }
}
