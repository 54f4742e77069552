package dev.squall.planner.optimize;

import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.sql2rel.RelFieldTrimmer;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.mapping.Mappings;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's {@link RelFieldTrimmer} (unused columns removed so that scans read only what is
 * used), safe for a projection of no columns.
 *
 * <p>Splitting a projection with a window call that reads no input column ({@code count(*) over
 * ()}, {@code ntile(2) over ()}) leaves a projection of zero columns below the window. Calcite's
 * trimmer would replace it by a one-column "dummy" projection, which its mapping cannot express
 * for zero columns (an assertion in {@code Mappings.create}); here it stays a zero-column
 * projection over the trimmed input, which still carries the input's row count.
 */
final class ColumnTrimmer extends RelFieldTrimmer {
  ColumnTrimmer(RelBuilder builder) {
    super(null, builder);
  }

  @Override
  protected TrimResult dummyProject(int fieldCount, RelNode input, @Nullable RelNode originalRelNode) {
    if (fieldCount > 0) {
      return super.dummyProject(fieldCount, input, originalRelNode);
    }
    RelNode empty = LogicalProject.create(input, List.of(), List.of(), List.<String>of(), Set.of());
    return result(empty, Mappings.createIdentity(0));
  }
}
