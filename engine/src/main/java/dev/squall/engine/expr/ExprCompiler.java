package dev.squall.engine.expr;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compiles a plan-proto {@link Expr} tree once into a tree of {@link Evaluator}s, each of which
 * loops over whole columns. The result type of every node is the one the planner gave in
 * {@code Expr.type} (decimal precision and scale as Calcite derives them); the compiler checks
 * argument counts and column indexes and fails with INTERNAL_ERROR naming the problem.
 */
public final class ExprCompiler {
  private final List<SqlType> inputTypes;

  /** @param inputTypes the types of the input batch's columns, by index */
  public ExprCompiler(List<SqlType> inputTypes) {
    this.inputTypes = inputTypes;
  }

  public Evaluator compile(Expr expr) {
    SqlType type = SqlType.of(expr.getType());
    switch (expr.getKindCase()) {
      case COLUMN: {
        int index = expr.getColumn();
        if (index < 0 || index >= inputTypes.size()) {
          throw EngineException.badPlan("column " + index + " is outside the input's " + inputTypes.size() + " columns");
        }
        return new ColumnRef(index, inputTypes.get(index));
      }
      case LITERAL:
        return new Literals.Constant(expr.getLiteral(), type);
      case CALL:
        return call(expr.getCall(), type);
      default:
        throw EngineException.badPlan("expression without a kind");
    }
  }

  /**
   * Deterministic functions whose call on constants is computed once at compile time: arithmetic
   * and casts, as the planner leaves them to the engine (its folding differs from Squall's on
   * overflow and rounding). Computing them here with the engine's own evaluators keeps Squall's
   * semantics, and lets a comparison with the result take its scalar path ({@code l_discount >=
   * 0.06 - 0.01} in TPC-H Q6).
   */
  private static final Set<Function> FOLDED_ON_CONSTANTS = Set.of(Function.ADD, Function.SUBTRACT, Function.MULTIPLY,
      Function.DIVIDE, Function.MOD, Function.NEGATE, Function.ABS, Function.CAST);

  private Evaluator call(Call call, SqlType type) {
    List<Evaluator> args = new ArrayList<>();
    for (Expr a : call.getArgsList()) {
      args.add(compile(a));
    }
    Evaluator e = compiledCall(call, type, args);
    // Arguments are compiled first, so a constant argument is a Constant by now: one folded
    // below, or a literal.
    if (!FOLDED_ON_CONSTANTS.contains(call.getFunction()) || !args.stream().allMatch(a -> a instanceof Literals.Constant)) {
      return e;
    }
    Column value;
    try {
      value = e.evaluate(new ColumnBatch(new Column[0], 1));
    } catch (RuntimeException error) {
      // An error (overflow, division by zero) is raised where the engine evaluates rows, as
      // without folding: never for an input without rows or a CASE branch not taken.
      return e;
    }
    return value.size() == 1 ? new Literals.Constant(value, type) : e;
  }

  private Evaluator compiledCall(Call call, SqlType type, List<Evaluator> args) {
    Function f = call.getFunction();
    switch (f) {
      case ADD, MULTIPLY: {
        // n-ary: applied left to right, every step in the call's type (the planner merges only
        // nested calls of that type).
        arity(f, args, 2, Integer.MAX_VALUE);
        Evaluator result = args.get(0);
        for (int i = 1; i < args.size(); i++) {
          result = new ArithmeticEvaluator(f, type, result, args.get(i));
        }
        return result;
      }
      case SUBTRACT, DIVIDE, MOD:
        arity(f, args, 2, 2);
        return new ArithmeticEvaluator(f, type, args.get(0), args.get(1));
      case NEGATE, ABS:
        arity(f, args, 1, 1);
        return new SignEvaluator(f == Function.NEGATE, type, args.get(0));
      case EQUAL, NOT_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL,
          IS_DISTINCT_FROM, IS_NOT_DISTINCT_FROM:
        arity(f, args, 2, 2);
        return new ComparisonEvaluator(f, args.get(0), args.get(1));
      case AND:
        arity(f, args, 1, Integer.MAX_VALUE);
        return new LogicEvaluators.Junction(true, args);
      case OR:
        arity(f, args, 1, Integer.MAX_VALUE);
        List<Evaluator> terms = equalitiesAsInLists(call, args);
        return terms.size() == 1 ? terms.get(0) : new LogicEvaluators.Junction(false, terms);
      case NOT, IS_NULL, IS_NOT_NULL, IS_TRUE, IS_FALSE, IS_NOT_TRUE, IS_NOT_FALSE:
        arity(f, args, 1, 1);
        return new LogicEvaluators.Unary(f, args.get(0));
      case BETWEEN: {
        arity(f, args, 3, 3);
        Evaluator v = new Shared(args.get(0));
        return new LogicEvaluators.Junction(true, List.of(
            new ComparisonEvaluator(Function.GREATER_THAN_OR_EQUAL, v, args.get(1)),
            new ComparisonEvaluator(Function.LESS_THAN_OR_EQUAL, v, args.get(2))));
      }
      case IN: {
        arity(f, args, 2, Integer.MAX_VALUE);
        if (call.getArgsList().subList(1, args.size()).stream().allMatch(Expr::hasLiteral)) {
          return new InListEvaluator(args.get(0), args.subList(1, args.size()));
        }
        Evaluator v = new Shared(args.get(0));
        List<Evaluator> tests = new ArrayList<>();
        for (int i = 1; i < args.size(); i++) {
          tests.add(new ComparisonEvaluator(Function.EQUAL, v, args.get(i)));
        }
        return new LogicEvaluators.Junction(false, tests);
      }
      case CASE: {
        arity(f, args, 2, Integer.MAX_VALUE);
        List<Evaluator> conditions = new ArrayList<>();
        List<Evaluator> values = new ArrayList<>();
        for (int i = 0; i + 1 < args.size(); i += 2) {
          conditions.add(args.get(i));
          values.add(args.get(i + 1));
        }
        Evaluator otherwise = args.size() % 2 == 1 ? args.get(args.size() - 1) : null;
        return new ConditionalEvaluators.Case(type, conditions, values, otherwise);
      }
      case COALESCE:
        arity(f, args, 1, Integer.MAX_VALUE);
        return new ConditionalEvaluators.Coalesce(type, args);
      case NULLIF:
        arity(f, args, 2, 2);
        return new ConditionalEvaluators.NullIf(type, args.get(0), args.get(1));
      case CAST:
        arity(f, args, 1, 1);
        return new CastEvaluator(type, args.get(0));
      case LIKE:
        arity(f, args, 2, 3);
        return new StringFunctions.Like(args.get(0), args.get(1), args.size() > 2 ? args.get(2) : null);
      case SUBSTRING:
        arity(f, args, 2, 3);
        return new StringFunctions.StringCall(f, type, args);
      case UPPER, LOWER, CHAR_LENGTH:
        arity(f, args, 1, 1);
        return new StringFunctions.StringCall(f, type, args);
      case TRIM:
        arity(f, args, 3, 3);
        return new StringFunctions.StringCall(f, type, args);
      case CONCAT:
        arity(f, args, 2, 2);
        return new StringFunctions.StringCall(f, type, args);
      case EXTRACT_YEAR, EXTRACT_MONTH, EXTRACT_DAY, EXTRACT_QUARTER, EXTRACT_DOW, EXTRACT_HOUR, EXTRACT_MINUTE,
          EXTRACT_SECOND, EXTRACT_WEEK, EXTRACT_ISO_DOW, EXTRACT_DOY:
        arity(f, args, 1, 1);
        return new DateFunctions.Extract(f, type, args.get(0));
      case DATE_PLUS_INTERVAL, DATE_MINUS_INTERVAL:
        arity(f, args, 2, 2);
        return new DateFunctions.PlusInterval(f == Function.DATE_MINUS_INTERVAL, type, args.get(0), args.get(1));
      case ROUND, TRUNCATE:
        arity(f, args, 1, 2);
        return new MathFunctions.Rounding(f == Function.TRUNCATE, type, args.get(0), args.size() > 1 ? args.get(1) : null);
      case CEIL, FLOOR, SIGN:
        arity(f, args, 1, 1);
        return new MathFunctions.Unary(f, type, args.get(0));
      case POWER:
        arity(f, args, 2, 2);
        return new MathFunctions.DoubleFunction(f, type, args.get(0), args.get(1));
      case SQRT, CBRT, EXP, LN, LOG10, LOG2:
        arity(f, args, 1, 1);
        return new MathFunctions.DoubleFunction(f, type, args.get(0), null);
      case REVERSE, CHR, CODEPOINT:
        arity(f, args, 1, 1);
        return new TextFunctions.TextCall(f, type, args);
      case STRPOS, STARTS_WITH, REGEXP_LIKE:
        arity(f, args, 2, 2);
        return new TextFunctions.TextCall(f, type, args);
      case REPLACE, LPAD, RPAD, SPLIT_PART, REGEXP_REPLACE:
        arity(f, args, 3, 3);
        return new TextFunctions.TextCall(f, type, args);
      case REGEXP_EXTRACT:
        arity(f, args, 2, 3);
        return new TextFunctions.TextCall(f, type, args);
      case GREATEST, LEAST:
        arity(f, args, 1, Integer.MAX_VALUE);
        return new ConditionalEvaluators.Extreme(f == Function.GREATEST, type, args);
      case TRY:
        arity(f, args, 1, 1);
        return new ConditionalEvaluators.Try(type, args.get(0));
      case TRY_CAST:
        arity(f, args, 1, 1);
        return new ConditionalEvaluators.Try(type, new CastEvaluator(type, args.get(0)));
      case DATE_TRUNC:
        arity(f, args, 2, 2);
        return new DateTimeFunctions.Trunc(unit(call), type, args.get(1));
      case DATE_ADD:
        arity(f, args, 3, 3);
        return new DateTimeFunctions.Add(unit(call), type, args.get(1), args.get(2));
      case DATE_DIFF:
        arity(f, args, 3, 3);
        return new DateTimeFunctions.Diff(unit(call), type, args.get(1), args.get(2));
      case FROM_UNIXTIME, TO_UNIXTIME:
        arity(f, args, 1, 1);
        return new DateTimeFunctions.Unixtime(f, type, args.get(0));
      case DATE_FORMAT, DATE_PARSE:
        arity(f, args, 2, 2);
        return new DateTimeFunctions.Format(f == Function.DATE_PARSE, type, args.get(0), args.get(1));
      default:
        throw EngineException.badPlan("unsupported function " + f);
    }
  }

  /**
   * The terms of an OR with its equalities of one expression with literals ({@code x = 'a' OR y > 1
   * OR x = 'b'}) joined into one {@link InListEvaluator} where the first of them stood ({@code x IN
   * ('a', 'b') OR y > 1}): x is then computed once, over every row, which the first equality did
   * already; an equality with a literal raises no error on the rows the OR would have skipped.
   */
  private List<Evaluator> equalitiesAsInLists(Call or, List<Evaluator> args) {
    Map<Expr, List<Integer>> byOperand = new LinkedHashMap<>();
    for (int i = 0; i < args.size(); i++) {
      Expr operand = equalityOperand(or.getArgs(i));
      if (operand != null) {
        byOperand.computeIfAbsent(operand, k -> new ArrayList<>()).add(i);
      }
    }
    Map<Integer, Evaluator> joined = new HashMap<>();
    Set<Integer> absorbed = new HashSet<>();
    for (var e : byOperand.entrySet()) {
      List<Integer> at = e.getValue();
      if (at.size() < 2) {
        continue;
      }
      List<Evaluator> literals = new ArrayList<>();
      for (int i : at) {
        Call eq = or.getArgs(i).getCall();
        literals.add(compile(eq.getArgs(eq.getArgs(0).hasLiteral() ? 0 : 1)));
      }
      joined.put(at.get(0), new InListEvaluator(compile(e.getKey()), literals));
      absorbed.addAll(at.subList(1, at.size()));
    }
    if (joined.isEmpty()) {
      return args;
    }
    List<Evaluator> terms = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      if (!absorbed.contains(i)) {
        terms.add(joined.getOrDefault(i, args.get(i)));
      }
    }
    return terms;
  }

  /** Of {@code x = literal} or {@code literal = x} (x not a literal): x; null for any other expression. */
  private static Expr equalityOperand(Expr e) {
    if (!e.hasCall() || e.getCall().getFunction() != Function.EQUAL || e.getCall().getArgsCount() != 2) {
      return null;
    }
    Expr a = e.getCall().getArgs(0);
    Expr b = e.getCall().getArgs(1);
    if (a.hasLiteral() == b.hasLiteral()) {
      return null;
    }
    return a.hasLiteral() ? b : a;
  }

  /** The unit of DATE_TRUNC, DATE_ADD and DATE_DIFF: their first argument, a VARCHAR literal. */
  private static String unit(Call call) {
    Expr unit = call.getArgs(0);
    if (!unit.hasLiteral() || unit.getLiteral().getIsNull()) {
      throw EngineException.badPlan(call.getFunction() + " needs a literal unit");
    }
    return unit.getLiteral().getStringValue();
  }

  private static void arity(Function f, List<Evaluator> args, int min, int max) {
    if (args.size() < min || args.size() > max) {
      throw EngineException.badPlan(f + " takes " + (min == max ? min : min + ".." + (max == Integer.MAX_VALUE ? "n" : max))
          + " arguments, got " + args.size());
    }
  }

  /** An input column. */
  static final class ColumnRef implements Evaluator {
    private final int index;
    private final SqlType type;

    ColumnRef(int index, SqlType type) {
      this.index = index;
      this.type = type;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      return batch.column(index);
    }
  }

  /** Evaluates its argument once per batch even when used by several parents (BETWEEN, IN). */
  static final class Shared implements Evaluator {
    private final Evaluator inner;
    private Batch lastBatch;
    private Column last;

    Shared(Evaluator inner) {
      this.inner = inner;
    }

    /** Whether evaluating over all of {@code batch} costs no more than a column read. */
    boolean readyFor(Batch batch) {
      return batch == lastBatch || inner instanceof ColumnRef;
    }

    @Override
    public SqlType type() {
      return inner.type();
    }

    @Override
    public Column evaluate(Batch batch) {
      if (batch != lastBatch) {
        last = inner.evaluate(batch);
        lastBatch = batch;
      }
      return last;
    }
  }

  /** CAST(x AS type). */
  static final class CastEvaluator implements Evaluator {
    private final SqlType type;
    private final Evaluator arg;

    CastEvaluator(SqlType type, Evaluator arg) {
      this.type = type;
      this.arg = arg;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      return Casts.cast(arg.evaluate(batch), type);
    }
  }

  /** Unary minus and ABS; overflow (e.g. -(-2^63)) is an error. */
  static final class SignEvaluator implements Evaluator {
    private final boolean negate;
    private final SqlType type;
    private final Evaluator arg;

    SignEvaluator(boolean negate, SqlType type, Evaluator arg) {
      this.negate = negate;
      this.type = type;
      this.arg = arg;
    }

    @Override
    public SqlType type() {
      return type;
    }

    @Override
    public Column evaluate(Batch batch) {
      Column c = Casts.cast(arg.evaluate(batch), type);
      int n = batch.rows();
      if (c instanceof LongColumn l) {
        long[] out = new long[n];
        long[] v = l.values();
        for (int i = 0; i < n; i++) {
          long x = v[i];
          long r = negate || x < 0 ? -x : x;
          if ((x == type.minValue() && (negate || x < 0)) && !c.isNull(i)) {
            throw Decimals.overflow(type);
          }
          out[i] = r;
        }
        return new LongColumn(type, out, c.nullMask(), n);
      } else if (c instanceof DoubleColumn d) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          out[i] = negate ? -d.value(i) : Math.abs(d.value(i));
        }
        return new DoubleColumn(type, out, c.nullMask(), n);
      } else if (c instanceof DecimalColumn d) {
        DecimalColumn out = new DecimalColumn(type, new long[n], null, c.nullMask(), n);
        for (int i = 0; i < n; i++) {
          if (c.isNull(i)) {
            continue;
          }
          java.math.BigInteger u = d.unscaledBig(i);
          out.setBig(i, negate ? u.negate() : u.abs());
        }
        return out;
      }
      throw EngineException.badPlan((negate ? "NEGATE" : "ABS") + " of " + c.type());
    }
  }
}
