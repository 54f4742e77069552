package dev.squall.coordinator.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.squall.coordinator.CoordinatorEnvironment;
import dev.squall.coordinator.CoordinatorFunction;
import dev.squall.coordinator.api.Caller;
import dev.squall.coordinator.api.QueryAnswer;
import dev.squall.coordinator.api.QueryService;
import dev.squall.coordinator.api.QueryStatus;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.api.Submission;
import dev.squall.coordinator.http.HttpApi;
import dev.squall.coordinator.job.CoordinatorActions;
import dev.squall.proto.v1.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;

/**
 * The coordinator function on AWS Lambda: a thin adapter (run by Quarkus' Lambda runtime) from the
 * invocation stream to {@link CoordinatorFunction}, with Lambda's remaining time. The core is built
 * from the environment ({@link CoordinatorEnvironment}) on the first invocation that needs it, so
 * that a misconfigured deployment still answers health checks and malformed requests, and reports
 * the missing setting in each query's error. Loading the class registers the SnapStart priming
 * ({@link CoordinatorPriming}), which builds none of the deployment's clients.
 */
public final class CoordinatorLambdaHandler implements RequestStreamHandler {
  static {
    CoordinatorPriming.register();
  }

  private volatile CoordinatorFunction core;
  private final HttpApi api = new HttpApi(new LazyQueryService());

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
    byte[] payload = input.readAllBytes();
    if (CoordinatorActions.parse(payload) != null) {
      output.write(core().handle(payload, Duration.ofMillis(context.getRemainingTimeInMillis())));
      return;
    }
    output.write(api.handle(payload));
  }

  private CoordinatorFunction core() {
    CoordinatorFunction c = core;
    if (c == null) {
      synchronized (this) {
        if (core == null) {
          try {
            core = CoordinatorEnvironment.build(System.getenv());
          } catch (IllegalArgumentException e) {
            throw new SquallException(ErrorCode.INTERNAL_ERROR, "coordinator is misconfigured: " + e.getMessage());
          }
        }
        c = core;
      }
    }
    return c;
  }

  /** Builds the core on first use, so that configuration errors surface as query errors. */
  private final class LazyQueryService implements QueryService {
    @Override
    public Submission submit(Caller caller, String queryId, String sql, Map<String, String> properties, boolean async) {
      return core().coordinator().submit(caller, queryId, sql, properties, async);
    }

    @Override
    public QueryStatus status(Caller caller, String queryId) {
      return core().coordinator().status(caller, queryId);
    }

    @Override
    public QueryAnswer result(Caller caller, String queryId) {
      return core().coordinator().result(caller, queryId);
    }

    @Override
    public QueryStatus cancel(Caller caller, String queryId) {
      return core().coordinator().cancel(caller, queryId);
    }
  }
}
