package dev.squall.task.fanout;

import dev.squall.invoke.ThrottleRetry;
import dev.squall.proto.FanOutPayloads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * The task function in its invoker role ({@link FanOutPayloads}): invokes each task payload it is
 * given on the task function, all at once, and answers every task's answer in order. It decides
 * nothing about attempts: a task that got no answer (a function error, a transport failure,
 * throttling past its re-sends) is reported as such and the coordinator decides whether it runs
 * again. It only re-sends an Invoke that Lambda throttled (429: never ran), with the coordinator's
 * own policy ({@link ThrottleRetry#defaults()}).
 *
 * <p>It needs {@code lambda:InvokeFunction} on the task function and nothing else: no catalog, no
 * job store, and it never reads the specs it forwards.
 */
public final class TaskFanOut implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskFanOut.class);
  private final LambdaClient lambda;
  private final String taskFunction;
  private final ExecutorService threads;
  private final ThrottleRetry throttling = ThrottleRetry.defaults();

  /**
   * @param lambda a client whose read timeout lies above the task function's timeout and whose SDK
   *     retries are off (an SDK retry after a timeout would run one attempt twice)
   * @param taskFunction the task function's name or ARN
   */
  public TaskFanOut(LambdaClient lambda, String taskFunction) {
    this.lambda = lambda;
    this.taskFunction = taskFunction;
    AtomicInteger n = new AtomicInteger();
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "squall-invoker-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Invokes every task in {@code taskPayloads} and waits for all of them; answers in the same order. */
  public byte[] invokeAll(List<byte[]> taskPayloads) throws InterruptedException {
    List<Future<FanOutPayloads.TaskAnswer>> running = new ArrayList<>();
    for (byte[] p : taskPayloads) {
      running.add(threads.submit(() -> invokeOne(p)));
    }
    List<FanOutPayloads.TaskAnswer> answers = new ArrayList<>();
    for (Future<FanOutPayloads.TaskAnswer> f : running) {
      try {
        answers.add(f.get());
      } catch (ExecutionException e) {
        answers.add(FanOutPayloads.TaskAnswer.failed("task invocation failed: " + e.getCause().getMessage()));
      }
    }
    return FanOutPayloads.encodeAnswer(answers);
  }

  private FanOutPayloads.TaskAnswer invokeOne(byte[] payload) {
    SdkBytes request = SdkBytes.fromByteArray(payload);
    try {
      InvokeResponse r = throttling.invoke(() -> lambda.invoke(b -> b.functionName(taskFunction)
          .invocationType(InvocationType.REQUEST_RESPONSE).payload(request)));
      if (r.functionError() != null) {
        LOG.warn("a task invocation failed ({})", r.functionError());
        return FanOutPayloads.TaskAnswer.failed("the task function failed (" + r.functionError() + ")");
      }
      return FanOutPayloads.TaskAnswer.answered(r.payload() == null ? new byte[0] : r.payload().asByteArray());
    } catch (TooManyRequestsException e) {
      return FanOutPayloads.TaskAnswer.failed("task function throttled: " + e.awsErrorDetails().errorMessage());
    } catch (RuntimeException e) {
      return FanOutPayloads.TaskAnswer.failed("task invocation failed: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
