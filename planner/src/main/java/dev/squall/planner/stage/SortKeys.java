package dev.squall.planner.stage;

import dev.squall.proto.v1.SortKey;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;

/** Calcite collations as plan-proto sort keys, with the NULL placement always stated. */
final class SortKeys {
  private SortKeys() {}

  /**
   * One key per field collation, over the same column indexes. An unspecified NULL placement takes
   * Calcite's default for the direction (the SQL front end has already stated Squall's default).
   */
  static List<SortKey> of(RelCollation collation) {
    List<SortKey> keys = new ArrayList<>();
    for (RelFieldCollation c : collation.getFieldCollations()) {
      boolean descending = c.getDirection().isDescending();
      RelFieldCollation.NullDirection nulls = c.nullDirection == RelFieldCollation.NullDirection.UNSPECIFIED
          ? c.getDirection().defaultNullDirection() : c.nullDirection;
      keys.add(SortKey.newBuilder().setColumn(c.getFieldIndex()).setDescending(descending)
          .setNullsFirst(nulls == RelFieldCollation.NullDirection.FIRST).build());
    }
    return keys;
  }
}
