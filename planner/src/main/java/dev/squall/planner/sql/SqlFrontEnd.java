package dev.squall.planner.sql;

import dev.squall.planner.PlannerSettings;
import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.DerivedTables;
import dev.squall.planner.catalog.IcebergCatalogSchema;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.meta.CatalogListing;
import dev.squall.planner.meta.InformationSchema;
import dev.squall.planner.optimize.SquallMetadata;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.config.CalciteConnectionConfigImpl;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.plan.ConventionTraitDef;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.volcano.VolcanoPlanner;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorUtil;
import org.apache.calcite.sql.validate.implicit.TypeCoercion;
import org.apache.calcite.sql.validate.implicit.TypeCoercionImpl;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.tools.RelBuilder;
import org.apache.iceberg.catalog.Catalog;

/**
 * Parses, checks and validates one SQL query against an Iceberg catalog and converts it to a
 * Calcite logical plan (sub-queries still as {@code RexSubQuery}; the optimizer removes them).
 *
 * <p>Identifiers are case-insensitive, unquoted ones keep their case, and double quotes quote
 * (so {@code "value"} is a column named value). Errors are {@link PlanningException}s with the
 * line and column Calcite reports.
 */
public final class SqlFrontEnd {
  private final CalciteCatalogReader catalogReader;
  private final RelOptCluster cluster;
  private final SqlValidator validator;
  private final CatalogListing listing;

  public SqlFrontEnd(Catalog catalog, PlannerSettings settings) {
    this(catalog, settings, DerivedTables.NONE);
  }

  /**
   * @param derived resolves metadata table names ({@code "t$snapshots"}) and the names time travel
   *     clauses were rewritten to
   */
  public SqlFrontEnd(Catalog catalog, PlannerSettings settings, DerivedTables derived) {
    JavaTypeFactoryImpl typeFactory = new JavaTypeFactoryImpl(SquallTypeSystem.INSTANCE);
    CalciteSchema root = CalciteSchema.createRootSchema(false, false);
    IcebergCatalogSchema catalogSchema = new IcebergCatalogSchema(
        catalog, settings.defaultSchema().isEmpty() ? List.of() : List.of(settings.defaultSchema()), derived);
    for (String namespace : catalogSchema.getSubSchemaNames()) {
      root.add(namespace, catalogSchema.getSubSchema(namespace));
    }
    listing = new CatalogListing(root.plus());
    root.add(InformationSchema.NAME, new InformationSchema(listing));
    Properties properties = new Properties();
    properties.setProperty(CalciteConnectionProperty.CASE_SENSITIVE.camelName(), "false");
    CalciteConnectionConfig config = new CalciteConnectionConfigImpl(properties);
    catalogReader = new CalciteCatalogReader(root, settings.defaultSchemaPath(), typeFactory, config);
    validator = SqlValidatorUtil.newValidator(TrinoFunctions.INSTANCE, catalogReader, typeFactory,
        SqlValidator.Config.DEFAULT
            .withIdentifierExpansion(true)
            // Trino's (and DuckDB's) default: NULLs sort last in both directions.
            .withDefaultNullCollation(org.apache.calcite.config.NullCollation.LAST)
            .withTypeCoercionFactory(SqlFrontEnd::coercion)
            .withConformance(SquallConformance.INSTANCE));
    VolcanoPlanner planner = new VolcanoPlanner();
    planner.addRelTraitDef(ConventionTraitDef.INSTANCE);
    // ReduceExpressionsRule folds constants only when the planner has an executor.
    planner.setExecutor(new dev.squall.planner.optimize.ExactFoldingExecutor(RexUtil.EXECUTOR));
    cluster = RelOptCluster.create(planner, new RexBuilder(typeFactory));
    SquallMetadata.install(cluster);
  }

  /**
   * Calcite's implicit type coercion, except where Trino refuses the types at analysis: into the
   * arguments of aggregate functions ({@code sum(varchar_column)}), between strings and numbers in
   * comparisons and IN lists ({@code n_name = 1}), and into arithmetic and function arguments
   * ({@link StringNumberCasts}). Those are refused at validation with
   * their position instead of casting every string to a number in the tasks.
   */
  private static TypeCoercion coercion(RelDataTypeFactory typeFactory, SqlValidator validator) {
    return new TypeCoercionImpl(typeFactory, validator) {
      @Override
      public boolean builtinFunctionCoercion(SqlCallBinding binding, List<RelDataType> operandTypes,
          List<SqlTypeFamily> expectedFamilies) {
        if (binding.getOperator() instanceof SqlAggFunction) {
          return false;
        }
        StringNumberCasts.checkArguments(binding.getCall(), operandTypes, expectedFamilies);
        return super.builtinFunctionCoercion(binding, operandTypes, expectedFamilies);
      }

      @Override
      public boolean binaryArithmeticCoercion(SqlCallBinding binding) {
        StringNumberCasts.checkArithmetic(binding.getCall(), binding.collectOperandTypes());
        return super.binaryArithmeticCoercion(binding);
      }

      // Calcite's own operand check lets strings meet numbers, so refusing to coerce is not enough.
      @Override
      public boolean binaryComparisonCoercion(SqlCallBinding binding) {
        refuseStringsWithNumbers(binding);
        return super.binaryComparisonCoercion(binding);
      }

      @Override
      public boolean inOperationCoercion(SqlCallBinding binding) {
        refuseStringsWithNumbers(binding);
        return super.inOperationCoercion(binding);
      }
    };
  }

  /**
   * Refuses a call that compares a character operand with a numeric one (either order), with the
   * call's position (its first operand's, where the call has none, as IN) and the operand types.
   */
  private static void refuseStringsWithNumbers(SqlCallBinding binding) {
    RelDataType character = null;
    RelDataType numeric = null;
    for (int i = 0; i < binding.getOperandCount(); i++) {
      RelDataType type = binding.getOperandType(i);
      if (type.isStruct() && type.getFieldCount() == 1) {
        type = type.getFieldList().get(0).getType(); // a one-column sub-query of IN
      }
      character = SqlTypeUtil.isCharacter(type) ? type : character;
      numeric = SqlTypeUtil.isNumeric(type) ? type : numeric;
    }
    if (character == null || numeric == null) {
      return;
    }
    SqlParserPos pos = binding.getCall().getParserPosition();
    if (pos.getLineNum() <= 0) {
      pos = binding.operand(0).getParserPosition();
    }
    String message = "Cannot apply " + binding.getOperator().getName() + " to " + SqlTypeNames.of(binding.getOperandType(0))
        + " and " + SqlTypeNames.of(binding.getOperandType(1)) + ": strings and numbers are not converted implicitly (as in"
        + " Trino); CAST one side";
    throw new CalciteContextException(message, new org.apache.calcite.sql.validate.SqlValidatorException(message, null),
        pos.getLineNum(), pos.getColumnNum(), pos.getEndLineNum(), pos.getEndColumnNum());
  }


  /** The parser settings shared by every Squall statement. */
  public static SqlParser.Config parserConfig() {
    return SqlParser.config()
        .withConformance(SquallConformance.INSTANCE)
        .withQuoting(Quoting.DOUBLE_QUOTE)
        .withUnquotedCasing(Casing.TO_LOWER)
        .withQuotedCasing(Casing.UNCHANGED)
        .withCaseSensitive(false);
  }

  /** The schemas and tables this front end resolves names against. */
  public CatalogListing listing() {
    return listing;
  }

  /** The cluster (type factory, rex builder, metadata) the converted plan lives in. */
  public RelOptCluster cluster() {
    return cluster;
  }

  /** A RelBuilder over this front end's cluster and catalog. */
  public RelBuilder relBuilder() {
    return RelFactories.LOGICAL_BUILDER.create(cluster, catalogReader);
  }

  /**
   * Parses, checks, validates and converts a query.
   *
   * @throws PlanningException SYNTAX_ERROR, UNSUPPORTED, UNKNOWN_TABLE, UNKNOWN_COLUMN or
   *     VALIDATION_ERROR with the position of the offending text
   */
  public RelRoot toRel(String sql) {
    return toRel(parse(sql));
  }

  /**
   * Refuses text that holds no statement: only white space, comments and semicolons.
   *
   * @throws PlanningException SYNTAX_ERROR at line 1, column 1
   */
  public static void requireStatement(String sql) {
    if (sql.replaceAll("(?s)--[^\n]*|/\\*.*?\\*/|;", "").isBlank()) {
      throw new PlanningException(Code.SYNTAX_ERROR, "Syntax error: the statement is empty; expected a query such as"
          + " SELECT", 1, 1);
    }
  }

  /**
   * Parses one statement (a query, or an INSERT whose parts the caller plans).
   *
   * @throws PlanningException SYNTAX_ERROR with the position Calcite reports
   */
  public static SqlNode parse(String sql) {
    requireStatement(sql);
    try {
      return SqlParser.create(sql, parserConfig()).parseQuery();
    } catch (SqlParseException e) {
      SqlParserPos pos = e.getPos();
      String message = syntaxMessage(e);
      if (message.isEmpty() || message.startsWith("Non-query expression")) {
        // Calcite read an expression where a statement must start (e.g. "selec *").
        String first = sql.strip().split("[\\s(]+", 2)[0];
        if (first.equalsIgnoreCase("use")) {
          // Trino's USE sets a session's schema; a Squall query carries its own.
          throw new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: USE is not supported by Squall, which keeps no"
              + " session; give each query its schema with the default_schema query property (squall query -P"
              + " default_schema=tpch, or \"properties\": {\"default_schema\": \"tpch\"} over HTTP) or qualify table"
              + " names (tpch.nation)", pos == null || pos.getLineNum() == 0 ? 1 : pos.getLineNum(),
              pos == null || pos.getColumnNum() == 0 ? 1 : pos.getColumnNum());
        }
        message = "'" + first + "' does not start a statement; expected SELECT, WITH, VALUES, INSERT, DELETE, UPDATE,"
            + " MERGE, CREATE, ALTER, DROP, SHOW, DESCRIBE or EXPLAIN";
        if (first.equalsIgnoreCase("vacuum") || first.equalsIgnoreCase("optimize")) {
          // Athena's table upkeep statements; Squall has Trino's procedures instead.
          message += " (table upkeep is ALTER TABLE t EXECUTE optimize, expire_snapshots or remove_orphan_files)";
        }
      }
      throw new PlanningException(Code.SYNTAX_ERROR, "Syntax error: " + message,
          pos == null || pos.getLineNum() == 0 ? 1 : pos.getLineNum(), pos == null || pos.getColumnNum() == 0 ? 1 : pos.getColumnNum(), e);
    }
  }

  /**
   * The first line of Calcite's syntax error without the position it repeats ({@code Encountered
   * "x" at line 1, column 37.}): the error carries the position itself, shown once as line:column.
   */
  static String syntaxMessage(SqlParseException e) {
    return e.getMessage() == null ? ""
        : e.getMessage().split("\n")[0].replaceFirst(" at line \\d+, column \\d+\\.?$", "");
  }

  /**
   * Checks, validates and converts a parsed query (a SELECT, set operation, VALUES, ...). After
   * this call a SELECT's select list holds one item per output column (stars expanded).
   *
   * @throws PlanningException UNSUPPORTED, UNKNOWN_TABLE, UNKNOWN_COLUMN or VALIDATION_ERROR with
   *     the position of the offending text
   */
  public RelRoot toRel(SqlNode parsed) {
    UnsupportedSqlCheck.check(parsed);
    WindowArguments.check(parsed);
    GroupingSetLimit.check(parsed);
    PercentileOperators.replace(parsed);
    SqlNode validated;
    try {
      validated = validator.validate(parsed);
      ConstantCasts.check(validated, validator);
      OrdinalClauses.check(validated);
    } catch (PlanningException e) {
      throw e; // raised while resolving a name, e.g. an unknown time travel snapshot
    } catch (CalciteContextException e) {
      String reason = e.getCause() != null && e.getCause().getMessage() != null
          ? e.getCause().getMessage() : e.getMessage();
      Code code = classify(reason);
      String message = reason.equals(OrdinalClauses.CALCITE_MESSAGE)
          ? OrdinalClauses.message(parsed, e.getPosLine(), e.getPosColumn()).orElse(reason)
          : ValidationMessages.trino(reason, code);
      throw new PlanningException(code, message, e.getPosLine(), e.getPosColumn(), e);
    } catch (RuntimeException e) {
      throw new PlanningException(Code.VALIDATION_ERROR, "Invalid query: " + e.getMessage(), 0, 0, e);
    }
    SqlToRelConverter converter = new SqlToRelConverter(null, validator, catalogReader, cluster,
        Convertlets.INSTANCE,
        SqlToRelConverter.config()
            .withExpand(false)
            .withTrimUnusedFields(false)
            // Longer IN lists become a semi-join with a VALUES relation: as ORs, Calcite's
            // simplifier takes time that grows far faster than the list.
            .withInSubQueryThreshold(IN_LIST_AS_VALUES_THRESHOLD));
    return converter.convertQuery(validated, false, true);
  }

  /**
   * The Iceberg table a (possibly partly qualified) name denotes, resolved as in a FROM clause:
   * case-insensitively, unqualified names in the default namespace.
   *
   * @return empty when no such table exists
   */
  public Optional<IcebergTable> resolveTable(List<String> names) {
    Prepare.PreparingTable table = catalogReader.getTable(names);
    return table == null ? Optional.empty() : Optional.ofNullable(table.unwrap(IcebergTable.class));
  }

  /** IN lists with at least this many items are planned as a join with VALUES. */
  static final int IN_LIST_AS_VALUES_THRESHOLD = 64;

  private static Code classify(String reason) {
    if (reason.startsWith("Object '") || reason.startsWith("Table '")) {
      return Code.UNKNOWN_TABLE;
    }
    if (reason.startsWith("Column '") && reason.contains("not found")) {
      return Code.UNKNOWN_COLUMN;
    }
    return Code.VALIDATION_ERROR;
  }
}
