package dev.squall.local.gateway;

/**
 * A request the gateway answers itself, without the function: status and a message for the
 * {@code {"message": ...}} body API Gateway uses.
 */
final class GatewayException extends RuntimeException {
  private final int status;

  GatewayException(int status, String message) {
    super(message);
    this.status = status;
  }

  int status() {
    return status;
  }
}
