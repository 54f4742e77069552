package dev.squall.task.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.squall.shuffle.requests.CountingS3Client;
import dev.squall.task.TaskEnvironment;
import dev.squall.task.TaskFunction;
import dev.squall.task.TaskRunner;
import dev.squall.task.fanout.TaskFanOut;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import org.apache.arrow.memory.RootAllocator;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The task function on AWS Lambda: a thin adapter (run by Quarkus' Lambda runtime) over
 * {@link TaskFunction}. Clients and the allocator are built once per sandbox, from the environment
 * ({@link TaskEnvironment#fromEnv}); the Lambda client of the invoker role only when an invoker
 * payload first arrives. An attempt stops when less than a second of the invocation's
 * time is left, so that it can still answer. Loading the class registers the SnapStart priming
 * ({@link TaskPriming}).
 */
public final class TaskLambdaHandler implements RequestStreamHandler {
  private static final long STOP_BEFORE_DEADLINE_MS = 1000;
  private final TaskFunction function;

  static {
    TaskPriming.register();
  }

  public TaskLambdaHandler() {
    TaskEnvironment env = TaskEnvironment.fromEnv(System.getenv());
    S3Client s3 = env.newS3Client();
    this.function = new TaskFunction(new TaskRunner(s3, counter -> env.newFileIO(CountingS3Client.wrap(s3, counter)), new RootAllocator(),
        TaskEnvironment.hedging(System.getenv()), TaskEnvironment.spilling(System.getenv())), s3,
        TaskEnvironment.memoryMb(System.getenv()), ManagementFactory.getRuntimeMXBean().getUptime())
        .withFanOut(() -> new TaskFanOut(env.newTaskLambdaClient(), invokedTaskFunction(System.getenv())))
        // A task's budget follows this function's memory (each task-size tier is its own function).
        .withMemoryBudgetCap(TaskEnvironment.memoryMb(System.getenv()) * 1024L * 1024 * 6 / 10);
  }

  /**
   * The function an invoker invokes tasks on: {@code SQUALL_TASK_FUNCTION} (the deployment's alias,
   * whose SnapStart version the coordinator invokes too), else this function itself.
   */
  static String invokedTaskFunction(java.util.Map<String, String> env) {
    String named = env.get("SQUALL_TASK_FUNCTION");
    return named != null && !named.isBlank() ? named : env.get("AWS_LAMBDA_FUNCTION_NAME");
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
    byte[] answer = function.handle(input.readAllBytes(), () -> context.getRemainingTimeInMillis() < STOP_BEFORE_DEADLINE_MS);
    output.write(answer);
  }
}
