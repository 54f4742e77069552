package dev.squall.coordinator;

import dev.squall.coordinator.http.HttpApi;
import dev.squall.coordinator.job.CoordinatorActions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator function's core, whatever runs it (Quarkus on Lambda, the local emulator): an
 * invocation is either an API Gateway event, answered by {@link HttpApi}, or one of the
 * coordinator's own actions ({@link CoordinatorActions}): resume a job, or sweep for jobs whose
 * coordinator died.
 */
public final class CoordinatorFunction implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorFunction.class);

  private final QueryCoordinator coordinator;
  private final HttpApi api;

  public CoordinatorFunction(QueryCoordinator coordinator) {
    this.coordinator = coordinator;
    this.api = new HttpApi(coordinator);
  }

  /**
   * Handles one invocation.
   *
   * @param payload the invocation payload
   * @param remaining the time left before the function's limit (Lambda's remaining time)
   * @return the response payload: an API Gateway response event, or a small JSON report for actions
   */
  public byte[] handle(byte[] payload, Duration remaining) {
    CoordinatorActions.Action action = CoordinatorActions.parse(payload);
    if (action == null) {
      return api.handle(payload);
    }
    String report = switch (action.name()) {
      case "resume" -> {
        if (action.jobId() == null) {
          yield "{\"error\":\"resume needs a jobId\"}";
        }
        yield "{\"outcome\":\"" + coordinator.resume(action.jobId(), remaining) + "\"}";
      }
      case "sweep" -> "{\"resumed\":" + coordinator.sweep() + "}";
      default -> {
        LOG.warn("unknown coordinator action {}", action.name());
        yield "{\"error\":\"unknown action\"}";
      }
    };
    return report.getBytes(StandardCharsets.UTF_8);
  }

  public HttpApi api() {
    return api;
  }

  public QueryCoordinator coordinator() {
    return coordinator;
  }

  /**
   * Waits (up to 10 s) for the job data deletions this coordinator still has queued; what is left
   * after that expires with the shuffle bucket's {@code jobs/} rule, or the local sweep.
   */
  @Override
  public void close() {
    coordinator.close();
  }
}
