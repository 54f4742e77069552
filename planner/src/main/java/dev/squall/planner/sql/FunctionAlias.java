package dev.squall.planner.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperandCountRange;
import org.apache.calcite.sql.SqlOperatorBinding;

/**
 * Another name for one of Calcite's functions ({@code SUBSTR} for {@code SUBSTRING}): it checks and
 * types its arguments as the target does, and {@link Convertlets} plans it as the target, but
 * validation errors name the function as the user wrote it ({@code Unexpected parameters (INTEGER,
 * INTEGER) for function substr}), as Trino's do.
 */
final class FunctionAlias extends SqlFunction {
  private final SqlFunction target;

  FunctionAlias(String name, SqlFunction target) {
    super(name, SqlKind.OTHER_FUNCTION, null, null, null, target.getFunctionType());
    this.target = target;
  }

  /** The function this name stands for, which the plan calls. */
  SqlFunction target() {
    return target;
  }

  @Override
  public boolean checkOperandTypes(SqlCallBinding binding, boolean throwOnFailure) {
    return target.checkOperandTypes(binding, throwOnFailure);
  }

  @Override
  public SqlOperandCountRange getOperandCountRange() {
    return target.getOperandCountRange();
  }

  @Override
  public RelDataType inferReturnType(SqlOperatorBinding binding) {
    return target.inferReturnType(binding);
  }

  @Override
  public String getAllowedSignatures(String name) {
    return target.getAllowedSignatures(name);
  }

  @Override
  public String getSignatureTemplate(int operandsCount) {
    return target.getSignatureTemplate(operandsCount);
  }
}
