package dev.squall.planner.optimize;

import java.util.List;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.rel.metadata.ChainedRelMetadataProvider;
import org.apache.calcite.rel.metadata.DefaultRelMetadataProvider;
import org.apache.calcite.rel.metadata.JaninoRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

/** Installs Squall's metadata ({@link JoinRowCount}, {@link ScanDistinctRowCount} before Calcite's defaults) on a cluster. */
public final class SquallMetadata {
  private static final RelMetadataProvider CHAIN =
      ChainedRelMetadataProvider.of(List.of(JoinRowCount.SOURCE, ScanDistinctRowCount.SOURCE,
          DefaultRelMetadataProvider.INSTANCE));
  // Compiling the handlers is costly; one instance serves every planning run.
  private static final JaninoRelMetadataProvider PROVIDER = JaninoRelMetadataProvider.of(CHAIN);

  private SquallMetadata() {}

  public static void install(RelOptCluster cluster) {
    cluster.setMetadataProvider(CHAIN);
    cluster.setMetadataQuerySupplier(() -> new RelMetadataQuery(PROVIDER));
  }
}
