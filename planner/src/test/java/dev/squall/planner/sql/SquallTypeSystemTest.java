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

  private static DataType decimal(int precision, int scale, boolean nullable) {
    return DataType.newBuilder().setKind(DataType.Kind.DECIMAL).setPrecision(precision).setScale(scale).setNullable(nullable).build();
  }

  @Test
  void decimalDivisionFollowsTrino() {
    // decimal(min(38, p1 + s2 + max(0, s2 - s1)), max(s1, s2)); lineitem's columns are NOT NULL DECIMAL(15, 2).
    assertThat(outputType("l_extendedprice / l_quantity")).isEqualTo(decimal(17, 2, false));
    assertThat(outputType("l_extendedprice / 3")).isEqualTo(decimal(15, 2, false));
    assertThat(outputType("l_linenumber / l_discount")).isEqualTo(decimal(14, 2, false));
    assertThat(outputType("l_extendedprice / 0.001")).isEqualTo(decimal(19, 3, false));
    assertThat(outputType("sum(l_extendedprice) / sum(l_quantity)")).isEqualTo(decimal(38, 2, true));
    assertThat(outputType("l_linenumber / 2").getKind()).isEqualTo(DataType.Kind.INTEGER);
  }

  @Test
  void modOfADoubleIsDouble() {
    assertThat(outputType("mod(cast(l_quantity as double), 7)").getKind()).isEqualTo(DataType.Kind.DOUBLE);
    assertThat(outputType("mod(l_quantity, 7)").getKind()).isEqualTo(DataType.Kind.DECIMAL);
    assertThat(outputType("cast(l_quantity as double) % 7").getKind()).isEqualTo(DataType.Kind.DOUBLE);
    assertThat(outputType("l_quantity % 7").getKind()).isEqualTo(DataType.Kind.DECIMAL);
    assertThat(outputType("l_linenumber % 7").getKind()).isEqualTo(DataType.Kind.INTEGER);
    assertThat(outputType("mod(l_linenumber, 7)").getKind()).isEqualTo(DataType.Kind.INTEGER);
  }

  @Test
  void caseOverStringLiteralsOfDifferentLengthsIsVarchar() {
    assertThat(outputType("case when l_quantity > 1 then 'a' else 'bbb' end").getKind()).isEqualTo(DataType.Kind.VARCHAR);
  }
}
