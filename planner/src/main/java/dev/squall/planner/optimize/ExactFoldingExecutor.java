package dev.squall.planner.optimize;

import dev.squall.planner.sql.TrinoFunctions;
import java.util.List;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexExecutor;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Constant folding for the planner that leaves to the engine what Calcite's executor gets wrong:
 * arithmetic on exact numbers (Calcite's generated code wraps around on BIGINT overflow, where
 * Squall raises "numeric overflow") and casts to DECIMAL (Calcite truncates extra digits, where
 * Squall rounds half up, as DuckDB does). Such expressions stay as they are and are evaluated by
 * the engine; so do the Trino functions and TRY_CAST, which Calcite's executor has no code for, and
 * math functions whose rounding or errors follow Trino in the engine. Every other constant
 * expression is folded by {@code delegate}.
 *
 * <p>Calcite's executor compiles Java code for every expression it folds (Janino, tens of
 * milliseconds each), so literals folded from an expression are kept, process-wide, by the
 * expression's digest and type ({@link #MAX_FOLDED} of them, least recently used dropped first): the
 * same query planned again folds without compiling. The expressions folded are deterministic and
 * read no context (the current time is a literal before folding), so a digest always folds to the
 * same literal.
 */
public final class ExactFoldingExecutor implements RexExecutor {
  /** Folded literals kept. */
  public static final int MAX_FOLDED = 10_000;
  private static final java.util.Map<String, RexLiteral> FOLDED =
      java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, RexLiteral> eldest) {
          return size() > MAX_FOLDED;
        }
      });

  private final RexExecutor delegate;

  public ExactFoldingExecutor(RexExecutor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void reduce(RexBuilder rexBuilder, List<RexNode> constExps, List<RexNode> reducedValues) {
    for (RexNode e : constExps) {
      if (leftToEngine(e)) {
        reducedValues.add(e);
      } else {
        String key = e + " : " + e.getType().getFullTypeString();
        RexLiteral folded = FOLDED.get(key);
        if (folded != null) {
          reducedValues.add(folded);
          continue;
        }
        List<RexNode> one = new java.util.ArrayList<>(1);
        delegate.reduce(rexBuilder, List.of(e), one);
        if (one.size() == 1 && one.get(0) instanceof RexLiteral literal) {
          FOLDED.put(key, literal);
        }
        reducedValues.addAll(one);
      }
    }
  }

  /** Calcite functions whose constant folding could differ from Squall's (Trino's) semantics. */
  private static final java.util.Set<String> ENGINE_SEMANTICS = java.util.Set.of(
      "ROUND", "TRUNCATE", "CEIL", "FLOOR", "SIGN", "POWER", "SQRT", "CBRT", "EXP", "LN", "LOG10", "POSITION",
      // Calcite folds with Java's full case mapping ('ß' to "SS") into the argument's length.
      "UPPER", "LOWER", "INITCAP",
      // Calcite's SUBSTRING is the SQL standard's; Squall's is Trino's (a negative start counts from the end).
      "SUBSTRING",
      // Calcite counts UTF-16 units ('😀ab' has length 4); Squall counts code points (3), as Trino.
      "CHAR_LENGTH", "CHARACTER_LENGTH", "LPAD", "RPAD");

  /** Whether {@code e} holds exact arithmetic or a cast to an exact type anywhere. */
  static boolean leftToEngine(RexNode e) {
    if (!(e instanceof RexCall call)) {
      return false;
    }
    SqlKind kind = call.getKind();
    boolean exact = SqlTypeName.EXACT_TYPES.contains(call.getType().getSqlTypeName());
    if (exact && (kind == SqlKind.PLUS || kind == SqlKind.MINUS || kind == SqlKind.TIMES || kind == SqlKind.DIVIDE
        || kind == SqlKind.MINUS_PREFIX || kind == SqlKind.CAST || kind == SqlKind.MOD)) {
      return true;
    }
    if (TrinoFunctions.INSTANCE.defines(call.getOperator()) || kind == SqlKind.SAFE_CAST
        || ENGINE_SEMANTICS.contains(call.getOperator().getName().toUpperCase(java.util.Locale.ROOT))) {
      return true;
    }
    for (RexNode operand : call.getOperands()) {
      if (leftToEngine(operand)) {
        return true;
      }
    }
    return false;
  }
}
