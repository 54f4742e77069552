package dev.squall.coordinator.cost;

import dev.squall.proto.v1.QueryCost;
import dev.squall.proto.v1.S3RequestCounts;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.shuffle.requests.S3RequestCounter;
import java.util.List;

/**
 * Computes a job's {@link QueryCost} from what its task attempts reported and what the coordinator
 * metered; the formula is written out in docs/cost.md.
 */
public final class QueryCosts {
  private static final double MB_PER_GB = 1024.0;

  private final CostSettings settings;

  public QueryCosts(CostSettings settings) {
    this.settings = settings;
  }

  /** The settings costs are computed with. */
  public CostSettings settings() {
    return settings;
  }

  /**
   * GB-seconds of one task attempt: its invocation time (its run time when the invocation's was not
   * reported) plus its instance's init time, times its function's memory (the configured task memory
   * when it did not report it).
   */
  public double taskGbSeconds(TaskMetrics m) {
    long millis = (m.getInvocationMillis() > 0 ? m.getInvocationMillis() : m.getWallMillis()) + m.getInitMillis();
    return millis / 1000.0 * (memoryMb(m) / MB_PER_GB);
  }

  /**
   * The memory an attempt's function has: as the attempt reported it, else that of the task-size
   * tier the coordinator sent it to (at least Lambda's 128 MB), else the configured task memory.
   * An invoker invocation runs on the tier of the tasks it invokes, so its memory is its carrier's.
   */
  private int memoryMb(TaskMetrics m) {
    if (m.getFunctionMemoryMb() > 0) {
      return m.getFunctionMemoryMb();
    }
    return m.getTierMemoryMb() > 0 ? Math.max(128, m.getTierMemoryMb()) : settings.taskMemoryMb();
  }

  /**
   * The cost of a job.
   *
   * @param attempts the metrics of every task attempt (empty metrics for attempts that never answered)
   * @param wallMillis the job's wall time, which the coordinator's invocations spanned
   * @param coordinatorInvocations invocations of the coordinator that drove the job
   * @param meter what the coordinator metered for the job (null: nothing)
   * @param bytesScanned bytes of data files the job's splits covered
   */
  public QueryCost of(List<TaskMetrics> attempts, long wallMillis, long coordinatorInvocations, JobMeter meter,
      long bytesScanned) {
    double taskGbs = 0;
    double invokerGbs = 0;
    long invokers = 0;
    S3RequestCounts taskS3 = S3RequestCounts.getDefaultInstance();
    for (TaskMetrics m : attempts) {
      taskGbs += taskGbSeconds(m);
      if (m.getInvokerMillis() > 0) {
        invokers++;
        invokerGbs += m.getInvokerMillis() / 1000.0 * ((m.getTierMemoryMb() > 0 ? memoryMb(m) : settings.taskMemoryMb()) / MB_PER_GB);
      }
      taskS3 = S3RequestCounter.plus(taskS3, m.getS3());
    }
    double coordinatorGbs = wallMillis / 1000.0 * (settings.coordinatorMemoryMb() / MB_PER_GB);
    S3RequestCounts coordinatorS3 = meter == null ? S3RequestCounts.getDefaultInstance() : meter.s3().toProto();
    long reads = meter == null ? 0 : meter.storeReads();
    long writes = meter == null ? 0 : meter.storeWrites();
    long invocations = attempts.size() + invokers + coordinatorInvocations;
    S3RequestCounts all = S3RequestCounter.plus(taskS3, coordinatorS3);
    PriceTable p = settings.prices();
    double dollars = (taskGbs + invokerGbs + coordinatorGbs) * p.lambdaGbSecond() + invocations * p.lambdaRequest()
        + (all.getPut() + all.getList()) * p.s3Put() + (all.getGet() + all.getHead()) * p.s3Get()
        + reads * p.dynamoDbRead() + writes * p.dynamoDbWrite();
    return QueryCost.newBuilder().setTaskGbSeconds(taskGbs).setCoordinatorGbSeconds(coordinatorGbs)
        .setInvocations(invocations).setTaskInvocations(attempts.size())
        .setCoordinatorInvocations(coordinatorInvocations).setS3(taskS3).setCoordinatorS3(coordinatorS3)
        .setJobStoreReads(reads).setJobStoreWrites(writes).setBytesScanned(bytesScanned).setDollars(dollars)
        .setPriceTable(p.name()).setInvokerInvocations(invokers).setInvokerGbSeconds(invokerGbs).build();
  }
}
