package dev.squall.coordinator.scheduler;

import dev.squall.engine.runtimefilter.ProbeKeyFilter;
import dev.squall.planner.split.KeyBounds;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File skipping by runtime filters at the coordinator: the splits of a probe task's scan input
 * whose data file cannot hold a key of the filters on that scan are left out of the task's spec,
 * so the task never opens them. A split is left out when Iceberg's {@link InclusiveMetricsEvaluator}
 * (the manifest-level data file pruning of Iceberg scans) finds that the file's metrics carried in
 * the split ({@link ScanSplit#getKeyBoundsList()}: lower and upper bounds, null and value counts of
 * the key columns) rule out the filters' predicate: the key range disjoint from the file's bounds, no
 * listed key inside them, or a key column that is NULL in every row. A split without carried
 * metrics, or a metric missing, is always kept. Skipping a data file never changes an answer: the
 * rows it holds cannot meet a build row, and its delete files only remove rows.
 */
final class RuntimeFilterSplits {
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeFilterSplits.class);

  /** Null when no filter can be stated on the scan's columns as an Iceberg predicate. */
  private final InclusiveMetricsEvaluator evaluator;

  /**
   * @param scan the probe scan (its Iceberg schema and projected field ids)
   * @param filters the merged runtime filters on its output columns
   */
  RuntimeFilterSplits(Scan scan, List<KeyFilter> filters) {
    Schema schema = SchemaParser.fromJson(scan.getIcebergSchemaJson());
    Expression predicate = Expressions.alwaysTrue();
    for (KeyFilter f : filters) {
      if (f.getColumn() < 0 || f.getColumn() >= scan.getProjectedFieldIdsCount()) {
        continue;
      }
      Types.NestedField field = schema.findField(scan.getProjectedFieldIds(f.getColumn()));
      if (field != null && field.type().isPrimitiveType()) {
        predicate = Expressions.and(predicate, new ProbeKeyFilter(f).iceberg(field.name(), field.type()));
      }
    }
    this.evaluator = predicate.op() == Expression.Operation.TRUE ? null
        : new InclusiveMetricsEvaluator(schema, predicate, true);
  }

  /**
   * What was kept of a scan input, and the data files and split bytes left out: a file counts once
   * per task (a large file whose pieces went to several tasks counts in each).
   */
  record Result(ScanInput kept, long filesSkipped, long bytesSkipped) {}

  /** {@code input} without the splits whose data file cannot hold a key. */
  Result apply(ScanInput input) {
    if (evaluator == null) {
      return new Result(input, 0, 0);
    }
    ScanInput.Builder kept = ScanInput.newBuilder();
    Set<String> files = new HashSet<>();
    long bytes = 0;
    for (ScanSplit split : input.getSplitsList()) {
      if (mightMatch(split)) {
        kept.addSplits(split);
      } else {
        files.add(split.getDataFilePath());
        bytes += split.getLength();
      }
    }
    return files.isEmpty() ? new Result(input, 0, 0) : new Result(kept.build(), files.size(), bytes);
  }

  /** Whether the split's data file may hold a row that passes every filter (true when unknown). */
  boolean mightMatch(ScanSplit split) {
    if (evaluator == null || split.getKeyBoundsCount() == 0) {
      return true;
    }
    try {
      return evaluator.eval(KeyBounds.dataFile(split));
    } catch (RuntimeException e) {
      // Metrics that cannot be read (written by another engine) cost the skip, never the answer.
      LOG.warn("runtime filter: keeping split of {} whose key metrics could not be tested", split.getDataFilePath(), e);
      return true;
    }
  }
}
