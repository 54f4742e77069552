package dev.squall.cli.local;

import dev.squall.local.tpch.TpchLoader;
import io.trino.tpch.TpchTable;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/**
 * DuckDB views over the very Parquet data files of the TPC-H (or TPC-DS) tables' current snapshots, read from
 * the embedded S3's directory: the oracle of the end-to-end tests and the benchmark's reference.
 */
public final class TpchDuckDbViews {
  private TpchDuckDbViews() {}

  /** Creates one view per TPC-H table (lineitem, orders, ...) in {@code duck}'s default schema. */
  public static void create(LocalDeployment stack, Connection duck) throws Exception {
    try (Statement st = duck.createStatement()) {
      for (String view : statements(stack)) {
        st.execute(view);
      }
    }
  }

  /** The {@code create view} statements of {@link #create}, one per TPC-H table, for another process to run. */
  public static List<String> statements(LocalDeployment stack) throws Exception {
    return statements(stack, TpchTable.getTables().stream().map(TpchLoader::identifier).toList());
  }

  /**
   * The {@code create view} statements over the current data files of the given tables, one view
   * per table named as the table (without its namespace).
   */
  public static List<String> statements(LocalDeployment stack, List<TableIdentifier> tables) throws Exception {
    List<String> views = new ArrayList<>();
    for (TableIdentifier id : tables) {
      Table table = stack.catalog().catalog().loadTable(id);
      List<String> files = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          files.add("'" + stack.catalog().localPathOf(task.file().location()) + "'");
        }
      }
      views.add("create view " + id.name() + " as select * from read_parquet([" + String.join(", ", files) + "])");
    }
    return views;
  }
}
