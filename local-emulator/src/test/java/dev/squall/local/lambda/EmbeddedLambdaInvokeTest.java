package dev.squall.local.lambda;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.services.lambda.LambdaClient;

/** The Invoke contract against the in-process emulator, with the contract's functions in Java. */
class EmbeddedLambdaInvokeTest extends LambdaInvokeContract {
  private LambdaEmulator lambda;

  @Override
  protected LambdaClient deployFunctions() throws Exception {
    lambda = LambdaEmulator.start(0, List.of(
        FunctionDefinition.of(ECHO, (payload, context) -> payload),
        FunctionDefinition.of(FAIL, (payload, context) -> {
          throw new IllegalStateException(FAIL_MESSAGE);
        }),
        FunctionDefinition.of(SLOW, (payload, context) -> {
          Thread.sleep(5_000);
          return payload;
        }).withTimeout(Duration.ofSeconds(1)),
        FunctionDefinition.of(THROTTLED, (payload, context) -> payload).withReservedConcurrency(0)));
    return LocalLambdaClients.withoutRetries(lambda.endpoint());
  }

  @AfterAll
  void stopEmulator() {
    if (lambda != null) {
      lambda.close();
    }
  }
}
