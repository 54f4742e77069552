package dev.squall.coordinator.scheduler;

import dev.squall.engine.runtimefilter.KeyFilters;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.KeySummary;
import dev.squall.proto.v1.KeySummaryRequest;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runtime filters (dynamic filtering) at the coordinator: which build tasks summarise their keys,
 * the merge of the build stage's winning summaries into one filter per key column, and the probe
 * task's fragment with those filters on its scan. A filter is formed only when every build task's
 * winner reported its summary; otherwise the probe scan runs unfiltered (always correct).
 */
final class RuntimeFilters {
  private final StageGraph graph;
  /** Merged filters by filter id, once formed (empty: none can be formed). */
  private final Map<Integer, Optional<List<KeyFilter>>> merged = new HashMap<>();

  RuntimeFilters(StageGraph graph) {
    this.graph = graph;
  }

  /** What a task of {@code stageId} summarises of the keys it writes. */
  List<KeySummaryRequest> requests(int stageId) {
    List<KeySummaryRequest> out = new ArrayList<>();
    for (RuntimeFilter f : graph.getRuntimeFiltersList()) {
      if (f.getBuildStageId() == stageId) {
        out.add(KeySummaryRequest.newBuilder().setFilterId(f.getFilterId()).addAllColumns(f.getBuildColumnsList())
            .setMaxKeys(f.getMaxKeys()).build());
      }
    }
    return out;
  }

  /** The filters whose probe scan is in {@code stageId}. */
  List<RuntimeFilter> probing(int stageId) {
    return graph.getRuntimeFiltersList().stream().filter(f -> f.getProbeStageId() == stageId).toList();
  }

  /**
   * The probe task's fragment with every formed filter on its scan: {@code fragment} unchanged when
   * none is formed (a build stage not finished, a summary missing).
   */
  Operator apply(int stageId, Operator fragment, Map<Integer, TaskResult[]> winners) {
    Operator out = fragment;
    for (RuntimeFilter f : probing(stageId)) {
      Optional<List<KeyFilter>> filters = merged.get(f.getFilterId());
      if (filters == null) {
        TaskResult[] build = winners.get(f.getBuildStageId());
        if (build == null || java.util.Arrays.asList(build).contains(null)) {
          continue; // not finished (the wait ran out): unfiltered
        }
        filters = merge(f, build);
        merged.put(f.getFilterId(), filters);
      }
      if (filters.isPresent()) {
        out = onScan(out, f.getProbeScanInputIndex(), filters.get());
      }
    }
    return out;
  }

  /** One filter per probe column from the build winners' summaries, or empty when one is missing. */
  static Optional<List<KeyFilter>> merge(RuntimeFilter f, TaskResult[] build) {
    List<KeyFilter> out = new ArrayList<>();
    for (int k = 0; k < f.getBuildColumnsCount(); k++) {
      int column = f.getBuildColumns(k);
      int probe = k;
      List<KeyFilter> parts = new ArrayList<>();
      for (TaskResult r : build) {
        KeyFilter part = null;
        for (KeySummary s : r.getKeySummariesList()) {
          if (s.getFilterId() == f.getFilterId()) {
            for (KeyFilter c : s.getColumnsList()) {
              if (c.getColumn() == column) {
                part = c;
              }
            }
          }
        }
        if (part == null) {
          parts = null;
          break;
        }
        parts.add(part);
      }
      if (parts == null) {
        continue; // this column was not summarised everywhere: no filter on it
      }
      KeyFilters.merge(parts, f.getMaxKeys())
          .ifPresent(m -> out.add(m.toBuilder().setColumn(f.getProbeColumns(probe)).build()));
    }
    return out.isEmpty() ? Optional.empty() : Optional.of(out);
  }

  /** {@code op} with {@code filters} added to its Scan of input {@code inputIndex}. */
  static Operator onScan(Operator op, int inputIndex, List<KeyFilter> filters) {
    return Fragments.replace(op, o -> !o.hasScan() || o.getScan().getInputIndex() != inputIndex ? o
        : o.toBuilder().setScan(o.getScan().toBuilder().addAllRuntimeFilters(filters)).build());
  }
}
