package dev.squall.planner.optimize;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Gives every literal of a VALUES row its column's type. The validator types a column of exact
 * and approximate numbers (e.g. {@code (1.5), (1e3)}) as DOUBLE but keeps each literal's own type,
 * and Calcite's predicate pull-up ({@code RelMdPredicates}, run by the expression-reducing rules)
 * then compares a BigDecimal with a Double and fails; one type per column avoids that.
 */
final class ValuesLiterals {
  private ValuesLiterals() {}

  static RelNode normalize(RelNode plan) {
    return plan.accept(new RelShuttleImpl() {
      @Override
      public RelNode visit(LogicalValues values) {
        RexBuilder rex = values.getCluster().getRexBuilder();
        List<RelDataType> types = values.getRowType().getFieldList().stream().map(f -> f.getType()).toList();
        boolean changed = false;
        List<ImmutableList<RexLiteral>> tuples = new ArrayList<>();
        for (List<RexLiteral> row : values.getTuples()) {
          ImmutableList.Builder<RexLiteral> out = ImmutableList.builder();
          for (int c = 0; c < row.size(); c++) {
            RexLiteral lit = row.get(c);
            RelDataType type = types.get(c);
            SqlTypeName have = lit.getType().getSqlTypeName();
            SqlTypeName want = type.getSqlTypeName();
            if (lit.isNull() || have == want || !SqlTypeName.NUMERIC_TYPES.contains(have)
                || !SqlTypeName.APPROX_TYPES.contains(want)) {
              out.add(lit);
              continue;
            }
            // An exact number in a column of approximate numbers becomes an approximate literal.
            out.add((RexLiteral) rex.makeApproxLiteral(lit.getValueAs(java.math.BigDecimal.class), type));
            changed = true;
          }
          tuples.add(out.build());
        }
        return changed ? LogicalValues.create(values.getCluster(), values.getRowType(), ImmutableList.copyOf(tuples)) : values;
      }
    });
  }
}
