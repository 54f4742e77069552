package dev.squall.cli.local;

import dev.squall.coordinator.job.DriverHooks;
import dev.squall.local.faults.FaultAction;
import dev.squall.local.faults.FaultPlan;
import dev.squall.local.faults.FaultPoint;
import dev.squall.local.faults.FaultRule;
import dev.squall.local.faults.Faults;
import dev.squall.local.gateway.LocalRoute;
import dev.squall.local.lambda.LambdaHandler;
import dev.squall.proto.FanOutPayloads;
import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskSpec;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.lambda.model.InvokeRequest;
import software.amazon.awssdk.services.lambda.model.TooManyRequestsException;

/**
 * Where the local stack's fault plan ({@link Faults}, docs/faults.md) meets Squall's functions:
 * task invocations (crash, hang, delay, lost answer in the task function; 429 at the Invoke API),
 * the coordinator at named job states (kill, hang), and {@code PUT /_local/faults}.
 */
final class LocalFaults {
  private static final Set<FaultAction> IN_TASK = EnumSet.of(FaultAction.CRASH, FaultAction.HANG, FaultAction.DELAY,
      FaultAction.LOSE_ANSWER);
  private static final Set<FaultAction> IN_COORDINATOR = EnumSet.of(FaultAction.KILL, FaultAction.HANG,
      FaultAction.DELAY);

  /** The death of a coordinator invocation, injected: nothing is recorded or cleaned up; the lease lapses. */
  static final class CoordinatorKilled extends Error {
    CoordinatorKilled(String message) {
      super(message);
    }
  }

  private final Faults faults;

  LocalFaults(Faults faults) {
    this.faults = faults;
  }

  /** The task function's handler with TASK rules applied inside the invocation. */
  LambdaHandler task(LambdaHandler real) {
    return (payload, ctx) -> {
      if (TaskPayloads.specRef(payload).isPresent() || FanOutPayloads.decodeRequest(payload).isPresent()) {
        // A spec over the inline payload limit travels stored in S3; fault rules match inline specs
        // only. An invoker invocation is not a task: its tasks pass this wrapper as they are invoked.
        return real.handle(payload, ctx);
      }
      TaskSpec spec = TaskPayloads.decodeSpec(payload);
      Optional<FaultRule> rule = faults.fire(FaultPoint.task(spec.getStageId(), spec.getPartition(), spec.getAttempt()),
          IN_TASK);
      if (rule.isEmpty()) {
        return real.handle(payload, ctx);
      }
      switch (rule.get().action()) {
        case CRASH -> throw new IllegalStateException("task function crashed (injected)");
        case HANG, DELAY -> {
          Faults.pause(rule.get());
          if (Thread.currentThread().isInterrupted()) {
            // The invocation timed out meanwhile: its caller has its answer already.
            throw new IllegalStateException("the task invocation timed out (injected hang)");
          }
        }
        case LOSE_ANSWER -> {
          real.handle(payload, ctx);
          throw new IllegalStateException("the task's answer was lost (injected)");
        }
        default -> { }
      }
      return real.handle(payload, ctx);
    };
  }

  /** Answers a task Invoke with 429 TooManyRequests where a TASK rule says THROTTLE. */
  ExecutionInterceptor invokeThrottling() {
    return new ExecutionInterceptor() {
      @Override
      public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof InvokeRequest invoke) || invoke.payload() == null) {
          return;
        }
        byte[] payload = invoke.payload().asByteArray();
        if (TaskPayloads.specRef(payload).isPresent()) {
          return; // a stored spec: fault rules match inline specs only
        }
        TaskSpec spec;
        try {
          spec = TaskPayloads.decodeSpec(payload);
        } catch (IllegalArgumentException notATask) {
          return;
        }
        if (faults.fire(FaultPoint.task(spec.getStageId(), spec.getPartition(), spec.getAttempt()),
            EnumSet.of(FaultAction.THROTTLE)).isPresent()) {
          throw TooManyRequestsException.builder().statusCode(429).message("Rate Exceeded. (injected)")
              .awsErrorDetails(AwsErrorDetails.builder().errorCode("TooManyRequestsException").serviceName("Lambda")
                  .errorMessage("Rate Exceeded. (injected)").build())
              .build();
        }
      }
    };
  }

  /** {@code hooks} with COORDINATOR rules applied at QUEUED, RUNNING, FINALIZING and COMMITTED. */
  DriverHooks coordinator(DriverHooks hooks) {
    return new DriverHooks() {
      @Override
      public void planning(String jobId) {
        at("QUEUED", jobId);
        hooks.planning(jobId);
      }

      @Override
      public void stageFinished(String jobId, int stageId) {
        at("RUNNING", jobId);
        hooks.stageFinished(jobId, stageId);
      }

      @Override
      public void finalizing(String jobId) {
        at("FINALIZING", jobId);
        hooks.finalizing(jobId);
      }

      @Override
      public void committed(String jobId) {
        at("COMMITTED", jobId);
        hooks.committed(jobId);
      }
    };
  }

  private void at(String state, String jobId) {
    faults.fire(FaultPoint.coordinator(state, jobId), IN_COORDINATOR).ifPresent(rule -> {
      if (rule.action() == FaultAction.KILL) {
        throw new CoordinatorKilled("coordinator killed in " + state + " (injected)");
      }
      Faults.pause(rule);
    });
  }

  /** {@code PUT /_local/faults} installs a plan, {@code DELETE} removes it, {@code GET} counts its rules. */
  LocalRoute route() {
    return (method, path, body) -> {
      if (!path.equals("/_local/faults")) {
        return null;
      }
      switch (method) {
        case "PUT" -> {
          try {
            FaultPlan plan = FaultPlan.parse(body);
            faults.install(plan);
            return new LocalRoute.Answer(200, "installed a fault plan of " + plan.size() + " rules");
          } catch (IllegalArgumentException e) {
            return new LocalRoute.Answer(400, e.getMessage());
          }
        }
        case "DELETE" -> {
          faults.install(FaultPlan.none());
          return new LocalRoute.Answer(200, "fault plan removed");
        }
        case "GET" -> {
          return new LocalRoute.Answer(200, "a fault plan of " + faults.plan().size() + " rules is installed; it"
              + " injected " + faults.plan().fired() + " faults");
        }
        default -> {
          return new LocalRoute.Answer(405, "use PUT, GET or DELETE on /_local/faults");
        }
      }
    };
  }
}
