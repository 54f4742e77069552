package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.testing.Planning;
import dev.squall.planner.testing.TpchQueries;
import org.junit.jupiter.api.Test;

/**
 * Join estimates from key domains: TPC-H's nation keys span 0..24 in every table (the catalog's
 * file bounds), so a join of customer and supplier on their nation keys alone is a many-to-many
 * join of 150,000 × 10,000 / 25 = 60,000,000 rows at SF 1, not max(150,000, 10,000).
 */
class JoinEstimatesTest {
  @Test
  void manyToManyJoinOnASmallDomainIsEstimatedFromItsDistinctValues() {
    PlannedQuery planned = Planning.sf1(
        "select c_custkey, s_suppkey from customer, supplier where c_nationkey = s_nationkey");
    long rows = planned.stageGraph().getStages(planned.stageGraph().getRootStageId()).getEstimates().getRows();
    assertThat(rows).isBetween(50_000_000L, 70_000_000L);
  }

  @Test
  void rangeBoundsOnlyApplyWhereEveryFileHasThem() {
    // o_custkey has no bounds in the catalog: the estimate falls back to max(left, right).
    PlannedQuery planned = Planning.sf1(
        "select o_orderkey from orders, customer where o_custkey = c_nationkey");
    long rows = planned.stageGraph().getStages(planned.stageGraph().getRootStageId()).getEstimates().getRows();
    assertThat(rows).isLessThanOrEqualTo(1_500_000L);
  }

  @Test
  void q5JoinsCustomerWithSupplierOnlyAlongsideTheOrderKey() {
    // Joined on nation keys alone, customer × supplier is 60 M rows at SF 1 (the plan that
    // exhausted task memory); the pair must meet only together with c_custkey = o_custkey.
    String text = Planning.sf1("EXPLAIN " + TpchQueries.query(5)).explain();
    assertThat(text).containsPattern("Join INNER on [^\\n]*(c_nationkey = s_nationkey|s_nationkey = c_nationkey)");
    assertThat(text).doesNotContainPattern(
        "Join INNER on (c_nationkey = s_nationkey|s_nationkey = c_nationkey) build");
  }
}
