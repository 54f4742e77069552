package dev.squall.planner.translate;

import dev.squall.proto.v1.SortKey;
import java.util.List;
import org.apache.calcite.rel.RelFieldCollation;

/** Plan-proto sort keys of Calcite field collations (ORDER BY of a query or of a window). */
public final class SortKeys {
  private SortKeys() {}

  /**
   * One key per collation, in order. A collation without a NULL direction takes its direction's
   * default; the validator's default null collation (NULLs last, as in Trino) has set it already.
   */
  public static List<SortKey> of(List<RelFieldCollation> collations) {
    return collations.stream().map(c -> {
      RelFieldCollation.NullDirection nulls = c.nullDirection == RelFieldCollation.NullDirection.UNSPECIFIED
          ? c.getDirection().defaultNullDirection() : c.nullDirection;
      return SortKey.newBuilder().setColumn(c.getFieldIndex()).setDescending(c.getDirection().isDescending())
          .setNullsFirst(nulls == RelFieldCollation.NullDirection.FIRST).build();
    }).toList();
  }
}
