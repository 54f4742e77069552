package dev.squall.local.tpch;

import dev.squall.local.generated.GeneratedTablesLoader;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * Generates TPC-H with {@code io.trino.tpch} and writes the 8 tables as Iceberg tables in
 * namespace {@value #NAMESPACE} of a catalog (how: {@link GeneratedTablesLoader}).
 *
 * <p>Data files: lineitem has 6 files at SF 0.1 and about 60 at SF 1 with the default
 * {@value GeneratedTablesLoader#DEFAULT_ROWS_PER_FILE} rows per file; nation and region are
 * always one file. Every table carries its scale factor in {@value #SCALE_FACTOR_PROPERTY}.
 *
 * <p>Schemas and types: see {@link TpchSchemas}.
 */
public final class TpchLoader extends GeneratedTablesLoader<TpchTable<?>, TpchLoader> {
  /** Namespace of the TPC-H tables. */
  public static final String NAMESPACE = "tpch";
  /** Table property holding the scale factor the table was generated at, e.g. {@code 0.1}. */
  public static final String SCALE_FACTOR_PROPERTY = "squall.tpch.scale-factor";

  /** A loader into the given catalog, with a progress bar on stderr by default. */
  public TpchLoader(Catalog catalog) {
    super(catalog);
  }

  @Override
  protected String benchmarkName() {
    return "TPC-H";
  }

  @Override
  protected String namespace() {
    return NAMESPACE;
  }

  @Override
  protected String scaleFactorProperty() {
    return SCALE_FACTOR_PROPERTY;
  }

  @Override
  protected List<TpchTable<?>> tables() {
    return TpchTable.getTables();
  }

  @Override
  protected String tableName(TpchTable<?> table) {
    return table.getTableName();
  }

  @Override
  protected Schema schema(TpchTable<?> table) {
    return TpchSchemas.schemaOf(table);
  }

  @Override
  protected long estimatedRowCount(TpchTable<?> table, double scaleFactor) {
    return specifiedRowCount(table, scaleFactor);
  }

  @Override
  protected boolean singlePart(TpchTable<?> table) {
    return table == TpchTable.NATION || table == TpchTable.REGION; // the generator ignores parts for them
  }

  @Override
  protected Iterable<Record> rows(TpchTable<?> table, Schema schema, double scaleFactor, int part, int partCount) {
    return generated(table, scaleFactor, part, partCount);
  }

  private static <E extends TpchEntity> Iterable<Record> generated(
      TpchTable<E> table, double scaleFactor, int part, int partCount) {
    return () -> {
      Function<E, GenericRecord> filler = TpchSchemas.recordFiller(table);
      Iterator<E> rows = table.createGenerator(scaleFactor, part, partCount).iterator();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return rows.hasNext();
        }

        @Override
        public Record next() {
          return filler.apply(rows.next());
        }
      };
    };
  }

  /**
   * Rows of a table at a scale factor as the TPC-H specification gives them (clause 4.2.5):
   * exact for every table but lineitem, whose count is about 4 lines per order. Used to size
   * data files and the progress bar; see {@link #expectedRowCount} for the exact count.
   */
  static long specifiedRowCount(TpchTable<?> table, double scaleFactor) {
    long perScaleFactor = switch (table.getTableName()) {
      case "region" -> 5;
      case "nation" -> 25;
      case "supplier" -> 10_000;
      case "customer" -> 150_000;
      case "part" -> 200_000;
      case "partsupp" -> 800_000;
      case "orders" -> 1_500_000;
      case "lineitem" -> 6_000_000;
      default -> throw new IllegalArgumentException("not a TPC-H table: " + table.getTableName());
    };
    if (perScaleFactor <= 25) {
      return perScaleFactor;
    }
    return Math.max(1, (long) (perScaleFactor * scaleFactor));
  }

  /**
   * The exact row count the generator produces for a table at a scale factor, found by running
   * the generator (time proportional to the rows: about a second per million).
   */
  public static long expectedRowCount(TpchTable<?> table, double scaleFactor) {
    long n = 0;
    for (Object ignored : table.createGenerator(scaleFactor, 1, 1)) {
      n++;
    }
    return n;
  }

  /** The identifier of a TPC-H table in namespace {@value #NAMESPACE}. */
  public static TableIdentifier identifier(TpchTable<?> table) {
    return TableIdentifier.of(NAMESPACE, table.getTableName());
  }
}
