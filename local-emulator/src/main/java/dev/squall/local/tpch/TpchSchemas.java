package dev.squall.local.tpch;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg schemas of the TPC-H tables and the mapping of generator rows to Iceberg records.
 *
 * <p>Types (TPC-H specification 2.18, clause 1.3 and 1.4, with identifiers widened to 64 bits so
 * that large scale factors fit): every {@code *key} column BIGINT ({@code long}); other integers
 * ({@code l_linenumber}, {@code p_size}, {@code ps_availqty}, {@code o_shippriority}) INTEGER;
 * money, quantity, discount and tax DECIMAL(15,2); dates DATE; text VARCHAR (Iceberg
 * {@code string}, no length). Every column is required: TPC-H has no NULLs. Field ids are 1..n in
 * the generator's column order; column names are the generator's ({@code l_orderkey}, ...).
 *
 * <p>Decimals are exact: for the generator's DOUBLE columns {@link TpchColumn#getIdentifier}
 * returns the value in hundredths as a {@code long} (for example {@code l_extendedprice}
 * 24710.35 as 2471035), which becomes {@code BigDecimal.valueOf(hundredths, 2)} with no floating
 * point in between.
 */
public final class TpchSchemas {
  /** Precision and scale of TPC-H decimal columns. */
  public static final Types.DecimalType DECIMAL = Types.DecimalType.of(15, 2);

  private TpchSchemas() {}

  /**
   * The Iceberg schema of a TPC-H table, with the table's primary key (TPC-H specification 2.18,
   * clause 1.4.2.2) as its identifier fields, so that the planner knows which join sides are unique.
   */
  public static Schema schemaOf(TpchTable<?> table) {
    List<Types.NestedField> fields = new ArrayList<>();
    Set<String> key = primaryKey(table.getTableName());
    Set<Integer> identifiers = new HashSet<>();
    int id = 1;
    for (TpchColumn<?> column : table.getColumns()) {
      if (key.contains(column.getColumnName())) {
        identifiers.add(id);
      }
      fields.add(Types.NestedField.required(id++, column.getColumnName(), icebergType(column)));
    }
    return new Schema(fields, identifiers);
  }

  private static Set<String> primaryKey(String table) {
    return switch (table) {
      case "part" -> Set.of("p_partkey");
      case "supplier" -> Set.of("s_suppkey");
      case "partsupp" -> Set.of("ps_partkey", "ps_suppkey");
      case "customer" -> Set.of("c_custkey");
      case "orders" -> Set.of("o_orderkey");
      case "lineitem" -> Set.of("l_orderkey", "l_linenumber");
      case "nation" -> Set.of("n_nationkey");
      case "region" -> Set.of("r_regionkey");
      default -> Set.of();
    };
  }

  /**
   * The Iceberg type of a generator column.
   *
   * @throws IllegalArgumentException for a generator type this mapping does not know
   */
  public static Type icebergType(TpchColumn<?> column) {
    return switch (column.getType().getBase()) {
      case IDENTIFIER -> Types.LongType.get();
      case INTEGER -> Types.IntegerType.get();
      case DOUBLE -> DECIMAL;
      case DATE -> Types.DateType.get();
      case VARCHAR -> Types.StringType.get();
    };
  }

  /**
   * Fills records of the table's schema from generator rows. The returned function reuses one
   * record: consume it (write it) before the next call.
   */
  static <E extends TpchEntity> Function<E, GenericRecord> recordFiller(TpchTable<E> table) {
    Schema schema = schemaOf(table);
    List<TpchColumn<E>> columns = table.getColumns();
    List<Function<E, Object>> getters = new ArrayList<>(columns.size());
    for (TpchColumn<E> column : columns) {
      getters.add(getter(column));
    }
    GenericRecord record = GenericRecord.create(schema);
    int n = getters.size();
    return row -> {
      for (int i = 0; i < n; i++) {
        record.set(i, getters.get(i).apply(row));
      }
      return record;
    };
  }

  /** The Iceberg generic value of a column: Long, Integer, BigDecimal, LocalDate or String. */
  static <E extends TpchEntity> Function<E, Object> getter(TpchColumn<E> column) {
    return switch (column.getType().getBase()) {
      case IDENTIFIER -> column::getIdentifier;
      case INTEGER -> column::getInteger;
      case DOUBLE -> row -> BigDecimal.valueOf(column.getIdentifier(row), 2);
      case DATE -> row -> LocalDate.ofEpochDay(column.getDate(row));
      case VARCHAR -> column::getString;
    };
  }
}
