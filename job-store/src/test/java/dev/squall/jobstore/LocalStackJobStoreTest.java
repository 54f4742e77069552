package dev.squall.jobstore;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterAll;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The job store contract against the DynamoDB store on LocalStack (Testcontainers). Every test is
 * skipped, with the reason, where Docker is absent; {@link DynaliteJobStoreTest} runs the same
 * contract without Docker.
 */
class LocalStackJobStoreTest extends DynamoDbJobStoreContract {
  private static final DockerImageName IMAGE = DockerImageName.parse("localstack/localstack:4.4");
  private static Boolean docker;
  private static LocalStackContainer localStack;
  private static DynamoDbClient client;

  @Override
  protected synchronized DynamoDbClient client() {
    if (docker == null) {
      docker = dockerAvailable();
    }
    assumeTrue(docker, "Docker is not available: skipping the job store contract against LocalStack"
        + " (DynaliteJobStoreTest runs it against dynalite)");
    if (client == null) {
      localStack = new LocalStackContainer(IMAGE).withServices(LocalStackContainer.Service.DYNAMODB);
      localStack.start();
      client = localClient(localStack.getEndpoint(), localStack.getRegion(), localStack.getAccessKey(),
          localStack.getSecretKey());
    }
    return client;
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }

  @AfterAll
  static void stopLocalStack() {
    if (client != null) {
      client.close();
      client = null;
    }
    if (localStack != null) {
      localStack.stop();
      localStack = null;
    }
  }
}
