package dev.squall.coordinator.scheduler;

import dev.squall.engine.runtimefilter.KeyFilters;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.KeySummary;
import dev.squall.proto.v1.KeySummaryRequest;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.RuntimeFilter;
import dev.squall.proto.v1.Scan;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.StageGraph;
import dev.squall.proto.v1.TaskResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Runtime filters (dynamic filtering) at the coordinator: which build tasks summarise their keys,
 * the merge of the build stage's winning summaries into one filter per key column, and the probe
 * task's fragment with those filters on its scan and its splits without the data files they rule
 * out. A filter is formed only when every build task's winner reported its summary; otherwise the
 * probe scan runs unfiltered (always correct).
 */
final class RuntimeFilters {
  private final StageGraph graph;
  /** Merged filters by filter id, once formed (empty: none can be formed). */
  private final Map<Integer, Optional<List<KeyFilter>>> merged = new HashMap<>();
  /** File skipping by stage, scan input and the filters formed on it. */
  private final Map<String, RuntimeFilterSplits> splitFilters = new HashMap<>();

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

  /** A probe task's fragment and scan inputs once the formed runtime filters are applied. */
  record Applied(Operator fragment, Map<Integer, ScanInput> scans) {}

  /**
   * The probe task's fragment with every formed filter on its scan, and its scan inputs without the
   * splits whose data files those filters rule out by their key bounds ({@link RuntimeFilterSplits};
   * the scan is told how many it lost, for its metrics). Both unchanged when no filter is formed (a
   * build stage not finished, a summary missing).
   *
   * @param scans the task's splits by Scan input index (empty for a stage without scans)
   */
  Applied apply(int stageId, Operator fragment, Map<Integer, ScanInput> scans, Map<Integer, TaskResult[]> winners) {
    Map<Integer, List<KeyFilter>> byInput = new TreeMap<>();
    Map<Integer, List<Integer>> idsByInput = new TreeMap<>();
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
        byInput.computeIfAbsent(f.getProbeScanInputIndex(), k -> new ArrayList<>()).addAll(filters.get());
        idsByInput.computeIfAbsent(f.getProbeScanInputIndex(), k -> new ArrayList<>()).add(f.getFilterId());
      }
    }
    Operator out = fragment;
    Map<Integer, ScanInput> inputs = new HashMap<>(scans);
    for (Map.Entry<Integer, List<KeyFilter>> e : byInput.entrySet()) {
      int index = e.getKey();
      ScanInput input = scans.get(index);
      Scan scan = scanOf(fragment, index);
      RuntimeFilterSplits.Result skipped = input == null || scan == null ? new RuntimeFilterSplits.Result(input, 0, 0)
          : splitFilters.computeIfAbsent(stageId + "/" + index + "/" + idsByInput.get(index),
              k -> new RuntimeFilterSplits(scan, e.getValue())).apply(input);
      if (input != null) {
        inputs.put(index, skipped.kept());
      }
      out = onScan(out, index, e.getValue(), skipped.filesSkipped(), skipped.bytesSkipped());
    }
    return new Applied(out, inputs);
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

  /**
   * {@code op} with {@code filters} added to its Scan of input {@code inputIndex}, which is told of
   * the data files and split bytes the coordinator left out of its splits.
   */
  static Operator onScan(Operator op, int inputIndex, List<KeyFilter> filters, long filesSkipped, long bytesSkipped) {
    return Fragments.replace(op, o -> !o.hasScan() || o.getScan().getInputIndex() != inputIndex ? o
        : o.toBuilder().setScan(o.getScan().toBuilder().addAllRuntimeFilters(filters)
            .setRuntimeFilterFilesSkipped(filesSkipped).setRuntimeFilterFileBytesSkipped(bytesSkipped)).build());
  }

  /** The Scan of input {@code inputIndex} in {@code op}, or null when it has none. */
  static Scan scanOf(Operator op, int inputIndex) {
    Operator found = dev.squall.proto.OperatorTree.scan(op, inputIndex);
    return found == null ? null : found.getScan();
  }
}
