package dev.squall.local.localstack;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * One LocalStack container (S3 and Lambda) shared by every LocalStack variant of the S3 and Lambda
 * contract tests in this JVM. Where Docker is absent the tests using it are skipped through a JUnit
 * assumption saying so. The image can be changed with {@code -Dsquall.localstack.image=...}.
 */
public final class LocalStackFixture {
  private static final String IMAGE = System.getProperty("squall.localstack.image", "localstack/localstack:4.4.0");
  private static LocalStackContainer container;

  private LocalStackFixture() {}

  /** The running container, started on first use; skips the calling test if Docker is not available. */
  public static synchronized LocalStackContainer container() {
    Assumptions.assumeTrue(DockerClientFactory.instance().isDockerAvailable(),
        "Docker is not available: LocalStack tests skipped (the embedded variants cover the same tests)");
    if (container == null) {
      LocalStackContainer started = new LocalStackContainer(DockerImageName.parse(IMAGE).asCompatibleSubstituteFor("localstack/localstack"))
          .withServices(LocalStackContainer.Service.S3, LocalStackContainer.Service.LAMBDA);
      started.start();
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "localstack-stop"));
      container = started;
    }
    return container;
  }
}
