package dev.squall.planner.optimize;

import java.util.List;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.metadata.BuiltInMetadata;
import org.apache.calcite.rel.metadata.MetadataDef;
import org.apache.calcite.rel.metadata.MetadataHandler;
import org.apache.calcite.rel.metadata.ReflectiveRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMdUtil;
import org.apache.calcite.rel.metadata.RelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Join output rows without column statistics (Iceberg gives row counts only), replacing Calcite's
 * {@code left * right * 0.15}, which explodes over chains of joins. The classic key/foreign-key
 * estimate: when one side's join keys are unique (Iceberg identifier fields), every row of the
 * other side matches at most once, and matches survive in the proportion of the unique side's
 * rows left after its filters: {@code other * (uniqueRows / uniqueTableRows)}. Without a unique
 * side, {@code left * right / max(ndvLeft, ndvRight)} when both keys' distinct counts are known
 * ({@link ScanDistinctRowCount}), else {@code max(left, right)}. Non-equi conditions scale by Calcite's
 * guessed selectivity. Outer joins keep at least their preserved side; SEMI keeps the surviving
 * fraction of the left, ANTI the rest (at least 10%).
 */
public final class JoinRowCount implements MetadataHandler<BuiltInMetadata.RowCount> {
  /** The provider to chain before Calcite's defaults. */
  public static final RelMetadataProvider SOURCE = ReflectiveRelMetadataProvider.reflectiveSource(
      new JoinRowCount(), BuiltInMetadata.RowCount.Handler.class);

  private JoinRowCount() {}

  @Override
  public MetadataDef<BuiltInMetadata.RowCount> getDef() {
    return BuiltInMetadata.RowCount.DEF;
  }

  /** Estimated output rows of a join. */
  public Double getRowCount(Join join, RelMetadataQuery mq) {
    RelNode left = join.getLeft();
    RelNode right = join.getRight();
    double l = rows(mq, left);
    double r = rows(mq, right);
    JoinInfo info = JoinInfo.of(left, right, join.getCondition());
    double residual = info.nonEquiConditions.isEmpty() ? 1.0
        : RelMdUtil.guessSelectivity(RexUtil.composeConjunction(join.getCluster().getRexBuilder(), info.nonEquiConditions));
    if (info.leftKeys.isEmpty()) {
      return switch (join.getJoinType()) {
        case SEMI -> l * residual;
        case ANTI -> l * Math.max(0.1, 1 - residual);
        default -> Math.max(1, l * r * residual);
      };
    }
    boolean rightUnique = Boolean.TRUE.equals(mq.areColumnsUnique(right, ImmutableBitSet.of(info.rightKeys)));
    boolean leftUnique = Boolean.TRUE.equals(mq.areColumnsUnique(left, ImmutableBitSet.of(info.leftKeys)));
    double rightSurvival = survival(mq, right, info.rightKeys, r);
    double inner;
    if (rightUnique) {
      inner = l * rightSurvival;
    } else if (leftUnique) {
      inner = r * survival(mq, left, info.leftKeys, l);
    } else {
      inner = manyToMany(mq, join, info, l, r);
    }
    inner *= residual;
    return switch (join.getJoinType()) {
      case INNER -> inner;
      case LEFT -> Math.max(inner, l);
      case RIGHT -> Math.max(inner, r);
      case FULL -> Math.max(inner, Math.max(l, r));
      case SEMI -> l * rightSurvival * residual;
      case ANTI -> l * Math.max(0.1, 1 - rightSurvival * residual);
      default -> inner;
    };
  }

  /**
   * Neither side unique: with both sides' key distinct counts known, the textbook containment
   * estimate {@code l * r / max(ndvL, ndvR)} (each key value of the smaller domain meets its share
   * of the other side); otherwise {@code max(l, r)}.
   */
  private static double manyToMany(RelMetadataQuery mq, Join join, JoinInfo info, double l, double r) {
    Double ndvLeft = mq.getDistinctRowCount(join.getLeft(), ImmutableBitSet.of(info.leftKeys), null);
    Double ndvRight = mq.getDistinctRowCount(join.getRight(), ImmutableBitSet.of(info.rightKeys), null);
    if (ndvLeft == null || ndvRight == null || ndvLeft <= 0 || ndvRight <= 0) {
      return Math.max(l, r);
    }
    return Math.max(1.0, l * r / Math.max(Math.min(ndvLeft, l), Math.min(ndvRight, r)));
  }

  private static double rows(RelMetadataQuery mq, RelNode rel) {
    Double rows = mq.getRowCount(rel);
    return rows == null ? 1 : rows;
  }

  /** Fraction of the key's origin table rows that this side still holds (1 when unknown). */
  private static double survival(RelMetadataQuery mq, RelNode side, List<Integer> keys, double rows) {
    RelColumnOrigin origin = mq.getColumnOrigin(side, keys.get(0));
    if (origin == null || origin.isDerived()) {
      return 1;
    }
    RelOptTable table = origin.getOriginTable();
    double total = table.getRowCount();
    return total <= 0 ? 1 : Math.min(1, rows / total);
  }
}
