package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.ShuffleRead;
import dev.squall.proto.v1.SortKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class LimitPushDownTest {
  private static final Operator INPUT = Operator.newBuilder().setShuffleRead(ShuffleRead.newBuilder().setInputIndex(0)).build();
  private static final List<SortKey> BY_FIRST_DESC = List.of(SortKey.newBuilder().setColumn(0).setDescending(true).setNullsFirst(true).build());

  @Test
  void orderedLimitKeepsOffsetPlusLimitRowsPerProducerTask() {
    LimitPushDown p = new LimitPushDown(BY_FIRST_DESC, 5, 10);
    Operator local = p.local(INPUT);
    assertThat(local.getTopN().getLimit()).isEqualTo(15);
    assertThat(local.getTopN().getOffset()).isZero();
    assertThat(local.getTopN().getKeysList()).isEqualTo(BY_FIRST_DESC);
    Operator exact = p.exact(INPUT);
    assertThat(exact.getTopN().getLimit()).isEqualTo(10);
    assertThat(exact.getTopN().getOffset()).isEqualTo(5);
  }

  @Test
  void unorderedLimitPushesAPlainLimit() {
    LimitPushDown p = new LimitPushDown(List.of(), 0, 7);
    assertThat(p.local(INPUT).getLimit().getLimit()).isEqualTo(7);
    assertThat(p.exact(INPUT).getLimit().getLimit()).isEqualTo(7);
  }

  @Test
  void sortWithoutLimitPushesNothingAndSortsOnceInTheConsumer() {
    LimitPushDown p = new LimitPushDown(BY_FIRST_DESC, 3, -1);
    assertThat(p.local(INPUT)).isSameAs(INPUT);
    assertThat(p.localRowBound()).isEqualTo(-1);
    Operator exact = p.exact(INPUT);
    assertThat(exact.getLimit().getOffset()).isEqualTo(3);
    assertThat(exact.getLimit().getLimit()).isEqualTo(-1);
    assertThat(exact.getLimit().getInput().getSort().getKeysList()).isEqualTo(BY_FIRST_DESC);
  }

  @Test
  void emptySortIsANoOp() {
    assertThat(new LimitPushDown(List.of(), 0, -1).isNoOp()).isTrue();
  }
}
