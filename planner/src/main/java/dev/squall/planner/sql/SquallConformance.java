package dev.squall.planner.sql;

import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlDelegatingConformance;

/**
 * Calcite's default SQL conformance with what Trino and Athena users write every day: the
 * {@code %} remainder operator, GROUP BY by select-list ordinal ({@code GROUP BY 1}) and by
 * select-list alias, and HAVING by alias. Used by both the parser and the validator.
 */
public final class SquallConformance extends SqlDelegatingConformance {
  public static final SquallConformance INSTANCE = new SquallConformance();

  private SquallConformance() {
    super(SqlConformanceEnum.DEFAULT);
  }

  @Override
  public boolean isPercentRemainderAllowed() {
    return true;
  }

  @Override
  public boolean isGroupByOrdinal() {
    return true;
  }

  @Override
  public boolean isGroupByAlias() {
    return true;
  }

  @Override
  public boolean isHavingAlias() {
    return true;
  }
}
