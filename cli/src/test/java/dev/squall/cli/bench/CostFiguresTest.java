package dev.squall.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.squall.coordinator.cost.PriceTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cost benchmark's arithmetic: the straight-line extrapolation, the price formula, Athena's price, the TSV file. */
class CostFiguresTest {
  private static CostFigures at(double sf, double scale) {
    return new CostFigures("Q1", sf, 1000 * scale, 2 * scale, 5, 10 * scale, 3 * scale, 7 * scale, 1, 4, 2, 20, 30,
        1e9 * scale, 2e8 * scale, 0.01 * scale);
  }

  @Test
  void eachFigureFollowsTheLineThroughTheTwoRuns() {
    // Task GB-s 2 at SF 1 and 20 at SF 10: slope 2 per SF, so 2000 at SF 1000; a constant stays.
    CostFigures low = at(1, 1);
    CostFigures high = at(10, 10);
    CostFigures f = CostFigures.extrapolate(low, high, 1000);
    assertThat(f.scaleFactor()).isEqualTo(1000);
    assertThat(f.taskGbSeconds()).isCloseTo(2000, within(1e-9));
    assertThat(f.coordinatorGbSeconds()).isCloseTo(5, within(1e-9));
    assertThat(f.bytesScanned()).isCloseTo(1e12, within(1.0));
    assertThat(f.get()).isCloseTo(7000, within(1e-9));
  }

  @Test
  void aFigureThatShrankIsHeldAtItsLargerMeasurementRatherThanGoingNegative() {
    CostFigures low = new CostFigures("Q2", 1, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    CostFigures high = new CostFigures("Q2", 10, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    // 9 - (1/9)·999 < 0.
    assertThat(CostFigures.extrapolate(low, high, 1000).coordinatorGbSeconds()).isEqualTo(9);
  }

  @Test
  void dollarsFollowDocsCostFormulaAndAthenaBillsAtLeastTenMegabytes() {
    CostFigures f = new CostFigures("Q6", 1, 0, 3, 1, 4, 10, 100, 2, 5, 7, 8, 9, 5e11, 2e11, 0);
    PriceTable p = PriceTable.DEFAULT;
    double expected = 4 * 0.0000133334 + 4 * 0.0000002 + 12 * 0.000005 + 105 * 0.0000004 + 8 * 0.000000125
        + 9 * 0.000000625;
    assertThat(f.dollarsAt(p)).isCloseTo(expected, within(1e-12));
    assertThat(f.dollarsWithoutCoordinatorAt(p)).isCloseTo(expected - 0.0000133334, within(1e-12));
    assertThat(f.athenaDollars()).isCloseTo(1.0, within(1e-12));
    CostFigures tiny = new CostFigures("Q11", 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1e5, 1e4, 0);
    assertThat(tiny.athenaDollars()).isCloseTo(5.0 * 10e6 / 1e12, within(1e-15));
  }

  @Test
  void figuresSurviveTheirFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("cost-sf1.tsv");
    List<CostFigures> all = List.of(at(1, 1), new CostFigures("Q2", 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0.000123));
    CostFigures.write(file, all);
    assertThat(Files.readAllLines(file)).hasSize(2);
    assertThat(CostFigures.read(file)).isEqualTo(all);
  }

  @Test
  void athenaEstimateCountsWholeWordsOnly() {
    String q21 = "select s_name from supplier, lineitem l1, orders, nation where exists (select * from lineitem l2)"
        + " and not exists (select * from lineitem l3) and s_nationkey = n_nationkey and n_name = 'SAUDI ARABIA'";
    assertThat(AthenaScanEstimate.count(q21, "lineitem")).isEqualTo(3);
    assertThat(AthenaScanEstimate.count(q21, "nation")).isEqualTo(1);
    assertThat(AthenaScanEstimate.count("select ps_partkey from partsupp", "part")).isZero();
  }
}
