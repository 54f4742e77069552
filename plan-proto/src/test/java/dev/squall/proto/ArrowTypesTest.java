package dev.squall.proto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.proto.v1.DataType;
import dev.squall.proto.v1.DataType.Kind;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

class ArrowTypesTest {
  @Test
  void everyValueKindRoundTripsThroughItsArrowType() {
    for (Kind kind : Kind.values()) {
      if (kind == Kind.KIND_UNSPECIFIED || kind == Kind.UNRECOGNIZED
          || kind == Kind.INTERVAL_DAY_TIME || kind == Kind.INTERVAL_YEAR_MONTH) {
        continue;
      }
      DataType t = DataType.newBuilder().setKind(kind).setNullable(true)
          .setPrecision(kind == Kind.DECIMAL ? 38 : 0).setScale(kind == Kind.DECIMAL ? 4 : 0).build();
      assertThat(ArrowTypes.dataType(ArrowTypes.arrowType(t))).as(kind.name()).isEqualTo(t);
    }
  }

  @Test
  void intervalsTravelAsIntegersAndUnknownTypesAreRefusedByName() {
    assertThat(ArrowTypes.arrowType(DataType.newBuilder().setKind(Kind.INTERVAL_DAY_TIME).build()))
        .isEqualTo(new ArrowType.Int(64, true));
    assertThatThrownBy(() -> ArrowTypes.arrowType(DataType.getDefaultInstance()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("KIND_UNSPECIFIED");
    assertThatThrownBy(() -> ArrowTypes.dataType(new ArrowType.Utf8View()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unsupported Arrow type");
  }
}
