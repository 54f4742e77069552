package dev.squall.task;

import dev.squall.engine.EngineException;
import dev.squall.engine.FragmentExecutor;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.io.HedgeSettings;
import dev.squall.engine.io.HedgedFileIO;
import dev.squall.engine.io.HedgedRequests;
import dev.squall.engine.runtimefilter.KeySummaryBuilder;
import dev.squall.engine.spill.SpillSettings;
import dev.squall.engine.spill.TaskSpill;
import dev.squall.proto.IncompatiblePlanException;
import dev.squall.proto.WireContract;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.Partitioning;
import dev.squall.proto.v1.ResultOutput;
import dev.squall.proto.v1.S3RequestCounts;
import dev.squall.proto.v1.ShuffleOutput;
import dev.squall.proto.v1.TaskError;
import dev.squall.proto.v1.TaskMetrics;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.shuffle.MapOutput;
import dev.squall.shuffle.MapTaskAttempt;
import dev.squall.shuffle.MissingShuffleOutputException;
import dev.squall.shuffle.ShuffleCombiner;
import dev.squall.shuffle.ShuffleKeys;
import dev.squall.shuffle.ShuffleMetrics;
import dev.squall.shuffle.ShuffleReaderOptions;
import dev.squall.shuffle.ShuffleWriter;
import dev.squall.shuffle.ShuffleWriterOptions;
import dev.squall.shuffle.partition.Partitioner;
import dev.squall.shuffle.requests.CountingS3Client;
import dev.squall.shuffle.requests.S3RequestCounter;
import dev.squall.task.write.DataFileOutputSink;
import dev.squall.task.write.DeleteFileOutputSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs one attempt of one task from its {@link TaskSpec}: checks the wire-contract fingerprint,
 * reads its splits or shuffle inputs, runs its fragment with the engine, writes its output (a
 * shuffle object; for the root stage a one-partition result object; for a writer task Iceberg
 * data files) and answers with a {@link TaskResult}: the output's index or commit messages and
 * metrics, or an error with its code. A failed or cancelled attempt deletes what it wrote.
 *
 * <p>Holds no catalog configuration: data files are read by the paths and schemas in the spec,
 * through the {@link FileIO} it is given.
 */
public final class TaskRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private final S3Client s3;
  private final Function<S3RequestCounter, FileIO> fileIOs;
  private final HedgedRequests hedged;
  private final boolean ownsFileIOs;
  private final BufferAllocator rootAllocator;
  private final ShuffleReaderOptions shuffleOptions;
  private final SpillSettings spill;

  /**
   * @param s3 client for shuffle objects (not closed here)
   * @param fileIO reads Iceberg data files and writes those of writer tasks (not closed here)
   * @param rootAllocator the allocator tasks take their child allocators from
   */
  public TaskRunner(S3Client s3, FileIO fileIO, BufferAllocator rootAllocator) {
    this(s3, fileIO, rootAllocator, HedgeSettings.DEFAULT);
  }

  /**
   * @param hedging when a ranged read of a data file or a shuffle object is sent a second time
   *     ({@link HedgedFileIO}, {@link ShuffleReaderOptions#hedging()})
   */
  public TaskRunner(S3Client s3, FileIO fileIO, BufferAllocator rootAllocator, HedgeSettings hedging) {
    this(s3, fileIO, rootAllocator, hedging, SpillSettings.DISABLED);
  }

  /**
   * @param spill where operators over the memory budget spill, and how much disk a task may use
   *     ({@link SpillSettings#DISABLED}: they fail instead)
   */
  public TaskRunner(S3Client s3, FileIO fileIO, BufferAllocator rootAllocator, HedgeSettings hedging, SpillSettings spill) {
    this(s3, counted -> fileIO, false, rootAllocator, hedging, spill);
  }

  /**
   * @param fileIOs makes the FileIO of one attempt, counting its S3 requests into the attempt's counter
   *     (see {@link CountingS3Client}) so that data-file reads and writes are in its metrics; the runner
   *     closes it when the attempt ends
   */
  public TaskRunner(S3Client s3, Function<S3RequestCounter, FileIO> fileIOs, BufferAllocator rootAllocator,
      HedgeSettings hedging, SpillSettings spill) {
    this(s3, fileIOs, true, rootAllocator, hedging, spill);
  }

  private TaskRunner(S3Client s3, Function<S3RequestCounter, FileIO> fileIOs, boolean ownsFileIOs,
      BufferAllocator rootAllocator, HedgeSettings hedging, SpillSettings spill) {
    this.ownsFileIOs = ownsFileIOs;
    this.spill = spill;
    this.s3 = s3;
    this.fileIOs = fileIOs;
    this.hedged = hedging.enabled() ? new HedgedRequests(hedging) : null;
    this.rootAllocator = rootAllocator;
    this.shuffleOptions = ShuffleReaderOptions.DEFAULT.withHedging(hedging);
  }

  /**
   * Runs the attempt. Never throws for a failure of the task itself: the result carries the error.
   *
   * @param invocationEnding polled between batches; when true (the invocation's deadline is near)
   *     the attempt stops with TIMEOUT; it stops with CANCELLED once the job's cancel marker
   *     ({@link TaskSpec#getCancelMarker()}) exists
   */
  public TaskResult run(TaskSpec spec, BooleanSupplier invocationEnding) {
    return run(spec, invocationEnding, new S3RequestCounter());
  }

  /**
   * As {@link #run(TaskSpec, BooleanSupplier)}, counting every S3 request of the attempt into
   * {@code requests} (which may already hold the invocation's own, such as the spec's GET); the
   * result's metrics carry the total.
   */
  public TaskResult run(TaskSpec spec, BooleanSupplier invocationEnding, S3RequestCounter requests) {
    S3Client s3 = CountingS3Client.wrap(this.s3, requests);
    FileIO taskIO = fileIOs.apply(requests);
    try {
      return run(spec, invocationEnding, requests, s3, taskIO);
    } finally {
      if (ownsFileIOs && taskIO != null) {
        taskIO.close();
      }
    }
  }

  private TaskResult run(TaskSpec spec, BooleanSupplier invocationEnding, S3RequestCounter requests, S3Client s3,
      FileIO taskIO) {
    FileIO fileIO = hedged == null || taskIO == null ? taskIO : new HedgedFileIO(taskIO, hedged);
    long cpuStart = CPU.isCurrentThreadCpuTimeSupported() ? CPU.getCurrentThreadCpuTime() : 0;
    CancelProbe cancelled = CancelProbe.of(s3, spec.getCancelMarker(), invocationEnding);
    long start = System.nanoTime();
    TaskResult.Builder result = TaskResult.newBuilder().setJobId(spec.getJobId()).setStageId(spec.getStageId())
        .setPartition(spec.getPartition()).setAttempt(spec.getAttempt());
    try {
      WireContract.checkCompatible(spec);
    } catch (IncompatiblePlanException e) {
      return result.setError(error(ErrorCode.INCOMPATIBLE_PLAN, e.getMessage())).build();
    }
    if (spec.getFragment().hasShuffleCombine()) {
      try {
        combine(spec, s3, cancelled).addTo(result);
      } catch (RuntimeException e) {
        result.setError(errorOf(e, spec, invocationEnding));
      }
      return finish(result, start, cpuStart, requests, cancelled);
    }
    TaskInputs inputs = new TaskInputs(spec, fileIO, s3, shuffleOptions, cancelled);
    // Every spill file of the attempt is deleted when it ends, fails or is cancelled.
    TaskSpill spillFiles = new TaskSpill(spill);
    try (spillFiles; BufferAllocator allocator = rootAllocator.newChildAllocator(
        "task " + spec.getStageId() + "." + spec.getPartition() + " attempt " + spec.getAttempt(), 0, Long.MAX_VALUE)) {
      OutputSink writer = openSink(spec, allocator, cancelled, s3, fileIO);
      // Build side of runtime filters: the keys of the rows written.
      List<KeySummaryBuilder> keySummaries = spec.getKeySummariesList().stream().map(KeySummaryBuilder::new).toList();
      long rows;
      long peak;
      try (FragmentExecutor.Execution run = FragmentExecutor.execute(spec.getFragment(), inputs, allocator,
          spec.getMemoryBudgetBytes(), cancelled, spillFiles)) {
        rows = 0;
        if (writer.keepsNoBatch()) {
          // Runtime-filter key summaries copy the keys too, so nothing here keeps a batch.
          run.promiseConsumerKeepsNoBatch();
        }
        // Every operator polls `cancelled` at each batch (EngineException CANCELLED, caught below).
        while (run.hasNext()) {
          ColumnBatch batch = run.nextBatch();
          rows += batch.rows();
          for (KeySummaryBuilder k : keySummaries) {
            k.add(batch);
          }
          writer.write(batch, run.schema(), allocator);
        }
        peak = run.peakMemoryBytes();
        result.getMetricsBuilder().addAllOperators(run.operatorMetrics());
      } catch (RuntimeException e) {
        writer.abort();
        throw e;
      }
      writer.finish(result);
      keySummaries.forEach(k -> result.addKeySummaries(k.toProto()));
      TaskMetrics.Builder metrics = result.getMetricsBuilder();
      metrics.setRowsWritten(rows).setPeakMemoryBytes(peak).setBytesScanned(scannedBytes(spec));
      for (ShuffleMetrics m : inputs.readerMetrics()) {
        metrics.setBytesShuffleRead(metrics.getBytesShuffleRead() + m.bytesRead())
            .setRowsRead(metrics.getRowsRead() + m.rowsRead());
      }
    } catch (RuntimeException e) {
      result.setError(errorOf(e, spec, invocationEnding));
    }
    result.getMetricsBuilder().setBytesSpilled(spillFiles.bytesSpilled());
    return finish(result, start, cpuStart, requests, cancelled);
  }

  /** The task's error for a failure of the attempt. */
  private static TaskError errorOf(RuntimeException failure, TaskSpec spec, BooleanSupplier invocationEnding) {
    if (failure instanceof MissingShuffleOutputException e) {
      return e.toTaskError();
    }
    if (failure instanceof EngineException e) {
      // Stopped because the invocation's own time is up, not by the job's cancel marker: a
      // retriable TIMEOUT, so the scheduler runs the task again as a new attempt.
      boolean deadline = e.code() == ErrorCode.CANCELLED && invocationEnding.getAsBoolean();
      return deadline ? error(ErrorCode.TIMEOUT, "task attempt stopped at the task function's time limit")
          : error(e.code(), e.getMessage());
    }
    if (failure instanceof SdkException e) {
      return error(ErrorCode.EXTERNAL, "S3 request failed: " + e.getMessage());
    }
    LOG.warn("task {}.{} attempt {} failed", spec.getStageId(), spec.getPartition(), spec.getAttempt(), failure);
    // The exception (its class and text) stays in this function's log: users read the error.
    return error(ErrorCode.INTERNAL_ERROR, "internal error in task " + spec.getStageId() + "."
        + spec.getPartition() + " attempt " + spec.getAttempt() + " (details in the task function's log)");
  }

  /** Adds the attempt's wall and CPU time and S3 requests to its metrics. */
  private static TaskResult finish(TaskResult.Builder result, long start, long cpuStart, S3RequestCounter requests,
      CancelProbe cancelled) {
    cancelled.stop(); // its last HEAD is counted below, and none follows
    result.getMetricsBuilder().setWallMillis((System.nanoTime() - start) / 1_000_000);
    if (CPU.isCurrentThreadCpuTimeSupported()) {
      result.getMetricsBuilder().setCpuMillis((CPU.getCurrentThreadCpuTime() - cpuStart) / 1_000_000);
    }
    S3RequestCounts counted = requests.toProto();
    result.getMetricsBuilder().setS3(counted).setS3PutRequests(counted.getPut()).setS3GetRequests(counted.getGet());
    return result.build();
  }

  /**
   * A combiner task ({@link ShuffleCombiner}): the whole map outputs of its one shuffle input, copied
   * into one object grouped by the partitions of its shuffle output.
   */
  private MapOutput combine(TaskSpec spec, S3Client s3, BooleanSupplier cancelled) {
    ShuffleOutput out = shuffleOutputOf(spec);
    int partitions = Partitioner.of(out.getPartitioning()).partitionCount();
    String key = ShuffleKeys.mapOutputKey(out.getJobPrefix(), spec.getStageId(), spec.getPartition(), spec.getAttempt());
    ShuffleCombiner.Target target = new ShuffleCombiner.Target(out.getBucket(), key,
        new MapTaskAttempt(spec.getStageId(), spec.getPartition(), spec.getAttempt()), partitions,
        ShuffleWriterOptions.DEFAULT.partSizeBytes());
    return ShuffleCombiner.combine(s3, spec.getInputs(spec.getFragment().getShuffleCombine().getInputIndex()).getShuffle(),
        target, shuffleOptions, cancelled);
  }

  /** The sink for the spec's output kind: data files for a writer task, else a shuffle/result object. */
  private static OutputSink openSink(TaskSpec spec, BufferAllocator allocator, BooleanSupplier cancelled, S3Client s3,
      FileIO fileIO) {
    if (spec.getOutput().hasDataFiles()) {
      return DataFileOutputSink.open(spec, fileIO, cancelled);
    }
    if (spec.getOutput().hasDeleteFiles()) {
      return DeleteFileOutputSink.open(spec, fileIO, cancelled);
    }
    // A small result goes back in the task's answer, not through S3 (ResultOutput.inline_max_bytes).
    long inline = spec.getOutput().hasResult() ? spec.getOutput().getResult().getInlineMaxBytes() : 0;
    return new ShuffleOutputSink(ShuffleWriter.open(s3, allocator, shuffleOutputOf(spec),
        new MapTaskAttempt(spec.getStageId(), spec.getPartition(), spec.getAttempt()),
        ShuffleWriterOptions.forMemoryBudget(spec.getMemoryBudgetBytes()).withInlineMaxBytes(inline)));
  }

  /** Bytes of data-file ranges the task's splits cover. */
  static long scannedBytes(TaskSpec spec) {
    long bytes = 0;
    for (var input : spec.getInputsList()) {
      for (var split : input.getScan().getSplitsList()) {
        bytes += split.getLength();
      }
    }
    return bytes;
  }

  /** The shuffle output of the spec; a result output is written as one partition. */
  static ShuffleOutput shuffleOutputOf(TaskSpec spec) {
    if (spec.getOutput().hasShuffle()) {
      return spec.getOutput().getShuffle();
    }
    if (spec.getOutput().hasResult()) {
      ResultOutput r = spec.getOutput().getResult();
      return ShuffleOutput.newBuilder().setBucket(r.getBucket()).setJobPrefix(r.getJobPrefix())
          .setCompression(r.getCompression())
          .setPartitioning(Partitioning.newBuilder().setSingle(Partitioning.Single.getDefaultInstance()))
          .build();
    }
    throw new EngineException(ErrorCode.INTERNAL_ERROR, "task output " + spec.getOutput().getKindCase() + " is not supported yet");
  }

  private static TaskError error(ErrorCode code, String message) {
    return TaskError.newBuilder().setCode(code).setMessage(message).build();
  }
}
