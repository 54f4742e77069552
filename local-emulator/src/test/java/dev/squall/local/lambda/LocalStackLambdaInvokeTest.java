package dev.squall.local.lambda;

import dev.squall.local.localstack.LocalStackFixture;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.testcontainers.containers.localstack.LocalStackContainer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.Runtime;

/**
 * The Invoke contract against LocalStack's Lambda, with the contract's functions in Python (LocalStack
 * runs real runtimes in containers). Skipped with a message where Docker is not available.
 */
class LocalStackLambdaInvokeTest extends LambdaInvokeContract {
  private static final String HANDLERS = String.join("\n",
      "import time",
      "def echo(event, context):",
      "    return event",
      "def fail(event, context):",
      "    raise ValueError('" + FAIL_MESSAGE + "')",
      "def slow(event, context):",
      "    time.sleep(5)",
      "    return event",
      "");

  @Override
  protected LambdaClient deployFunctions() throws Exception {
    LocalStackContainer localStack = LocalStackFixture.container();
    LambdaClient client = LambdaClient.builder()
        .endpointOverride(localStack.getEndpointOverride(LocalStackContainer.Service.LAMBDA))
        .region(Region.of(localStack.getRegion()))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(localStack.getAccessKey(), localStack.getSecretKey())))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
    SdkBytes zip = SdkBytes.fromByteArray(zip("handlers.py", HANDLERS));
    deploy(client, ECHO, "handlers.echo", 30, zip);
    deploy(client, FAIL, "handlers.fail", 30, zip);
    deploy(client, SLOW, "handlers.slow", 1, zip);
    deploy(client, THROTTLED, "handlers.echo", 30, zip);
    client.putFunctionConcurrency(b -> b.functionName(THROTTLED).reservedConcurrentExecutions(0));
    return client;
  }

  private static void deploy(LambdaClient client, String name, String handler, int timeoutSeconds, SdkBytes zip) {
    if (client.listFunctions().functions().stream().anyMatch(f -> f.functionName().equals(name))) {
      return; // deployed by an earlier run against the same container
    }
    client.createFunction(b -> b.functionName(name)
        .runtime(Runtime.PYTHON3_12)
        .handler(handler)
        .role("arn:aws:iam::000000000000:role/squall-contract")
        .timeout(timeoutSeconds)
        .code(c -> c.zipFile(zip)));
    client.waiter().waitUntilFunctionActiveV2(b -> b.functionName(name));
  }

  private static byte[] zip(String fileName, String content) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      zip.putNextEntry(new ZipEntry(fileName));
      zip.write(content.getBytes(StandardCharsets.UTF_8));
      zip.closeEntry();
    }
    return bytes.toByteArray();
  }
}
