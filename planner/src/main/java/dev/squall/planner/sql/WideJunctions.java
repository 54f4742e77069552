package dev.squall.planner.sql;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.StandardConvertletTable;

/**
 * Long chains of AND or OR (more than {@link #THRESHOLD} terms) as calls of Squall's own operators
 * {@link #WIDE_AND} and {@link #WIDE_OR}, which Calcite does not know to be logic.
 *
 * <p>Why: Calcite's {@code RexSimplify} simplifies each term of an OR under the negation of every
 * term before it (and each term of an AND under the others); for comparisons it computes the
 * residue of range sets ({@code RexSimplify.residue}, {@code RangeSets.minus}) against all those
 * predicates, so its time grows with the cube of the chain's length. 300 ORed equalities took
 * seconds and 1,000 took minutes in {@code ReduceExpressionsRule}. A wide call is opaque to the
 * simplifier (its terms are still simplified one by one) and still moves with its filter through
 * the plan; the translator to plan-proto turns it back into an n-ary AND or OR, which the engine
 * evaluates with SQL's three-valued logic. What is lost on such chains: constant folding of the
 * chain as a whole, splitting a wide AND into conjuncts for push-down, and Iceberg pruning by it.
 *
 * <p>Both operators are marked dynamic so that {@code ReduceExpressionsRule} never asks the
 * executor (which cannot run them) to fold one whose terms are all constants.
 */
public final class WideJunctions implements SqlRexConvertletTable {
  /** Chains with more terms than this become wide calls. */
  public static final int THRESHOLD = 64;

  /** An AND of any number of terms, opaque to Calcite's simplifier. */
  public static final SqlFunction WIDE_AND = new WideOperator("SQUALL_WIDE_AND");
  /** An OR of any number of terms, opaque to Calcite's simplifier. */
  public static final SqlFunction WIDE_OR = new WideOperator("SQUALL_WIDE_OR");

  /** The convertlet table SQL-to-rel conversion uses: the standard one, with wide chains. */
  public static final WideJunctions CONVERTLETS = new WideJunctions();

  private WideJunctions() {}

  @Override
  public SqlRexConvertlet get(SqlCall call) {
    SqlKind kind = call.getKind();
    if ((kind == SqlKind.AND || kind == SqlKind.OR) && terms(call).size() > THRESHOLD) {
      return (cx, c) -> {
        List<SqlNode> terms = terms(c);
        List<RexNode> operands = new ArrayList<>(terms.size());
        boolean nullable = false;
        for (SqlNode term : terms) {
          RexNode operand = cx.convertExpression(term);
          nullable |= operand.getType().isNullable();
          operands.add(operand);
        }
        RexBuilder rex = cx.getRexBuilder();
        RelDataType type = rex.getTypeFactory().createTypeWithNullability(
            rex.getTypeFactory().createSqlType(SqlTypeName.BOOLEAN), nullable);
        return rex.makeCall(type, c.getKind() == SqlKind.AND ? WIDE_AND : WIDE_OR, operands);
      };
    }
    return StandardConvertletTable.INSTANCE.get(call);
  }

  /** Whether the operator is a wide AND or OR; {@link #isAnd} tells which. */
  public static boolean isWide(SqlOperator operator) {
    return operator == WIDE_AND || operator == WIDE_OR;
  }

  public static boolean isAnd(SqlOperator operator) {
    return operator == WIDE_AND;
  }

  /**
   * The terms of a chain of one junction, left to right, found without recursion (the parser
   * nests {@code a OR b OR c} as {@code OR(OR(a, b), c)}, one level per term).
   */
  private static List<SqlNode> terms(SqlCall chain) {
    SqlKind kind = chain.getKind();
    List<SqlNode> terms = new ArrayList<>();
    Deque<SqlNode> pending = new ArrayDeque<>();
    pending.push(chain);
    while (!pending.isEmpty()) {
      SqlNode node = pending.pop();
      if (node instanceof SqlCall call && call.getKind() == kind) {
        List<SqlNode> operands = call.getOperandList();
        for (int i = operands.size() - 1; i >= 0; i--) {
          pending.push(operands.get(i));
        }
      } else {
        terms.add(node);
      }
    }
    return terms;
  }

  /** A boolean function of any number of boolean terms. */
  private static final class WideOperator extends SqlFunction {
    WideOperator(String name) {
      super(name, SqlKind.OTHER_FUNCTION, ReturnTypes.BOOLEAN_NULLABLE, null, OperandTypes.VARIADIC,
          SqlFunctionCategory.SYSTEM);
    }

    @Override
    public boolean isDynamicFunction() {
      return true;
    }
  }
}
