package dev.squall.local.tpch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.squall.local.catalog.LocalCatalog;
import dev.squall.local.s3.EmbeddedS3;
import io.trino.tpch.TpchTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Loads at SF 0.001 into throwaway stacks: progress output, finishing a partial load, foreign tables. */
class TpchLoaderResumeTest {
  static final double SF = 0.001;
  static final String BUCKET = "squall-warehouse";

  @Test
  void progressBarReportsRowsOnStderrAndStaysSilentWhenOff() throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream withBar = new ByteArrayOutputStream();
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET)) {
      System.setErr(new PrintStream(withBar, true, StandardCharsets.UTF_8));
      try {
        new TpchLoader(local.catalog()).withProgressBar(true).load(SF);
      } finally {
        System.setErr(original);
      }
    }
    assertThat(withBar.toString(StandardCharsets.UTF_8)).contains("TPC-H SF 0.001").contains("rows");

    ByteArrayOutputStream withoutBar = new ByteArrayOutputStream();
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET)) {
      System.setErr(new PrintStream(withoutBar, true, StandardCharsets.UTF_8));
      try {
        new TpchLoader(local.catalog()).withProgressBar(false).load(SF);
      } finally {
        System.setErr(original);
      }
    }
    assertThat(withoutBar.toString(StandardCharsets.UTF_8)).doesNotContain("TPC-H SF");
  }

  @Test
  void aLoadMissingOneTableWritesOnlyThatTable() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET)) {
      TpchLoader loader = new TpchLoader(local.catalog()).withProgressBar(false);
      loader.load(SF);
      long ordersSnapshot = local.catalog().loadTable(TpchLoader.identifier(TpchTable.ORDERS)).currentSnapshot().snapshotId();
      local.catalog().dropTable(TpchLoader.identifier(TpchTable.PART), true);

      TpchLoader.LoadReport report = loader.load(SF);

      assertThat(report.rowsWritten()).containsOnlyKeys("part");
      assertThat(report.rowsWritten().get("part")).isEqualTo(TpchLoader.expectedRowCount(TpchTable.PART, SF));
      assertThat(report.tablesAlreadyLoaded()).hasSize(7).doesNotContain("part");
      assertThat(local.catalog().loadTable(TpchLoader.identifier(TpchTable.ORDERS)).currentSnapshot().snapshotId())
          .isEqualTo(ordersSnapshot);
    }
  }

  @Test
  void aTableOfATpchNameNotWrittenByTheLoaderIsRefused() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.startTransient(BUCKET);
        LocalCatalog local = LocalCatalog.open(s3, null, BUCKET)) {
      ((org.apache.iceberg.catalog.SupportsNamespaces) local.catalog())
          .createNamespace(org.apache.iceberg.catalog.Namespace.of(TpchLoader.NAMESPACE));
      local.catalog().createTable(TpchLoader.identifier(TpchTable.NATION),
          new Schema(Types.NestedField.required(1, "x", Types.IntegerType.get())));
      assertThatThrownBy(() -> new TpchLoader(local.catalog()).withProgressBar(false).load(SF))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("tpch.nation")
          .hasMessageContaining(TpchLoader.SCALE_FACTOR_PROPERTY);
      // Nothing else was created.
      assertThat(local.catalog().tableExists(TpchLoader.identifier(TpchTable.LINE_ITEM))).isFalse();
    }
  }
}
