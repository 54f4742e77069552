package dev.squall.local.faults;

import java.util.Optional;
import java.util.Set;

/**
 * The fault plan a local stack runs under; replaced as a whole at run time
 * ({@code PUT /_local/faults}). The parts of the stack ask it at each fault point.
 */
public final class Faults {
  private volatile FaultPlan plan = FaultPlan.none();

  /** Installs {@code next}; rules of the previous plan stop acting. */
  public void install(FaultPlan next) {
    plan = next;
  }

  /** The plan in force. */
  public FaultPlan plan() {
    return plan;
  }

  /** As {@link FaultPlan#fire}, on the plan in force. */
  public Optional<FaultRule> fire(FaultPoint point, Set<FaultAction> actions) {
    return plan.fire(point, actions);
  }

  /** Sleeps, for HANG and DELAY. */
  public static void pause(FaultRule rule) {
    try {
      Thread.sleep(rule.duration().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
