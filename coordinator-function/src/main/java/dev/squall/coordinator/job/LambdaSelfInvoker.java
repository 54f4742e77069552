package dev.squall.coordinator.job;

import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;

/** Resumes a job through an {@code Event} invocation of the coordinator function. */
public final class LambdaSelfInvoker implements SelfInvoker {
  private final LambdaClient lambda;
  private final String functionName;

  /**
   * @param functionName the coordinator function's own name ({@code AWS_LAMBDA_FUNCTION_NAME} on AWS)
   */
  public LambdaSelfInvoker(LambdaClient lambda, String functionName) {
    this.lambda = lambda;
    this.functionName = functionName;
  }

  @Override
  public void resume(String jobId) {
    lambda.invoke(b -> b.functionName(functionName).invocationType(InvocationType.EVENT)
        .payload(SdkBytes.fromByteArray(CoordinatorActions.resume(jobId))));
  }
}
