package dev.squall.local.lambda;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The functions the emulator knows, by name. Registering a name again replaces its definition. */
final class FunctionRegistry {
  private final Map<String, FunctionDefinition> functions = new ConcurrentHashMap<>();
  private final ConcurrencyLimiter limiter;

  FunctionRegistry(ConcurrencyLimiter limiter) {
    this.limiter = limiter;
  }

  void register(FunctionDefinition function) {
    Objects.requireNonNull(function, "function");
    limiter.configure(function);
    functions.put(function.name(), function);
  }

  Optional<FunctionDefinition> find(String name) {
    return Optional.ofNullable(functions.get(name));
  }

  /**
   * The function an Invoke request names. Only the unpublished version exists here, so a qualifier
   * other than {@code $LATEST} names nothing.
   *
   * @throws InvokeApiException 404 {@code ResourceNotFoundException} with the qualified ARN
   */
  FunctionDefinition resolve(FunctionName name) {
    FunctionDefinition function = functions.get(name.name());
    if (function == null || name.qualifier().filter(q -> !q.equals("$LATEST")).isPresent()) {
      throw InvokeApiException.resourceNotFound(name.arn());
    }
    return function;
  }
}
