package dev.squall.local.gateway;

/**
 * A route the local gateway answers itself instead of invoking the function: the local stack's
 * own controls under {@code /_local/} (they do not exist on AWS).
 */
@FunctionalInterface
public interface LocalRoute {
  /** An answer of a local route. */
  record Answer(int status, String message) {}

  /**
   * @return the answer, or null when the request is not for this route (it then goes to the function)
   */
  Answer handle(String method, String path, byte[] body);
}
