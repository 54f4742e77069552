package dev.squall.planner.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlMinMaxAggFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlOperandCountRanges;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.util.Optionality;

/**
 * The scalar functions Squall adds to Calcite's standard operators, named and typed as in Trino
 * (and so Athena): {@code LOG2}, {@code CONCAT}, {@code STRPOS}, {@code LPAD}, {@code REGEXP_LIKE},
 * {@code GREATEST}, {@code IF}, {@code TRY}, {@code DATE_TRUNC}, {@code DAY_OF_WEEK}, and the
 * aggregates {@code STDDEV}, {@code VARIANCE}, {@code BOOL_AND}, {@code COUNT_IF}, {@code ARBITRARY},
 * {@code APPROX_DISTINCT} (also as {@code APPROX_COUNT_DISTINCT}), {@code APPROX_PERCENTILE}, ... A name
 * defined here hides Calcite's operator of the same name (Calcite's {@code REPLACE} takes exactly
 * three arguments, Trino's two or three; Calcite's {@code YEAR} is rewritten to EXTRACT, whose
 * week-day numbering differs from Trino's). Every other name resolves in
 * {@link SqlStdOperatorTable}.
 *
 * <p>Each function here maps by name to one plan-proto function in {@code RexTranslator}; their
 * semantics are listed in docs/sql.md.
 */
public final class TrinoFunctions implements SqlOperatorTable {
  private static final org.apache.calcite.sql.type.FamilyOperandTypeChecker CHARS =
      OperandTypes.family(SqlTypeFamily.CHARACTER);
  private static final SqlOperandTypeChecker CHARS2 =
      OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER);
  private static final SqlOperandTypeChecker DATETIME = OperandTypes.DATETIME;
  private static final SqlReturnTypeInference VARCHAR = ReturnTypes.VARCHAR_NULLABLE;
  private static final SqlReturnTypeInference VARCHAR_OR_NULL = ReturnTypes.VARCHAR_FORCE_NULLABLE;
  private static final SqlReturnTypeInference TIMESTAMP_3 =
      ReturnTypes.explicit(SqlTypeName.TIMESTAMP, 3).andThen(SqlTypeTransforms.TO_NULLABLE);

  /** Declared after the type checkers above, which the constructor uses. */
  public static final TrinoFunctions INSTANCE = new TrinoFunctions();

  private final Map<String, SqlFunction> functions = new LinkedHashMap<>();

  private TrinoFunctions() {
    // Math (ROUND, TRUNCATE, CEIL, FLOOR, POWER, SQRT, CBRT, EXP, LN, LOG10, SIGN, PI are Calcite's).
    add("LOG2", ReturnTypes.DOUBLE_NULLABLE, OperandTypes.NUMERIC);
    // MOD of a REAL or DOUBLE is DOUBLE (Calcite's MOD takes exact numbers only and casts a DOUBLE to DECIMAL).
    functions.put("MOD", new SqlFunction("MOD", SqlKind.MOD, TrinoFunctions::modType, null,
        OperandTypes.NUMERIC_NUMERIC, SqlFunctionCategory.NUMERIC));
    add("NAN", ReturnTypes.DOUBLE, OperandTypes.NILADIC);
    add("INFINITY", ReturnTypes.DOUBLE, OperandTypes.NILADIC);
    // Strings.
    add("CONCAT", VARCHAR, OperandTypes.repeat(SqlOperandCountRanges.from(1), CHARS));
    add("REPLACE", VARCHAR, optional(3, SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER));
    add("STRPOS", ReturnTypes.BIGINT_NULLABLE, CHARS2);
    add("REVERSE", VARCHAR, CHARS);
    add("CHR", VARCHAR, OperandTypes.family(SqlTypeFamily.INTEGER));
    add("CODEPOINT", ReturnTypes.INTEGER_NULLABLE, CHARS);
    // Planned as SUBSTRING; errors say substr, as written.
    functions.put("SUBSTR", new FunctionAlias("SUBSTR", SqlStdOperatorTable.SUBSTRING));
    add("LPAD", VARCHAR, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER, SqlTypeFamily.CHARACTER));
    add("RPAD", VARCHAR, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER, SqlTypeFamily.CHARACTER));
    add("LTRIM", VARCHAR, CHARS);
    add("RTRIM", VARCHAR, CHARS);
    add("SPLIT_PART", VARCHAR_OR_NULL,
        OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER));
    add("STARTS_WITH", ReturnTypes.BOOLEAN_NULLABLE, CHARS2);
    add("LENGTH", ReturnTypes.BIGINT_NULLABLE, CHARS);
    add("REGEXP_LIKE", ReturnTypes.BOOLEAN_NULLABLE, CHARS2);
    add("REGEXP_EXTRACT", VARCHAR_OR_NULL, optional(3, SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER));
    add("REGEXP_REPLACE", VARCHAR, optional(3, SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER));
    // Conditional.
    add("GREATEST", ReturnTypes.LEAST_RESTRICTIVE, OperandTypes.SAME_VARIADIC);
    add("LEAST", ReturnTypes.LEAST_RESTRICTIVE, OperandTypes.SAME_VARIADIC);
    add("IF", TrinoFunctions::ifType, OperandTypes.or(
        OperandTypes.family(SqlTypeFamily.BOOLEAN, SqlTypeFamily.ANY),
        OperandTypes.family(SqlTypeFamily.BOOLEAN, SqlTypeFamily.ANY, SqlTypeFamily.ANY)));
    add("TRY", ReturnTypes.ARG0_FORCE_NULLABLE, OperandTypes.ANY);
    // Date and time.
    for (String part : List.of("YEAR", "QUARTER", "MONTH", "WEEK", "WEEK_OF_YEAR", "DAY", "DAY_OF_MONTH",
        "DAY_OF_WEEK", "DOW", "DAY_OF_YEAR", "DOY", "HOUR", "MINUTE", "SECOND")) {
      add(part, ReturnTypes.BIGINT_NULLABLE, DATETIME);
    }
    add("DATE_TRUNC", ReturnTypes.ARG1_NULLABLE, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.DATETIME));
    add("DATE_ADD", ReturnTypes.ARG2_NULLABLE,
        OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER, SqlTypeFamily.DATETIME));
    add("DATE_DIFF", ReturnTypes.BIGINT_NULLABLE,
        OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.DATETIME, SqlTypeFamily.DATETIME));
    add("NOW", ReturnTypes.explicit(SqlTypeName.TIMESTAMP, 3), OperandTypes.NILADIC);
    add("FROM_UNIXTIME", TIMESTAMP_3, OperandTypes.NUMERIC);
    add("TO_UNIXTIME", ReturnTypes.DOUBLE_NULLABLE, DATETIME);
    add("DATE_FORMAT", VARCHAR, OperandTypes.family(SqlTypeFamily.DATETIME, SqlTypeFamily.CHARACTER));
    add("DATE_PARSE", TIMESTAMP_3, CHARS2);
    addAggregates();
  }

  /** An aggregate function with Trino's name and result type. */
  private static final class Aggregate extends SqlAggFunction {
    Aggregate(String name, SqlKind kind, SqlReturnTypeInference returns, SqlOperandTypeChecker operands) {
      super(name, null, kind, returns, null, operands, SqlFunctionCategory.USER_DEFINED_FUNCTION, false, false,
          Optionality.FORBIDDEN);
    }
  }

  private void addAggregates() {
    SqlReturnTypeInference doubleOrNull = ReturnTypes.DOUBLE.andThen(SqlTypeTransforms.FORCE_NULLABLE);
    // Statistics in DOUBLE as in Trino (Calcite's keep DECIMAL); the optimizer reduces them to sums and counts.
    for (String name : List.of("STDDEV", "STDDEV_SAMP")) {
      functions.put(name, new Aggregate(name, SqlKind.STDDEV_SAMP, doubleOrNull, OperandTypes.NUMERIC));
    }
    functions.put("STDDEV_POP", new Aggregate("STDDEV_POP", SqlKind.STDDEV_POP, doubleOrNull, OperandTypes.NUMERIC));
    for (String name : List.of("VARIANCE", "VAR_SAMP")) {
      functions.put(name, new Aggregate(name, SqlKind.VAR_SAMP, doubleOrNull, OperandTypes.NUMERIC));
    }
    functions.put("VAR_POP", new Aggregate("VAR_POP", SqlKind.VAR_POP, doubleOrNull, OperandTypes.NUMERIC));
    // BOOL_AND and EVERY are MIN over booleans (FALSE < TRUE), BOOL_OR is MAX.
    functions.put("BOOL_AND", new SqlMinMaxAggFunction("BOOL_AND", SqlKind.MIN, OperandTypes.BOOLEAN));
    functions.put("EVERY", new SqlMinMaxAggFunction("EVERY", SqlKind.MIN, OperandTypes.BOOLEAN));
    functions.put("BOOL_OR", new SqlMinMaxAggFunction("BOOL_OR", SqlKind.MAX, OperandTypes.BOOLEAN));
    functions.put("ARBITRARY", SqlStdOperatorTable.ANY_VALUE);
    functions.put("NTILE", new Ntile());
    // STRING_AGG(x, separator [ORDER BY ...]), as in DuckDB and PostgreSQL; LISTAGG is Calcite's.
    functions.put("STRING_AGG", SqlLibraryOperators.STRING_AGG);
    // PERCENTILE_CONT / PERCENTILE_DISC (p) WITHIN GROUP (ORDER BY x) over a numeric x: Calcite's own
    // (percentile functions) derive the type from the ORDER BY column, which its rule-time
    // re-inference of aggregate types cannot see.
    functions.put("PERCENTILE_CONT", percentile("PERCENTILE_CONT", ReturnTypes.DOUBLE,
        OperandTypes.UNIT_INTERVAL_NUMERIC_LITERAL));
    // PERCENTILE_DISC(p, x) answers a value of x: x is added from the ORDER BY (PercentileOperators).
    functions.put("PERCENTILE_DISC", percentile("PERCENTILE_DISC", ReturnTypes.ARG1,
        OperandTypes.sequence("PERCENTILE_DISC(<FRACTION>, <NUMERIC>)", OperandTypes.UNIT_INTERVAL_NUMERIC_LITERAL,
            OperandTypes.NUMERIC)));
    functions.put("COUNT_IF", new Aggregate("COUNT_IF", SqlKind.OTHER_FUNCTION, ReturnTypes.BIGINT, OperandTypes.BOOLEAN));
    functions.put("APPROX_COUNT_DISTINCT",
        new Aggregate("APPROX_COUNT_DISTINCT", SqlKind.OTHER_FUNCTION, ReturnTypes.BIGINT, OperandTypes.ANY));
    // Trino's name for it (APPROX_COUNT_DISTINCT is Spark's and Calcite's): one operator, one plan.
    functions.put("APPROX_DISTINCT", functions.get("APPROX_COUNT_DISTINCT"));
    for (String name : List.of("MAX_BY", "MIN_BY")) {
      functions.put(name, new Aggregate(name, SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0_FORCE_NULLABLE,
          OperandTypes.family(SqlTypeFamily.ANY, SqlTypeFamily.ANY)));
    }
    functions.put("APPROX_PERCENTILE", new Aggregate("APPROX_PERCENTILE", SqlKind.OTHER_FUNCTION,
        TrinoFunctions::percentileType, OperandTypes.family(SqlTypeFamily.NUMERIC, SqlTypeFamily.NUMERIC)));
  }

  /**
   * NTILE(n) whose bucket count is any integer expression, read on each row as in Trino (Calcite's
   * takes a positive literal only); BIGINT, NULL where n is NULL.
   */
  private static final class Ntile extends org.apache.calcite.sql.fun.SqlNtileAggFunction {
    @Override
    public boolean checkOperandTypes(org.apache.calcite.sql.SqlCallBinding binding, boolean throwOnFailure) {
      return OperandTypes.family(SqlTypeFamily.INTEGER).checkOperandTypes(binding, throwOnFailure);
    }

    @Override
    public RelDataType inferReturnType(org.apache.calcite.sql.SqlOperatorBinding binding) {
      RelDataTypeFactory factory = binding.getTypeFactory();
      return factory.createTypeWithNullability(factory.createSqlType(SqlTypeName.BIGINT),
          binding.getOperandType(0).isNullable());
    }
  }

  /** Of kind OTHER_FUNCTION: Calcite gives its percentile kinds a type binding that needs its own operators. */
  private static SqlAggFunction percentile(String name, SqlReturnTypeInference returns, SqlOperandTypeChecker operands) {
    return org.apache.calcite.sql.fun.SqlBasicAggFunction.create(name, SqlKind.OTHER_FUNCTION,
            returns.andThen(SqlTypeTransforms.FORCE_NULLABLE), operands)
        .withFunctionType(SqlFunctionCategory.SYSTEM)
        .withGroupOrder(Optionality.MANDATORY);
  }

  /** APPROX_PERCENTILE's result: a value of the input's type (DOUBLE for a DECIMAL input), NULL over no rows. */
  private static RelDataType percentileType(org.apache.calcite.sql.SqlOperatorBinding binding) {
    RelDataTypeFactory factory = binding.getTypeFactory();
    RelDataType in = binding.getOperandType(0);
    RelDataType type = in.getSqlTypeName() == SqlTypeName.DECIMAL ? factory.createSqlType(SqlTypeName.DOUBLE) : in;
    return factory.createTypeWithNullability(type, true);
  }

  /** Upper-case names of the functions defined here. */
  public Set<String> names() {
    return functions.keySet();
  }

  /** The function of this name (upper case) defined here. */
  SqlFunction function(String name) {
    return functions.get(name.toUpperCase(Locale.ROOT));
  }

  /** Whether {@code operator} is one of the functions defined here. */
  public boolean defines(SqlOperator operator) {
    return functions.get(operator.getName().toUpperCase(Locale.ROOT)) == operator;
  }

  private void add(String name, SqlReturnTypeInference returns, SqlOperandTypeChecker operands) {
    functions.put(name, new SqlFunction(name, SqlKind.OTHER_FUNCTION, returns, null, operands,
        SqlFunctionCategory.USER_DEFINED_FUNCTION));
  }

  /** Families for {@code count} operands of which all after the second are optional. */
  private static SqlOperandTypeChecker optional(int count, SqlTypeFamily... families) {
    return OperandTypes.family(List.of(families).subList(0, count), i -> i >= 2);
  }

  /** MOD(a, b): Calcite's decimal rule for exact operands, DOUBLE when either is REAL or DOUBLE. */
  private static RelDataType modType(org.apache.calcite.sql.SqlOperatorBinding binding) {
    RelDataType a = binding.getOperandType(0);
    RelDataType b = binding.getOperandType(1);
    if (SqlTypeUtil.isApproximateNumeric(a) || SqlTypeUtil.isApproximateNumeric(b)) {
      return binding.getTypeFactory().createTypeWithNullability(
          binding.getTypeFactory().createSqlType(SqlTypeName.DOUBLE), a.isNullable() || b.isNullable());
    }
    return ReturnTypes.NULLABLE_MOD.inferReturnType(binding);
  }

  /** IF(condition, a[, b]): the common type of a and b; NULL (so nullable) without b. */
  private static RelDataType ifType(org.apache.calcite.sql.SqlOperatorBinding binding) {
    RelDataTypeFactory factory = binding.getTypeFactory();
    List<RelDataType> branches = new ArrayList<>(binding.collectOperandTypes().subList(1, binding.getOperandCount()));
    RelDataType common = factory.leastRestrictive(branches);
    if (common == null) {
      throw binding.newError(org.apache.calcite.util.Static.RESOURCE.incompatibleTypes());
    }
    if (common.getSqlTypeName() == SqlTypeName.CHAR) {
      // As in Trino, string branches are VARCHAR: 'odd' is not padded to the length of 'even'.
      common = factory.createTypeWithNullability(factory.createSqlType(SqlTypeName.VARCHAR), common.isNullable());
    }
    return binding.getOperandCount() == 2 ? factory.createTypeWithNullability(common, true) : common;
  }

  @Override
  public void lookupOperatorOverloads(SqlIdentifier opName, SqlFunctionCategory category, SqlSyntax syntax,
      List<SqlOperator> operatorList, SqlNameMatcher nameMatcher) {
    if (opName.isSimple() && (syntax == SqlSyntax.FUNCTION || syntax == SqlSyntax.FUNCTION_ID)) {
      SqlFunction own = functions.get(opName.getSimple().toUpperCase(Locale.ROOT));
      if (own != null) {
        operatorList.add(own);
        return;
      }
    }
    if (opName.isSimple() && opName.getSimple().equalsIgnoreCase("TRY_CAST")) {
      operatorList.add(SqlLibraryOperators.TRY_CAST);
      return;
    }
    SqlStdOperatorTable.instance().lookupOperatorOverloads(opName, category, syntax, operatorList, nameMatcher);
  }

  @Override
  public List<SqlOperator> getOperatorList() {
    List<SqlOperator> all = new ArrayList<>(functions.values());
    all.add(SqlLibraryOperators.TRY_CAST);
    for (SqlOperator op : SqlStdOperatorTable.instance().getOperatorList()) {
      if (!functions.containsKey(op.getName().toUpperCase(Locale.ROOT))) {
        all.add(op);
      }
    }
    return all;
  }
}
