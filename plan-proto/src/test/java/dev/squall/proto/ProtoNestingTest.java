package dev.squall.proto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.squall.proto.v1.Call;
import dev.squall.proto.v1.Expr;
import dev.squall.proto.v1.Function;
import org.junit.jupiter.api.Test;

class ProtoNestingTest {
  /** {@code 1 + 1 + ... + 1} with {@code terms} terms, as the planner emits it: a left-deep chain of binary calls. */
  private static Expr leftDeepSum(int terms) {
    Expr one = Expr.newBuilder().setLiteral(dev.squall.proto.v1.Literal.newBuilder().setLongValue(1)).build();
    Expr sum = one;
    for (int i = 1; i < terms; i++) {
      sum = Expr.newBuilder().setCall(Call.newBuilder().setFunction(Function.ADD).addArgs(sum).addArgs(one)).build();
    }
    return sum;
  }

  @Test
  void aFiftyTermSumThatProtobufsDefaultLimitRefusesIsParsed() throws Exception {
    Expr sum = leftDeepSum(60);
    assertThat(ProtoNesting.depth(sum)).isGreaterThan(100);
    assertThatThrownBy(() -> Expr.parseFrom(sum.toByteArray())).isInstanceOf(InvalidProtocolBufferException.class);
    assertThat(ProtoNesting.parse(Expr.parser(), sum.toByteArray())).isEqualTo(sum);
  }

  @Test
  void depthCountsEveryMessageLevel() {
    assertThat(ProtoNesting.depth(leftDeepSum(1))).isEqualTo(2); // Expr > Literal
    assertThat(ProtoNesting.depth(leftDeepSum(2))).isEqualTo(4); // Expr > Call > Expr > Literal
  }

  @Test
  void deeperThanTheLimitIsRefused() {
    Expr sum = leftDeepSum(ProtoNesting.MAX_DEPTH);
    assertThatThrownBy(() -> ProtoNesting.parse(Expr.parser(), sum.toByteArray()))
        .isInstanceOf(InvalidProtocolBufferException.class);
  }
}
