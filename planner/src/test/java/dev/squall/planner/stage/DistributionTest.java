package dev.squall.planner.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class DistributionTest {
  private final JavaTypeFactoryImpl types = new JavaTypeFactoryImpl();
  private final RexBuilder rex = new RexBuilder(types);

  @Test
  void projectionFollowsKeyColumnsToTheirNewPositions() {
    Distribution d = Distribution.hash(List.of(List.of(0), List.of(3)));
    var bigint = types.createSqlType(SqlTypeName.BIGINT);
    List<RexNode> projects = List.of(rex.makeInputRef(bigint, 5), rex.makeInputRef(bigint, 3), rex.makeInputRef(bigint, 0));
    assertThat(d.throughProject(projects).keyLists()).containsExactly(List.of(2), List.of(1));
  }

  @Test
  void projectionThatDropsTheKeyLosesThePlacement() {
    Distribution d = Distribution.hashOn(List.of(1));
    var bigint = types.createSqlType(SqlTypeName.BIGINT);
    assertThat(d.throughProject(List.of(rex.makeInputRef(bigint, 0))).kind()).isEqualTo(Distribution.Kind.ANY);
  }

  @Test
  void groupsAreLocalWhenHashedOnASubsetOfTheGroupKeys() {
    Distribution d = Distribution.hashOn(List.of(4));
    assertThat(d.groupsAreLocal(List.of(1, 4, 6))).isTrue();
    assertThat(d.groupsAreLocal(List.of(1, 6))).isFalse();
    assertThat(d.groupsAreLocal(List.of())).isFalse();
    assertThat(Distribution.SINGLE.groupsAreLocal(List.of())).isTrue();
    assertThat(Distribution.ANY.groupsAreLocal(List.of(1))).isFalse();
    assertThat(d.throughAggregate(List.of(1, 4, 6)).keyLists()).containsExactly(List.of(1));
  }

  @Test
  void hashPositionsWithinJoinKeysFindsASubset() {
    Distribution d = Distribution.hashOn(List.of(2));
    assertThat(d.hashPositionsWithin(List.of(7, 2))).contains(List.of(1));
    assertThat(d.hashPositionsWithin(List.of(7))).isEmpty();
    assertThat(Distribution.hashOn(List.of(2)).shifted(10).keyLists()).containsExactly(List.of(12));
  }
}
