package dev.squall.planner.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.PlannedQuery;
import dev.squall.planner.testing.Planning;
import dev.squall.proto.v1.DataType.Kind;
import org.junit.jupiter.api.Test;

class ValuesLiteralsTest {
  @Test
  void exactAndApproximateNumbersMixInOneValuesColumn() {
    // Failed inside Calcite's predicate pull-up (BigDecimal compared with Double) before literals took their column's type.
    PlannedQuery planned = Planning.sf1("select * from (values (1.5), (1e3)) t(x)");
    assertThat(planned.outputSchema().getFields(0).getType().getKind()).isEqualTo(Kind.DOUBLE);
    assertThat(Planning.sf1("select x from (values (1.5), (1e3), (cast(null as double))) t(x) where x > 1")
        .outputSchema().getFields(0).getType().getKind()).isEqualTo(Kind.DOUBLE);
  }
}
