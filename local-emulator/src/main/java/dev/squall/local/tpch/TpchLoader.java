package dev.squall.local.tpch;

import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.LongConsumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Generates TPC-H with {@code io.trino.tpch} and writes the 8 tables as Iceberg tables in
 * namespace {@value #NAMESPACE} of a catalog: Parquet data files written by Iceberg's own
 * generic Parquet writer ({@link GenericAppenderFactory}) (with their column metrics), unpartitioned, one commit per table.
 *
 * <p>Data files: each table is generated in {@code ceil(estimatedRows / rowsPerFile)} generator
 * parts (nation and region in one), one data file per part, so that scans get several splits
 * (default {@value #DEFAULT_ROWS_PER_FILE} rows per file: lineitem has 6 files at SF 0.1 and
 * about 60 at SF 1). Parts are written in parallel, one thread per core. A table is created and
 * its files appended in one transaction, so a table is either absent or complete.
 *
 * <p>Idempotence: every table carries its scale factor in the property
 * {@value #SCALE_FACTOR_PROPERTY}. A table that already holds the requested scale factor is left
 * alone (so a second load does nothing, and an interrupted load finishes the missing tables).
 * Any table of the namespace with another scale factor, or without the property, makes
 * {@link #load} fail before writing anything: data is never replaced silently; drop the tables
 * or use another data directory.
 *
 * <p>Schemas and types: see {@link TpchSchemas}.
 */
public final class TpchLoader {
  /** Namespace of the TPC-H tables. */
  public static final String NAMESPACE = "tpch";
  /** Table property holding the scale factor the table was generated at, e.g. {@code 0.1}. */
  public static final String SCALE_FACTOR_PROPERTY = "squall.tpch.scale-factor";
  /** Default rows per data file. */
  public static final long DEFAULT_ROWS_PER_FILE = 100_000;

  private static final Logger LOG = LoggerFactory.getLogger(TpchLoader.class);
  /** Rows between progress-bar updates from one writer. */
  private static final int PROGRESS_STEP = 8_192;

  private final Catalog catalog;
  private boolean progressBar = true;
  private long rowsPerFile = DEFAULT_ROWS_PER_FILE;
  private int threads = Runtime.getRuntime().availableProcessors();

  /** A loader into the given catalog, with a progress bar on stderr by default. */
  public TpchLoader(Catalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  /** Shows (default) or hides the progress bar on stderr. */
  public TpchLoader withProgressBar(boolean show) {
    this.progressBar = show;
    return this;
  }

  /**
   * Sets the target rows per data file (the file count of a table is its estimated rows divided
   * by this, rounded up).
   *
   * @throws IllegalArgumentException if not positive
   */
  public TpchLoader withRowsPerFile(long rows) {
    if (rows <= 0) {
      throw new IllegalArgumentException("rows per file must be positive: " + rows);
    }
    this.rowsPerFile = rows;
    return this;
  }

  /**
   * Sets how many data files are written at once.
   *
   * @throws IllegalArgumentException if not positive
   */
  public TpchLoader withThreads(int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("thread count must be positive: " + count);
    }
    this.threads = count;
    return this;
  }

  /** What a load did. */
  public record LoadReport(
      double scaleFactor, Map<String, Long> rowsWritten, Map<String, Integer> dataFilesWritten,
      List<String> tablesAlreadyLoaded) {
    /** True if every table was already there and nothing was written. */
    public boolean nothingWritten() {
      return rowsWritten.isEmpty();
    }
  }

  /**
   * Loads TPC-H at the given scale factor into namespace {@value #NAMESPACE}, creating the
   * namespace if needed and skipping tables that already hold this scale factor.
   *
   * @param scaleFactor TPC-H scale factor, positive (0.01 gives 60,175 lineitem rows)
   * @return the rows and data files written per table
   * @throws IllegalArgumentException if the scale factor is not a positive number
   * @throws IllegalStateException if the namespace holds a TPC-H table of another scale factor,
   *     or a table of a TPC-H name that this loader did not write
   */
  public LoadReport load(double scaleFactor) {
    if (!(scaleFactor > 0) || Double.isInfinite(scaleFactor)) {
      throw new IllegalArgumentException("TPC-H scale factor must be a positive number: " + scaleFactor);
    }
    String sfText = scaleFactorText(scaleFactor);
    Namespace namespace = Namespace.of(NAMESPACE);
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(namespace)) {
      namespaces.createNamespace(namespace);
    }

    List<TpchTable<?>> toLoad = new ArrayList<>();
    List<String> alreadyLoaded = new ArrayList<>();
    for (TpchTable<?> table : TpchTable.getTables()) {
      TableIdentifier id = identifier(table);
      if (!catalog.tableExists(id)) {
        toLoad.add(table);
        continue;
      }
      String existing = catalog.loadTable(id).properties().get(SCALE_FACTOR_PROPERTY);
      if (existing == null) {
        throw new IllegalStateException("table " + id + " exists but has no property "
            + SCALE_FACTOR_PROPERTY + ": it was not written by the TPC-H loader; drop it or use another data directory");
      }
      if (Double.parseDouble(existing) != scaleFactor) {
        throw new IllegalStateException("namespace " + NAMESPACE + " already holds TPC-H at scale factor "
            + existing + " (table " + id + "); requested " + sfText
            + ". Use another data directory, or drop the tpch tables first");
      }
      alreadyLoaded.add(table.getTableName());
    }
    if (toLoad.isEmpty()) {
      LOG.info("TPC-H SF {} already loaded in namespace {}", sfText, NAMESPACE);
      return new LoadReport(scaleFactor, Map.of(), Map.of(), List.copyOf(alreadyLoaded));
    }
    return write(scaleFactor, sfText, toLoad, alreadyLoaded);
  }

  private LoadReport write(
      double scaleFactor, String sfText, List<TpchTable<?>> tables, List<String> alreadyLoaded) {
    String loadId = UUID.randomUUID().toString();
    long estimatedTotal = 0;
    Map<TpchTable<?>, Transaction> transactions = new LinkedHashMap<>();
    List<PartTask> tasks = new ArrayList<>();
    for (TpchTable<?> table : tables) {
      Transaction txn = catalog.buildTable(identifier(table), TpchSchemas.schemaOf(table))
          .withPartitionSpec(PartitionSpec.unpartitioned())
          .withProperty(SCALE_FACTOR_PROPERTY, sfText)
          .createTransaction();
      transactions.put(table, txn);
      long estimate = estimatedRowCount(table, scaleFactor);
      estimatedTotal += estimate;
      int parts = partCount(table, estimate);
      for (int part = 1; part <= parts; part++) {
        tasks.add(new PartTask(table, part, parts, txn.table(), loadId));
      }
    }

    Map<TpchTable<?>, List<DataFile>> files = new LinkedHashMap<>();
    Map<String, Long> rows = new LinkedHashMap<>();
    try (ProgressBar bar = progressBar ? newProgressBar(sfText, estimatedTotal) : null) {
      LongConsumer progress = bar == null ? n -> { } : bar::stepBy;
      ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, tasks.size()), r -> {
        Thread t = new Thread(r, "tpch-writer");
        t.setDaemon(true);
        return t;
      });
      try {
        List<Future<DataFile>> futures = new ArrayList<>();
        for (PartTask task : tasks) {
          futures.add(pool.submit(() -> task.write(scaleFactor, progress)));
        }
        for (int i = 0; i < tasks.size(); i++) {
          DataFile file = futures.get(i).get();
          TpchTable<?> table = tasks.get(i).table();
          files.computeIfAbsent(table, t -> new ArrayList<>()).add(file);
          rows.merge(table.getTableName(), file.recordCount(), Long::sum);
        }
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException re) {
          throw re;
        }
        throw new IllegalStateException("writing TPC-H data files failed: " + cause, cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while writing TPC-H data files", e);
      } finally {
        pool.shutdownNow();
      }
      if (bar != null) {
        bar.maxHint(bar.getCurrent());
      }
    }

    Map<String, Integer> fileCounts = new LinkedHashMap<>();
    for (Map.Entry<TpchTable<?>, Transaction> e : transactions.entrySet()) {
      List<DataFile> tableFiles = files.getOrDefault(e.getKey(), List.of());
      AppendFiles append = e.getValue().newAppend();
      tableFiles.forEach(append::appendFile);
      append.commit();
      e.getValue().commitTransaction();
      fileCounts.put(e.getKey().getTableName(), tableFiles.size());
      LOG.info("tpch.{}: {} rows in {} data files", e.getKey().getTableName(),
          rows.getOrDefault(e.getKey().getTableName(), 0L), tableFiles.size());
    }
    return new LoadReport(scaleFactor, rows, fileCounts, List.copyOf(alreadyLoaded));
  }

  /** One generator part of one table, written to one data file. */
  private record PartTask(TpchTable<?> table, int part, int partCount, Table target, String loadId) {
    DataFile write(double scaleFactor, LongConsumer progress) throws IOException {
      return writePart(this, table, scaleFactor, progress);
    }
  }

  private static <E extends TpchEntity> DataFile writePart(
      PartTask task, TpchTable<E> table, double scaleFactor, LongConsumer progress) throws IOException {
    FileIO io = task.target().io();
    LocationProvider locations = task.target().locationProvider();
    String location = locations.newDataLocation(
        String.format("%05d-%s.parquet", task.part(), task.loadId()));
    Function<E, GenericRecord> filler = TpchSchemas.recordFiller(table);
    // Iceberg's generic Parquet writer, with the table's write properties and metrics config.
    GenericAppenderFactory factory =
        new GenericAppenderFactory(task.target().schema(), task.target().spec())
            .setAll(task.target().properties());
    DataWriter<Record> writer = factory.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(io.newOutputFile(location)), FileFormat.PARQUET, null);
    long pending = 0;
    try (writer) {
      for (E row : table.createGenerator(scaleFactor, task.part(), task.partCount())) {
        writer.write(filler.apply(row));
        if (++pending == PROGRESS_STEP) {
          progress.accept(pending);
          pending = 0;
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    progress.accept(pending);
    return writer.toDataFile();
  }

  private int partCount(TpchTable<?> table, long estimatedRows) {
    if (table == TpchTable.NATION || table == TpchTable.REGION) {
      return 1; // fixed-size tables: the generator ignores parts for them
    }
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (estimatedRows + rowsPerFile - 1) / rowsPerFile));
  }

  /**
   * Rows of a table at a scale factor as the TPC-H specification gives them (clause 4.2.5):
   * exact for every table but lineitem, whose count is about 4 lines per order. Used to size
   * data files and the progress bar; see {@link #expectedRowCount} for the exact count.
   */
  static long estimatedRowCount(TpchTable<?> table, double scaleFactor) {
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

  /** The scale factor as stored in {@value #SCALE_FACTOR_PROPERTY}: shortest plain form. */
  static String scaleFactorText(double scaleFactor) {
    return BigDecimal.valueOf(scaleFactor).stripTrailingZeros().toPlainString();
  }

  private static ProgressBar newProgressBar(String sfText, long estimatedRows) {
    return new ProgressBarBuilder()
        .setTaskName("TPC-H SF " + sfText)
        .setInitialMax(estimatedRows)
        .setStyle(ProgressBarStyle.ASCII)
        .setUnit(" rows", 1)
        .showSpeed()
        .setConsumer(new ConsoleProgressBarConsumer(System.err))
        .build();
  }
}
