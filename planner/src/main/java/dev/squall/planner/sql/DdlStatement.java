package dev.squall.planner.sql;

import dev.squall.planner.PlanningException;
import dev.squall.planner.sql.CreateTableAsStatement.NamePart;
import dev.squall.planner.sql.CreateTableAsStatement.PartitionItem;
import dev.squall.planner.sql.CreateTableAsStatement.SortItem;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.types.Type;

/**
 * DDL in Trino's syntax, parsed by Squall:
 *
 * <pre>
 * CREATE SCHEMA [IF NOT EXISTS] s
 * DROP SCHEMA [IF EXISTS] s [RESTRICT]
 * CREATE TABLE [IF NOT EXISTS] t (col type [NOT NULL] [COMMENT 'text'], ...)
 *     [COMMENT 'text'] [PARTITIONED BY (item, ...)] [WITH (property = value, ...)]
 * DROP TABLE [IF EXISTS] t
 * ALTER TABLE t ADD COLUMN [IF NOT EXISTS] col type [NOT NULL] [COMMENT 'text']
 * ALTER TABLE t RENAME COLUMN a TO b
 * ALTER TABLE t DROP COLUMN col
 * ALTER TABLE t RENAME TO t2
 * ALTER TABLE t EXECUTE procedure [(name => value, ...)]
 * </pre>
 *
 * Column types: {@link ColumnTypes}. Properties: {@code format = 'PARQUET'},
 * {@code format_version = 1|2|3}, {@code partitioning = ARRAY['col', 'day(ts)', 'bucket(col, 8)',
 * 'truncate(col, 4)', ...]} (Trino's form, instead of PARTITIONED BY), {@code sorted_by = ARRAY['col',
 * 'col DESC', 'col ASC NULLS LAST', ...]} (the table's sort order), and any Iceberg table property
 * as a quoted name containing a dot ({@code "write.parquet.compression-codec" = 'zstd'}).
 * {@code CREATE TABLE t AS query} is {@link CreateTableAsStatement}'s. Everything else (views,
 * CASCADE, SET PROPERTIES, ...) is refused whole as UNSUPPORTED at its position.
 */
public sealed interface DdlStatement {
  /** A column definition; {@code type} is the Iceberg type. */
  record ColumnDefinition(NamePart name, Type type, boolean notNull, String comment) {}

  record CreateSchema(NamePart name, boolean ifNotExists) implements DdlStatement {}

  record DropSchema(NamePart name, boolean ifExists) implements DdlStatement {}

  /**
   * @param properties Iceberg table properties (Trino's {@code format_version} as {@code format-version})
   * @param sortedBy the {@code sorted_by} items in order: the table's sort order (empty: unsorted)
   */
  record CreateTable(List<NamePart> name, boolean ifNotExists, List<ColumnDefinition> columns,
      List<PartitionItem> partitionBy, Map<String, String> properties, List<SortItem> sortedBy)
      implements DdlStatement {
    /** A table without a sort order. */
    public CreateTable(List<NamePart> name, boolean ifNotExists, List<ColumnDefinition> columns,
        List<PartitionItem> partitionBy, Map<String, String> properties) {
      this(name, ifNotExists, columns, partitionBy, properties, List.of());
    }
  }

  record DropTable(List<NamePart> name, boolean ifExists) implements DdlStatement {}

  record AddColumn(List<NamePart> table, ColumnDefinition column, boolean ifNotExists) implements DdlStatement {}

  record RenameColumn(List<NamePart> table, NamePart from, NamePart to) implements DdlStatement {}

  record DropColumn(List<NamePart> table, NamePart column) implements DdlStatement {}

  record RenameTable(List<NamePart> table, List<NamePart> to) implements DdlStatement {}

  /**
   * One argument of a table procedure: {@code name => value}, or a bare value (then {@code name}
   * is null and the procedure's arguments are taken in order).
   *
   * @param value the literal's text (a string's without quotes)
   * @param line 1-based line of the argument
   * @param column 1-based column of the argument
   */
  record ProcedureArgument(String name, String value, int line, int column) {}

  /** {@code ALTER TABLE t EXECUTE procedure [(arguments)]} (Trino's table procedures). */
  record ExecuteProcedure(List<NamePart> table, NamePart procedure, List<ProcedureArgument> arguments)
      implements DdlStatement {}

  /**
   * Parses {@code sql} when it is DDL: it starts with DROP or ALTER, or with CREATE and is not a
   * CREATE TABLE ... AS.
   *
   * @return empty for other statements (CREATE TABLE AS included)
   * @throws PlanningException SYNTAX_ERROR, UNSUPPORTED or VALIDATION_ERROR at the offending token
   */
  static Optional<DdlStatement> parse(String sql) {
    return DdlParser.parse(sql);
  }
}
