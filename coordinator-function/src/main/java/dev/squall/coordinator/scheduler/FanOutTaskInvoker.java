package dev.squall.coordinator.scheduler;

import dev.squall.invoke.TaskLambdaClients;
import dev.squall.proto.FanOutPayloads;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.ErrorCode;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;

/**
 * Two-level invocation (after Lambada, Müller et al., SIGMOD 2020, whose workers invoke workers):
 * when more than {@link FanOutSettings#threshold()} tasks of one stage start together (announced by
 * {@link #stageStarting}), the
 * coordinator sends about √N invoker invocations (the task function in its invoker role,
 * {@link FanOutPayloads}) instead of N task invocations; each invoker invokes its share of the tasks
 * and answers with their results. Fewer tasks (retries, small stages) go straight to the task
 * function through {@code direct}.
 *
 * <p>Attempts stay the coordinator's: every task passes the scheduler's start gate (its concurrency
 * slots taken, its attempt number recorded in the job store) before its invoker is invoked, and every
 * task's result (or an invoker's failure, as an EXTERNAL error of each of its tasks) goes back to the
 * scheduler, which alone decides retries. An invoker holds no catalog and no job store: it forwards
 * the payloads it is given.
 */
public final class FanOutTaskInvoker implements TaskInvoker, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FanOutTaskInvoker.class);
  /**
   * How long a task's admission may take before the tasks admitted before it are sent: longer than
   * a busy job store takes to record a start, so that only a wait for concurrency slots splits a share.
   */
  private static final long ADMIT_WAIT_MILLIS = 2000;

  private final LambdaTaskInvoker direct;
  private final LambdaClient lambda;
  private final String functionName;
  private final TaskPayloadStore payloads;
  private final FanOutSettings settings;
  /** Runs shares, invoker invocations and gate admissions; bounded by the shares and the slots they hold. */
  private final ExecutorService threads;
  /** Stages whose start was announced and whose launches are being collected, by "job/stage". */
  private final Map<String, StageStart> starting = new HashMap<>();
  private final AtomicInteger invokerInvocations = new AtomicInteger();

  private record Launch(TaskSpec spec, StartGate gate, CompletableFuture<TaskResult> result) {}

  private record StageStart(int tasks, List<Launch> launches) {}

  /**
   * @param direct invokes single tasks (and sets the payload store and throttle re-sends used here too)
   * @param lambda a client set up by {@link TaskLambdaClients} (its read timeout above the task function's)
   * @param functionName the task function, which also plays the invoker
   * @param payloads stores specs and reads answers over Lambda's payload limit
   */
  public FanOutTaskInvoker(LambdaTaskInvoker direct, LambdaClient lambda, String functionName, TaskPayloadStore payloads,
      FanOutSettings settings) {
    this.direct = direct;
    this.lambda = lambda;
    this.functionName = functionName;
    this.payloads = payloads;
    this.settings = settings;
    AtomicInteger n = new AtomicInteger();
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "squall-fanout-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public void stageStarting(String jobId, int stageId, int tasks) {
    if (tasks > settings.threshold()) {
      synchronized (starting) {
        starting.put(jobId + "/" + stageId, new StageStart(tasks, new ArrayList<>()));
      }
    }
  }

  @Override
  public CompletableFuture<TaskResult> invoke(TaskSpec spec, StartGate gate) {
    Launch launch = new Launch(spec, gate, new CompletableFuture<>());
    String stageKey = spec.getJobId() + "/" + spec.getStageId();
    boolean collected = false;
    List<Launch> allCollected = null;
    synchronized (starting) {
      StageStart start = starting.get(stageKey);
      if (start != null) {
        collected = true;
        start.launches().add(launch);
        if (start.launches().size() == start.tasks()) {
          starting.remove(stageKey);
          allCollected = start.launches();
        }
      }
    }
    if (allCollected != null) {
      List<Launch> stage = allCollected;
      threads.execute(() -> startShares(stage));
    } else if (!collected) {
      direct.invoke(spec, gate).whenComplete((r, e) -> complete(launch, r, e));
    }
    return launch.result();
  }

  /** Invoker invocations sent so far. */
  public int invokerInvocations() {
    return invokerInvocations.get();
  }

  /** Splits a starting stage's launches into ⌈√N⌉ shares, each sent through one invoker. */
  private void startShares(List<Launch> stage) {
    int groups = settings.invokersFor(stage.size());
    List<List<Launch>> shares = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      shares.add(new ArrayList<>());
    }
    for (int i = 0; i < stage.size(); i++) {
      shares.get(i % groups).add(stage.get(i));
    }
    LOG.info("stage {}: {} tasks through {} invoker invocations", stage.get(0).spec().getStageId(), stage.size(), groups);
    shares.forEach(share -> threads.execute(() -> runShare(share)));
  }

  private static void complete(Launch l, TaskResult r, Throwable e) {
    if (e != null) {
      l.result().completeExceptionally(e);
    } else {
      l.result().complete(r);
    }
  }

  /**
   * Admits the share's tasks through their gates, then invokes one invoker for those admitted. A gate
   * that waits (the account's or the job's concurrency slots are all taken) first sends the tasks
   * admitted so far, so that no share holds slots idle while it waits for more.
   */
  private void runShare(List<Launch> share) {
    List<Launch> admitted = new ArrayList<>();
    for (Launch l : share) {
      Future<Boolean> admission = threads.submit(() -> l.gate().admit(l.spec()));
      boolean ok;
      try {
        try {
          ok = admission.get(ADMIT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (!admitted.isEmpty()) {
            List<Launch> ready = admitted;
            threads.execute(() -> sendInvoker(ready));
            admitted = new ArrayList<>();
          }
          ok = admission.get();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        ok = false;
      } catch (ExecutionException e) {
        // As the direct invoker does: the scheduler sees the attempt fail (INTERNAL_ERROR, retried).
        l.result().completeExceptionally(e.getCause());
        continue;
      }
      if (ok) {
        admitted.add(l);
      } else {
        l.result().complete(null); // never sent
      }
    }
    if (!admitted.isEmpty()) {
      sendInvoker(admitted);
    }
  }

  /** Invokes one invoker for tasks already admitted and completes each with its result. */
  private void sendInvoker(List<Launch> admitted) {
    if (direct.tiers() != null) {
      // A task on another tier than the share's first (a resumed job's escalated task) goes straight to its tier.
      String tier = direct.functionFor(admitted.get(0).spec());
      List<Launch> same = new ArrayList<>();
      for (Launch l : admitted) {
        if (direct.functionFor(l.spec()).equals(tier)) {
          same.add(l);
        } else {
          direct.invoke(l.spec(), s -> true).whenComplete((r, e) -> complete(l, r, e));
        }
      }
      admitted = same;
    }
    List<byte[]> requests = new ArrayList<>();
    try {
      for (Launch l : admitted) {
        requests.add(payloads != null ? payloads.request(l.spec()) : TaskPayloads.encodeSpec(l.spec()));
      }
    } catch (RuntimeException e) {
      failAll(admitted, "task invocation failed: " + e.getMessage(), System.nanoTime());
      return;
    }
    byte[] encoded = FanOutPayloads.encodeRequest(requests);
    if (encoded.length > TaskPayloads.MAX_INLINE_PAYLOAD_BYTES) {
      // Specs too large to travel together: each goes straight to the task function (already admitted).
      admitted.forEach(l -> direct.invoke(l.spec(), s -> true).whenComplete((r, e) -> complete(l, r, e)));
      return;
    }
    List<FanOutPayloads.TaskAnswer> answers;
    long sent = System.nanoTime();
    // The invoker's own cost rides on its first task's result (TaskMetrics.invoker_millis).
    Launch carrier = admitted.get(0);
    try {
      invokerInvocations.incrementAndGet();
      SdkBytes request = SdkBytes.fromByteArray(encoded);
      // The invoker runs on the tier of the tasks it invokes (a stage's tasks start on one tier),
      // and invokes its own function.
      String function = direct.tiers() == null ? functionName : direct.functionFor(carrier.spec());
      InvokeResponse response = direct.throttling().invoke(() -> lambda.invoke(b -> b.functionName(function)
          .invocationType(InvocationType.REQUEST_RESPONSE).payload(request)));
      byte[] payload = response.payload() == null ? new byte[0] : response.payload().asByteArray();
      if (response.functionError() != null) {
        LOG.warn("an invoker of {} tasks failed ({}): {}", admitted.size(), response.functionError(),
            FunctionErrors.summary(payload));
        failAll(admitted, "invoker failed: " + FunctionErrors.forUsers(payload), sent);
        return;
      }
      answers = FanOutPayloads.decodeAnswer(payload);
    } catch (RuntimeException e) {
      failAll(admitted, "invoker invocation failed: " + e.getMessage(), sent);
      return;
    }
    long invokerMillis = Math.max(1, (System.nanoTime() - sent) / 1_000_000);
    if (answers.size() != admitted.size()) {
      failAll(admitted, "invoker answered " + answers.size() + " results for " + admitted.size() + " tasks", sent);
      return;
    }
    for (int i = 0; i < admitted.size(); i++) {
      Launch l = admitted.get(i);
      FanOutPayloads.TaskAnswer a = answers.get(i);
      TaskResult r;
      try {
        r = !a.isAnswered()
            ? LambdaTaskInvoker.failed(l.spec(), ErrorCode.EXTERNAL, "task invocation failed: " + a.invokeError())
            : payloads != null ? payloads.answer(a.answer()) : TaskPayloads.decodeResult(a.answer());
      } catch (RuntimeException e) {
        r = LambdaTaskInvoker.failed(l.spec(), ErrorCode.EXTERNAL, "task answer unreadable: " + e.getMessage());
      }
      l.result().complete(l == carrier ? withInvokerMillis(r, invokerMillis) : r);
    }
  }

  private static TaskResult withInvokerMillis(TaskResult r, long millis) {
    return r.toBuilder().setMetrics(r.getMetrics().toBuilder().setInvokerMillis(millis)).build();
  }

  private static void failAll(List<Launch> launches, String message, long sentNanos) {
    long millis = Math.max(1, (System.nanoTime() - sentNanos) / 1_000_000);
    for (int i = 0; i < launches.size(); i++) {
      TaskResult r = LambdaTaskInvoker.failed(launches.get(i).spec(), ErrorCode.EXTERNAL, message);
      launches.get(i).result().complete(i == 0 ? withInvokerMillis(r, millis) : r);
    }
  }

  @Override
  public void close() {
    threads.shutdownNow();
    direct.close();
  }

  @Override
  public TaskTiers tiers() {
    return direct.tiers();
  }

  /** The direct invoker's cap: a share's tasks count in it as if invoked one by one. */
  @Override
  public int maxConcurrent() {
    return direct.maxConcurrent();
  }
}
