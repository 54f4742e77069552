package dev.squall.planner.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.planner.testing.Planning;
import dev.squall.proto.v1.DataType;
import org.junit.jupiter.api.Test;

class SquallTypeSystemTest {
  private static DataType outputType(String expression) {
    return Planning.sf1("select " + expression + " from lineitem").outputSchema().getFields(0).getType();
  }

  @Test
  void sumOfDecimalWidensToPrecision38() {
    assertThat(outputType("sum(l_quantity)")).isEqualTo(DataType.newBuilder()
        .setKind(DataType.Kind.DECIMAL).setPrecision(38).setScale(2).setNullable(true).build());
  }

  @Test
  void sumOfIntegersIsBigint() {
    assertThat(outputType("sum(l_linenumber)").getKind()).isEqualTo(DataType.Kind.BIGINT);
  }

  @Test
  void avgOfDecimalIsDouble() {
    assertThat(outputType("avg(l_quantity)").getKind()).isEqualTo(DataType.Kind.DOUBLE);
  }

  @Test
  void caseOverStringLiteralsOfDifferentLengthsIsVarchar() {
    assertThat(outputType("case when l_quantity > 1 then 'a' else 'bbb' end").getKind()).isEqualTo(DataType.Kind.VARCHAR);
  }
}
