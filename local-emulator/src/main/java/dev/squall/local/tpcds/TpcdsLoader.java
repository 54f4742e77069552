package dev.squall.local.tpcds;

import dev.squall.local.generated.GeneratedTablesLoader;
import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;

/**
 * Generates TPC-DS with {@code io.trino.tpcds} (a port of the specification's dsdgen) and writes its
 * 24 tables as Iceberg tables in namespace {@value #NAMESPACE} of a catalog (how:
 * {@link GeneratedTablesLoader}; schemas: {@link TpcdsSchemas}). Every table carries its scale
 * factor in {@value #SCALE_FACTOR_PROPERTY}.
 *
 * <p>Parts: the generator counts a table in units (rows of a dimension, tickets or orders of a
 * sales or returns table, each of several rows); a part is a range of units. At small scale factors
 * the generator keeps some dimensions at fixed sizes (customer_demographics has 1,920,800 rows at
 * any scale factor) and shrinks others to a few rows (reason has one row at SF 0.01).
 */
public final class TpcdsLoader extends GeneratedTablesLoader<Table, TpcdsLoader> {
  /** Namespace of the TPC-DS tables. */
  public static final String NAMESPACE = "tpcds";
  /** Table property holding the scale factor the table was generated at, e.g. {@code 0.01}. */
  public static final String SCALE_FACTOR_PROPERTY = "squall.tpcds.scale-factor";

  /** A loader into the given catalog, with a progress bar on stderr by default. */
  public TpcdsLoader(Catalog catalog) {
    super(catalog);
  }

  /** The 24 tables of TPC-DS (the generator's own dbgen_version table is left out). */
  public static List<Table> tpcdsTables() {
    return Table.getBaseTables().stream().filter(t -> t != Table.DBGEN_VERSION).toList();
  }

  /** The identifier of a TPC-DS table in namespace {@value #NAMESPACE}. */
  public static TableIdentifier identifier(Table table) {
    return TableIdentifier.of(NAMESPACE, table.getName());
  }

  @Override
  protected String benchmarkName() {
    return "TPC-DS";
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
  protected List<Table> tables() {
    return tpcdsTables();
  }

  @Override
  protected String tableName(Table table) {
    return table.getName();
  }

  @Override
  protected Schema schema(Table table) {
    return TpcdsSchemas.schemaOf(table);
  }

  @Override
  protected long estimatedRowCount(Table table, double scaleFactor) {
    return (long) Math.ceil(units(table, scaleFactor) * rowsPerUnit(table));
  }

  /** Rows per generator unit, as measured: a ticket of store_sales has about 12 lines. */
  private static double rowsPerUnit(Table table) {
    return switch (table.getName()) {
      case "store_sales", "web_sales" -> 12;
      case "catalog_sales" -> 9;
      case "store_returns", "web_returns" -> 1.2;
      case "catalog_returns" -> 0.9;
      default -> 1;
    };
  }

  private static long units(Table table, double scaleFactor) {
    return session(scaleFactor).getScaling().getRowCount(table);
  }

  private static Session session(double scaleFactor) {
    return Session.getDefaultSession().withScale(scaleFactor);
  }

  @Override
  protected boolean singlePart(Table table) {
    return table.isSmall();
  }

  @Override
  protected Iterable<Record> rows(Table table, Schema schema, double scaleFactor, int part, int partCount) {
    long units = units(table, scaleFactor);
    // Parts beyond the unit count are empty; the part's units are [first, last], 1-based.
    long first = units * (part - 1) / partCount + 1;
    long last = units * part / partCount;
    return () -> {
      if (last < first) {
        return java.util.Collections.emptyIterator();
      }
      Function<List<String>, Record> filler = TpcdsSchemas.recordFiller(table, schema);
      // Results takes the first and the last unit of the range (both inclusive).
      Iterator<List<List<String>>> rows =
          Results.constructResults(table, first, last, session(scaleFactor).withTable(table)).iterator();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return rows.hasNext();
        }

        @Override
        public Record next() {
          return filler.apply(rows.next().get(0));
        }
      };
    };
  }
}
