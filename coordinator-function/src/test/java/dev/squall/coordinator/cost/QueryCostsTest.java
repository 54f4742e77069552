package dev.squall.coordinator.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.squall.proto.v1.QueryCost;
import dev.squall.proto.v1.S3RequestCounts;
import dev.squall.proto.v1.TaskMetrics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryCostsTest {
  private static final PriceTable ROUND = new PriceTable(0.001, 0.01, 0.1, 0.02, 0.003, 0.004, "round");

  @Test
  void dollarsFollowTheFormulaOfCostMd() {
    // Two attempts: 2 s at 1024 MB (+ 0.5 s init), and 1 s without a reported memory (512 MB configured).
    TaskMetrics a = TaskMetrics.newBuilder().setInvocationMillis(2000).setInitMillis(500).setFunctionMemoryMb(1024)
        .setS3(S3RequestCounts.newBuilder().setPut(1).setGet(4).setHead(2).setList(1).setDelete(3)).build();
    TaskMetrics b = TaskMetrics.newBuilder().setWallMillis(1000).build();
    JobMeter meter = new JobMeters().open("job-1");
    meter.s3().count(dev.squall.shuffle.requests.S3RequestCounter.Kind.PUT);
    meter.countRead();
    meter.countWrite();
    meter.countWrite();
    QueryCost c = new QueryCosts(new CostSettings(ROUND, 2048, 512)).of(List.of(a, b), 3000, 1, meter, 77);

    assertThat(c.getTaskGbSeconds()).isCloseTo(2.5 * 1.0 + 1.0 * 0.5, within(1e-12));
    assertThat(c.getCoordinatorGbSeconds()).isCloseTo(3.0 * 2.0, within(1e-12));
    assertThat(c.getInvocations()).isEqualTo(3);
    assertThat(c.getS3().getGet()).isEqualTo(4);
    assertThat(c.getCoordinatorS3().getPut()).isEqualTo(1);
    // GB-s 9.0, 3 invocations, PUT+LIST 3, GET+HEAD 6, DELETE free, 1 read, 2 writes.
    double expected = 9.0 * 0.001 + 3 * 0.01 + 3 * 0.1 + 6 * 0.02 + 1 * 0.003 + 2 * 0.004;
    assertThat(c.getDollars()).isCloseTo(expected, within(1e-12));
    assertThat(c.getBytesScanned()).isEqualTo(77);
    assertThat(c.getPriceTable()).isEqualTo("round");
  }

  @Test
  void pricesComeFromTheSettingWhenGiven() {
    assertThat(PriceTable.fromEnv(Map.of())).isEqualTo(PriceTable.DEFAULT);
    PriceTable x86 = PriceTable.fromEnv(Map.of(PriceTable.SETTING, "lambda_gb_second=0.0000166667, s3_get=0.00000044"));
    assertThat(x86.lambdaGbSecond()).isEqualTo(0.0000166667);
    assertThat(x86.s3Get()).isEqualTo(0.00000044);
    assertThat(x86.s3Put()).isEqualTo(PriceTable.DEFAULT.s3Put());
    assertThat(x86.name()).isEqualTo("custom");
    assertThatThrownBy(() -> PriceTable.fromEnv(Map.of(PriceTable.SETTING, "lambda_gbs=1")))
        .hasMessageContaining("SQUALL_PRICES").hasMessageContaining("'lambda_gbs=1'");
    assertThatThrownBy(() -> PriceTable.fromEnv(Map.of(PriceTable.SETTING, "s3_put=cheap")))
        .hasMessageContaining("s3_put must be a number, not 'cheap'");
    assertThatThrownBy(() -> PriceTable.fromEnv(Map.of(PriceTable.SETTING, "s3_put=-1")))
        .hasMessageContaining("not negative");
  }

  @Test
  void jobStoreAndS3CallsCountForTheJobTheyName() {
    JobMeters meters = new JobMeters();
    JobMeter meter = meters.open("3f1c");
    assertThat(meters.meterOf("jobs/3f1c/plan.pb")).isSameAs(meter);
    assertThat(meters.meterOf("jobs/other/plan.pb")).isNull();
    meters.open("3f1c");
    meters.close("3f1c");
    assertThat(meters.meterOf("3f1c")).isSameAs(meter);
    meters.close("3f1c");
    assertThat(meters.meterOf("3f1c")).isNull();
  }
}
