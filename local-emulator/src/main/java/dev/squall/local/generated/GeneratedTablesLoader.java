package dev.squall.local.generated;

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
import java.util.function.LongConsumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the tables of a benchmark data generator (TPC-H, TPC-DS) as Iceberg tables in one namespace
 * of a catalog: Parquet data files written by Iceberg's own generic Parquet writer
 * ({@link GenericAppenderFactory}) (with their column metrics), unpartitioned, one commit per table.
 * Subclasses say which tables there are, their schemas, and how to generate one part of a table.
 *
 * <p>Data files: each table is generated in {@code ceil(estimatedRows / rowsPerFile)} generator
 * parts (or as many as the generator allows), one data file per part, so that scans get several
 * splits. Parts are written in parallel, one thread per core. A table is created and its files
 * appended in one transaction, so a table is either absent or complete.
 *
 * <p>Idempotence: every table carries its scale factor in the property {@link #scaleFactorProperty()}.
 * A table that already holds the requested scale factor is left alone (so a second load does
 * nothing, and an interrupted load finishes the missing tables). Any table of the namespace with
 * another scale factor, or without the property, makes {@link #load} fail before writing anything:
 * data is never replaced silently; drop the tables or use another data directory.
 *
 * @param <T> the generator's table handle
 * @param <S> the concrete loader (for the fluent setters)
 */
public abstract class GeneratedTablesLoader<T, S extends GeneratedTablesLoader<T, S>> {
  /** Default rows per data file. */
  public static final long DEFAULT_ROWS_PER_FILE = 100_000;

  private static final Logger LOG = LoggerFactory.getLogger(GeneratedTablesLoader.class);
  /** Rows between progress-bar updates from one writer. */
  private static final int PROGRESS_STEP = 8_192;

  private final Catalog catalog;
  private boolean progressBar = true;
  private long rowsPerFile = DEFAULT_ROWS_PER_FILE;
  private int threads = Runtime.getRuntime().availableProcessors();

  /** A loader into the given catalog, with a progress bar on stderr by default. */
  protected GeneratedTablesLoader(Catalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  /** The benchmark's name in messages, e.g. {@code TPC-H}. */
  protected abstract String benchmarkName();

  /** The namespace the tables go to. */
  protected abstract String namespace();

  /** The table property holding the scale factor a table was generated at. */
  protected abstract String scaleFactorProperty();

  /** The tables to write, in load order. */
  protected abstract List<T> tables();

  /** A table's name in the namespace. */
  protected abstract String tableName(T table);

  /** A table's Iceberg schema. */
  protected abstract Schema schema(T table);

  /** About how many rows the table has at the scale factor (sizes data files and the progress bar). */
  protected abstract long estimatedRowCount(T table, double scaleFactor);

  /** Whether the generator makes the table in one part only, whatever its size. */
  protected abstract boolean singlePart(T table);

  /**
   * The rows of one part of a table, as records of {@link #schema}; the iterable may reuse one
   * record, so each must be consumed (written) before the next is taken.
   *
   * @param part 1-based part number, at most {@code partCount}
   */
  protected abstract Iterable<Record> rows(T table, Schema schema, double scaleFactor, int part, int partCount);

  @SuppressWarnings("unchecked")
  private S self() {
    return (S) this;
  }

  /** Shows (default) or hides the progress bar on stderr. */
  public S withProgressBar(boolean show) {
    this.progressBar = show;
    return self();
  }

  /**
   * Sets the target rows per data file (the file count of a table is its estimated rows divided
   * by this, rounded up).
   *
   * @throws IllegalArgumentException if not positive
   */
  public S withRowsPerFile(long rows) {
    if (rows <= 0) {
      throw new IllegalArgumentException("rows per file must be positive: " + rows);
    }
    this.rowsPerFile = rows;
    return self();
  }

  /**
   * Sets how many data files are written at once.
   *
   * @throws IllegalArgumentException if not positive
   */
  public S withThreads(int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("thread count must be positive: " + count);
    }
    this.threads = count;
    return self();
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

  /** The identifier of a table in the namespace. */
  protected TableIdentifier identifierOf(T table) {
    return TableIdentifier.of(namespace(), tableName(table));
  }

  /**
   * Loads the tables at the given scale factor into the namespace, creating the namespace if
   * needed and skipping tables that already hold this scale factor.
   *
   * @param scaleFactor scale factor, positive
   * @return the rows and data files written per table
   * @throws IllegalArgumentException if the scale factor is not a positive number
   * @throws IllegalStateException if the namespace holds a table of another scale factor, or a
   *     table of one of the benchmark's names that this loader did not write
   */
  public LoadReport load(double scaleFactor) {
    if (!(scaleFactor > 0) || Double.isInfinite(scaleFactor)) {
      throw new IllegalArgumentException(benchmarkName() + " scale factor must be a positive number: " + scaleFactor);
    }
    String sfText = scaleFactorText(scaleFactor);
    Namespace ns = Namespace.of(namespace());
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(ns)) {
      namespaces.createNamespace(ns);
    }

    List<T> toLoad = new ArrayList<>();
    List<String> alreadyLoaded = new ArrayList<>();
    for (T table : tables()) {
      TableIdentifier id = identifierOf(table);
      if (!catalog.tableExists(id)) {
        toLoad.add(table);
        continue;
      }
      String existing = catalog.loadTable(id).properties().get(scaleFactorProperty());
      if (existing == null) {
        throw new IllegalStateException("table " + id + " exists but has no property "
            + scaleFactorProperty() + ": it was not written by the " + benchmarkName()
            + " loader; drop it or use another data directory");
      }
      if (Double.parseDouble(existing) != scaleFactor) {
        throw new IllegalStateException("namespace " + namespace() + " already holds " + benchmarkName()
            + " at scale factor " + existing + " (table " + id + "); requested " + sfText
            + ". Use another data directory, or drop the " + namespace() + " tables first");
      }
      alreadyLoaded.add(tableName(table));
    }
    if (toLoad.isEmpty()) {
      LOG.info("{} SF {} already loaded in namespace {}", benchmarkName(), sfText, namespace());
      return new LoadReport(scaleFactor, Map.of(), Map.of(), List.copyOf(alreadyLoaded));
    }
    return write(scaleFactor, sfText, toLoad, alreadyLoaded);
  }

  private LoadReport write(double scaleFactor, String sfText, List<T> tables, List<String> alreadyLoaded) {
    String loadId = UUID.randomUUID().toString();
    long estimatedTotal = 0;
    Map<T, Transaction> transactions = new LinkedHashMap<>();
    List<PartTask<T>> tasks = new ArrayList<>();
    for (T table : tables) {
      Transaction txn = catalog.buildTable(identifierOf(table), schema(table))
          .withPartitionSpec(PartitionSpec.unpartitioned())
          .withProperty(scaleFactorProperty(), sfText)
          .createTransaction();
      transactions.put(table, txn);
      long estimate = estimatedRowCount(table, scaleFactor);
      estimatedTotal += estimate;
      int parts = singlePart(table) ? 1
          : (int) Math.max(1, Math.min(Integer.MAX_VALUE, (estimate + rowsPerFile - 1) / rowsPerFile));
      for (int part = 1; part <= parts; part++) {
        tasks.add(new PartTask<>(table, part, parts, txn.table(), loadId));
      }
    }

    Map<T, List<DataFile>> files = new LinkedHashMap<>();
    Map<String, Long> rows = new LinkedHashMap<>();
    try (ProgressBar bar = progressBar ? newProgressBar(sfText, estimatedTotal) : null) {
      LongConsumer progress = bar == null ? n -> { } : bar::stepBy;
      String threadName = namespace() + "-writer";
      ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, tasks.size()), r -> {
        Thread t = new Thread(r, threadName);
        t.setDaemon(true);
        return t;
      });
      try {
        List<Future<DataFile>> futures = new ArrayList<>();
        for (PartTask<T> task : tasks) {
          futures.add(pool.submit(() -> writePart(task, scaleFactor, progress)));
        }
        for (int i = 0; i < tasks.size(); i++) {
          DataFile file = futures.get(i).get();
          T table = tasks.get(i).table();
          files.computeIfAbsent(table, t -> new ArrayList<>()).add(file);
          rows.merge(tableName(table), file.recordCount(), Long::sum);
        }
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException re) {
          throw re;
        }
        throw new IllegalStateException("writing " + benchmarkName() + " data files failed: " + cause, cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while writing " + benchmarkName() + " data files", e);
      } finally {
        pool.shutdownNow();
      }
      if (bar != null) {
        bar.maxHint(bar.getCurrent());
      }
    }

    Map<String, Integer> fileCounts = new LinkedHashMap<>();
    for (Map.Entry<T, Transaction> e : transactions.entrySet()) {
      String name = tableName(e.getKey());
      List<DataFile> tableFiles = files.getOrDefault(e.getKey(), List.of());
      AppendFiles append = e.getValue().newAppend();
      tableFiles.forEach(append::appendFile);
      append.commit();
      e.getValue().commitTransaction();
      fileCounts.put(name, tableFiles.size());
      LOG.info("{}.{}: {} rows in {} data files", namespace(), name, rows.getOrDefault(name, 0L), tableFiles.size());
    }
    return new LoadReport(scaleFactor, rows, fileCounts, List.copyOf(alreadyLoaded));
  }

  /** One generator part of one table, written to one data file. */
  private record PartTask<T>(T table, int part, int partCount, Table target, String loadId) { }

  private DataFile writePart(PartTask<T> task, double scaleFactor, LongConsumer progress) throws IOException {
    FileIO io = task.target().io();
    LocationProvider locations = task.target().locationProvider();
    String location = locations.newDataLocation(String.format("%05d-%s.parquet", task.part(), task.loadId()));
    // Iceberg's generic Parquet writer, with the table's write properties and metrics config.
    GenericAppenderFactory factory = new GenericAppenderFactory(task.target().schema(), task.target().spec())
        .setAll(task.target().properties());
    DataWriter<Record> writer = factory.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(io.newOutputFile(location)), FileFormat.PARQUET, null);
    long pending = 0;
    try (writer) {
      for (Record row : rows(task.table(), task.target().schema(), scaleFactor, task.part(), task.partCount())) {
        writer.write(row);
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

  /** The scale factor as stored in the scale-factor property: shortest plain form. */
  public static String scaleFactorText(double scaleFactor) {
    return BigDecimal.valueOf(scaleFactor).stripTrailingZeros().toPlainString();
  }

  private ProgressBar newProgressBar(String sfText, long estimatedRows) {
    return new ProgressBarBuilder()
        .setTaskName(benchmarkName() + " SF " + sfText)
        .setInitialMax(estimatedRows)
        .setStyle(ProgressBarStyle.ASCII)
        .setUnit(" rows", 1)
        .showSpeed()
        .setConsumer(new ConsoleProgressBarConsumer(System.err))
        .build();
  }
}
