package dev.squall.coordinator.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Task-size tiers: the task function deployed in a few memory sizes (Lambda's memory, and with it
 * its CPU share, is fixed per function), smallest first. The coordinator sends each stage to the
 * smallest tier whose task memory budget holds the stage's estimated peak ({@link
 * StageMemoryEstimate}), and an attempt that fails for memory (INSUFFICIENT_RESOURCES) to the next
 * larger tier ({@link StageScheduler}). A deployment with one task function has one tier.
 *
 * <p>On AWS the tiers come from {@code SQUALL_TASK_TIERS} (JSON, {@link #parse}), which the Terraform
 * module sets from {@code task_memory_tiers_mb}; locally from {@code squall local --task-memory-tiers}.
 */
public record TaskTiers(List<Tier> tiers) {
  /** At most this many tiers (each is a function with its own reserved concurrency). */
  public static final int MAX_TIERS = 4;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One tier: the function (name, ARN or alias ARN) tasks of this tier are invoked on, and its
   * memory size in MB.
   */
  public record Tier(String function, int memoryMb) {
    public Tier {
      if (function == null || function.isBlank()) {
        throw new IllegalArgumentException("a task tier needs a function");
      }
      if (memoryMb < 1 || memoryMb > 10_240) {
        throw new IllegalArgumentException("task tier memory must be 1 to 10240 MB, not " + memoryMb);
      }
    }

    /** The Arrow memory a task of this tier may hold: 60% of the function's memory (as a single function's). */
    public long budgetBytes() {
      return budgetBytes(memoryMb);
    }

    /** 60% of {@code memoryMb}, leaving the rest to the JVM heap, the runtime and I/O buffers. */
    public static long budgetBytes(long memoryMb) {
      return memoryMb * 1024 * 1024 * 6 / 10;
    }
  }

  public TaskTiers {
    if (tiers.isEmpty() || tiers.size() > MAX_TIERS) {
      throw new IllegalArgumentException("1 to " + MAX_TIERS + " task tiers, not " + tiers.size());
    }
    tiers = tiers.stream().sorted(Comparator.comparingInt(Tier::memoryMb)).toList();
    for (int i = 1; i < tiers.size(); i++) {
      if (tiers.get(i).memoryMb() == tiers.get(i - 1).memoryMb()) {
        throw new IllegalArgumentException("two task tiers of " + tiers.get(i).memoryMb() + " MB");
      }
    }
  }

  /** One task function of {@code memoryMb}: every stage runs on it, as before tiers. */
  public static TaskTiers single(String function, int memoryMb) {
    return new TaskTiers(List.of(new Tier(function, memoryMb)));
  }

  /**
   * Reads {@code SQUALL_TASK_TIERS}: a JSON array of {@code {"function": "...", "memoryMb": N}}, 1 to
   * {@value #MAX_TIERS} of them, memory 1-10240 MB (Lambda's floor of 128 is Lambda's to enforce).
   *
   * @throws IllegalArgumentException naming the setting for a malformed value
   */
  public static TaskTiers parse(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      if (node == null || !node.isArray()) {
        throw new IllegalArgumentException("SQUALL_TASK_TIERS must be a JSON array of {\"function\", \"memoryMb\"}");
      }
      List<Tier> tiers = new ArrayList<>();
      for (JsonNode t : node) {
        if (!t.path("function").isTextual() || !t.path("memoryMb").canConvertToInt()) {
          throw new IllegalArgumentException("SQUALL_TASK_TIERS: every tier needs \"function\" and \"memoryMb\"");
        }
        tiers.add(new Tier(t.path("function").asText(), t.path("memoryMb").asInt()));
      }
      return new TaskTiers(tiers);
    } catch (IOException e) {
      throw new IllegalArgumentException("SQUALL_TASK_TIERS is not JSON: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw e.getMessage().startsWith("SQUALL_TASK_TIERS") ? e
          : new IllegalArgumentException("SQUALL_TASK_TIERS: " + e.getMessage());
    }
  }

  /** Whether there is more than one tier to choose from. */
  public boolean tiered() {
    return tiers.size() > 1;
  }

  public Tier smallest() {
    return tiers.get(0);
  }

  public Tier largest() {
    return tiers.get(tiers.size() - 1);
  }

  /** The tier of exactly this memory size, or the smallest one when none has it (0: not tiered). */
  public Tier byMemory(int memoryMb) {
    for (Tier t : tiers) {
      if (t.memoryMb() == memoryMb) {
        return t;
      }
    }
    return smallest();
  }

  /**
   * The tier a stage starts on: the smallest whose budget holds {@code estimatedBytes} (the largest
   * allowed when none does), within what the query allows.
   */
  public Tier forEstimate(long estimatedBytes, Request request) {
    Tier cap = cap(request);
    if (request.startMb() > 0) {
      for (Tier t : tiers) {
        if (t.memoryMb() >= request.startMb() || t.equals(cap)) {
          return t;
        }
      }
      return cap;
    }
    for (Tier t : tiers) {
      if (t.budgetBytes() >= estimatedBytes || t.equals(cap)) {
        return t;
      }
    }
    return cap;
  }

  /** The next larger tier than {@code current} that the query allows, or null when there is none. */
  public Tier next(Tier current, Request request) {
    Tier cap = cap(request);
    if (current.memoryMb() >= cap.memoryMb()) {
      return null;
    }
    for (Tier t : tiers) {
      if (t.memoryMb() > current.memoryMb()) {
        return t;
      }
    }
    return null;
  }

  /** The largest tier the query allows: the largest of at most {@code maxMb} (the smallest tier if none is). */
  private Tier cap(Request request) {
    Tier cap = smallest();
    for (Tier t : tiers) {
      if (request.maxMb() <= 0 || t.memoryMb() <= request.maxMb()) {
        cap = t;
      }
    }
    return cap;
  }

  /**
   * What a query asks of the tiers (query properties {@code task_memory_tier_mb} and {@code
   * max_task_memory_tier_mb}).
   *
   * @param startMb above 0: every stage starts on the smallest tier of at least this many MB (the
   *     largest allowed when none has that much), whatever its estimate; 0: by the estimate
   * @param maxMb above 0: no attempt runs on a tier larger than this many MB (the smallest tier
   *     when every tier is larger); a memory failure there fails the task as without tiers; 0: no cap
   */
  public record Request(int startMb, int maxMb) {
    /** Tiers by the estimates, up to the largest. */
    public static final Request AUTO = new Request(0, 0);
  }
}
