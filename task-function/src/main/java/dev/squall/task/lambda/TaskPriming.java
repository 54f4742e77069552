package dev.squall.task.lambda;

import dev.squall.engine.warmup.Warmup;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.shuffle.s3.S3Warmup;
import java.time.Duration;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SnapStart priming of the task function: before Lambda takes the snapshot of an initialised
 * sandbox ({@link #beforeCheckpoint}), loads and runs Arrow, Iceberg, the task payload codec and
 * the S3 client pipeline, so that a restored sandbox does not pay for class loading on its first
 * task. Resolves no credential and keeps nothing: the snapshot holds no secret. A failed warm-up
 * is logged and ignored (the function works unprimed).
 */
public final class TaskPriming implements Resource {
  private static final Logger LOG = LoggerFactory.getLogger(TaskPriming.class);
  /** CRaC keeps resources weakly: this reference keeps the registered one alive. */
  private static TaskPriming registered;

  /** Registers the priming with CRaC's global context once; a no-op on a JVM without CRaC. */
  public static synchronized void register() {
    if (registered == null) {
      registered = new TaskPriming();
      Core.getGlobalContext().register(registered);
    }
  }

  /**
   * The warm-up itself.
   *
   * @return how long it took
   */
  public static Duration prime() {
    long start = System.nanoTime();
    try {
      Warmup.arrowAndIceberg(3);
      TaskPayloads.decodeSpec(TaskPayloads.encodeSpec(TaskSpec.newBuilder().setJobId("warmup").build()));
      S3Warmup.getObject(2);
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("task function priming failed; the function runs unprimed: {}", e.toString());
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Override
  public void beforeCheckpoint(Context<? extends Resource> context) {
    LOG.info("task function primed in {} ms", prime().toMillis());
  }

  @Override
  public void afterRestore(Context<? extends Resource> context) {
    // Nothing to refresh: priming keeps no connection, credential or clock reading.
  }
}
