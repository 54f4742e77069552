package dev.squall.planner.optimize;

import dev.squall.planner.PlanningException;
import org.apache.calcite.plan.RelOptListener;

/**
 * Stops planning on a thread that was interrupted (the coordinator interrupts its planning thread
 * when the job is cancelled or its planning time limit passes). Calcite's {@code HepPlanner} does
 * not look at its {@code CancelFlag}, so the check runs before every rule Calcite attempts (as a
 * {@link RelOptListener}) and between the optimizer's phases; a single rule application is not
 * cut short.
 */
public final class PlanningInterrupts implements RelOptListener {
  /** One listener serves every planner: it only reads the current thread's state. */
  public static final PlanningInterrupts LISTENER = new PlanningInterrupts();

  private PlanningInterrupts() {}

  /**
   * @throws PlanningException INTERNAL "planning was stopped" if the current thread was interrupted
   */
  public static void check() {
    if (Thread.currentThread().isInterrupted()) {
      throw PlanningException.unpositioned(PlanningException.Code.INTERNAL, "planning was stopped");
    }
  }

  @Override
  public void ruleAttempted(RuleAttemptedEvent event) {
    check();
  }

  @Override
  public void relEquivalenceFound(RelEquivalenceEvent event) {}

  @Override
  public void ruleProductionSucceeded(RuleProductionEvent event) {}

  @Override
  public void relDiscarded(RelDiscardedEvent event) {}

  @Override
  public void relChosen(RelChosenEvent event) {}
}
