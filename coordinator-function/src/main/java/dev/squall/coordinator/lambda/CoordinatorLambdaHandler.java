package dev.squall.coordinator.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.squall.coordinator.CoordinatorEnvironment;
import dev.squall.coordinator.QueryCoordinator;
import dev.squall.coordinator.api.QueryService;
import dev.squall.coordinator.api.SquallException;
import dev.squall.coordinator.http.HttpApi;
import dev.squall.proto.v1.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The coordinator function on AWS Lambda: a thin adapter (run by Quarkus' Lambda runtime) from
 * API Gateway HTTP API events to {@link HttpApi}. The query core is built from the environment
 * ({@link CoordinatorEnvironment}) on the first query, so that a misconfigured deployment still
 * answers health checks and reports the missing setting in each query's error.
 */
public final class CoordinatorLambdaHandler implements RequestStreamHandler {
  private final HttpApi api = new HttpApi(new LazyQueryService());

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
    output.write(api.handle(input.readAllBytes()));
  }

  private static final class LazyQueryService implements QueryService {
    private volatile QueryCoordinator coordinator;

    @Override
    public dev.squall.coordinator.api.QueryAnswer execute(String queryId, String sql, java.util.Map<String, String> properties) {
      QueryCoordinator c = coordinator;
      if (c == null) {
        synchronized (this) {
          if (coordinator == null) {
            try {
              coordinator = CoordinatorEnvironment.build(System.getenv());
            } catch (IllegalArgumentException e) {
              throw new SquallException(ErrorCode.INTERNAL_ERROR, "coordinator is misconfigured: " + e.getMessage());
            }
          }
          c = coordinator;
        }
      }
      return c.execute(queryId, sql, properties);
    }
  }
}
