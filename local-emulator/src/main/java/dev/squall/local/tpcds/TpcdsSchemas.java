package dev.squall.local.tpcds;

import io.trino.tpcds.Table;
import io.trino.tpcds.column.Column;
import io.trino.tpcds.column.ColumnType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg schemas of the 24 TPC-DS tables and the mapping of generator rows to Iceberg records.
 *
 * <p>Types follow the TPC-DS specification 3.2 (clause 2.3 and 2.4) as {@code io.trino.tpcds} reports
 * them: identifiers ({@code *_sk} and the like) BIGINT; integers INTEGER; {@code DECIMAL(p,s)} as
 * given (mostly DECIMAL(7,2), DECIMAL(5,2) for GMT offsets and tax rates, DECIMAL(15,2) for
 * {@code p_cost}); dates DATE; {@code CHAR(n)} and {@code VARCHAR(n)} as VARCHAR (Iceberg
 * {@code string}: Iceberg has no fixed-length text, and the generator never pads). Field ids are
 * 1..n in the generator's column order. The primary key of each table (the surrogate key of a
 * dimension; item and ticket or order number of a sales or returns table; date, item and warehouse
 * of inventory) is required and the schema's identifier fields; every other column is optional,
 * since TPC-DS has NULLs in nearly every non-key column.
 */
public final class TpcdsSchemas {
  private TpcdsSchemas() {}

  /** The Iceberg schema of a TPC-DS table, with its primary key as identifier fields. */
  public static Schema schemaOf(Table table) {
    List<Types.NestedField> fields = new ArrayList<>();
    Set<String> key = primaryKey(table);
    Set<Integer> identifiers = new HashSet<>();
    int id = 1;
    for (Column column : table.getColumns()) {
      String name = column.getName();
      Type type = icebergType(column.getType());
      if (key.contains(name)) {
        identifiers.add(id);
        fields.add(Types.NestedField.required(id++, name, type));
      } else {
        fields.add(Types.NestedField.optional(id++, name, type));
      }
    }
    return new Schema(fields, identifiers);
  }

  /** The primary key columns of a table (TPC-DS specification, clause 2.3.2 and 2.4.2). */
  static Set<String> primaryKey(Table table) {
    return switch (table.getName()) {
      case "store_sales" -> Set.of("ss_item_sk", "ss_ticket_number");
      case "store_returns" -> Set.of("sr_item_sk", "sr_ticket_number");
      case "catalog_sales" -> Set.of("cs_item_sk", "cs_order_number");
      case "catalog_returns" -> Set.of("cr_item_sk", "cr_order_number");
      case "web_sales" -> Set.of("ws_item_sk", "ws_order_number");
      case "web_returns" -> Set.of("wr_item_sk", "wr_order_number");
      case "inventory" -> Set.of("inv_date_sk", "inv_item_sk", "inv_warehouse_sk");
      // Every dimension's first column is its surrogate key.
      default -> Set.of(table.getColumns()[0].getName());
    };
  }

  /**
   * The Iceberg type of a generator column type.
   *
   * @throws IllegalArgumentException for TIME, which no query table uses (only dbgen_version)
   */
  public static Type icebergType(ColumnType type) {
    return switch (type.getBase()) {
      case IDENTIFIER -> Types.LongType.get();
      case INTEGER -> Types.IntegerType.get();
      case DECIMAL -> Types.DecimalType.of(type.getPrecision().orElseThrow(), type.getScale().orElseThrow());
      case DATE -> Types.DateType.get();
      case CHAR, VARCHAR -> Types.StringType.get();
      case TIME -> throw new IllegalArgumentException("TPC-DS TIME columns have no Iceberg mapping here");
    };
  }

  /**
   * Fills records of {@code schema} from the generator's text rows (a null value is SQL NULL). The
   * returned function reuses one record: consume it (write it) before the next call.
   */
  static Function<List<String>, Record> recordFiller(Table table, Schema schema) {
    Column[] columns = table.getColumns();
    List<Function<String, Object>> parsers = new ArrayList<>(columns.length);
    for (Column column : columns) {
      parsers.add(parser(column.getType()));
    }
    GenericRecord record = GenericRecord.create(schema);
    int n = parsers.size();
    return row -> {
      for (int i = 0; i < n; i++) {
        String text = row.get(i);
        record.set(i, text == null ? null : parsers.get(i).apply(text));
      }
      return record;
    };
  }

  /** Parses the generator's text of a value into Iceberg's generic value: Long, Integer, BigDecimal, LocalDate or String. */
  static Function<String, Object> parser(ColumnType type) {
    return switch (type.getBase()) {
      case IDENTIFIER -> Long::parseLong;
      case INTEGER -> Integer::parseInt;
      case DECIMAL -> {
        int scale = type.getScale().orElseThrow();
        yield text -> new BigDecimal(text).setScale(scale);
      }
      case DATE -> LocalDate::parse;
      case CHAR, VARCHAR, TIME -> text -> text;
    };
  }
}
