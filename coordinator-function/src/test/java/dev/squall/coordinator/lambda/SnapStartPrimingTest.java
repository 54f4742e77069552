package dev.squall.coordinator.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.coordinator.http.HttpApi;
import dev.squall.engine.warmup.Warmup;
import dev.squall.shuffle.s3.S3Warmup;
import dev.squall.task.lambda.TaskPriming;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * The SnapStart priming of both functions, run through their CRaC hooks as Lambda runs them before
 * a snapshot and after a restore. Credentials are planted where the AWS SDK's default chain looks
 * first (system properties): if priming resolved any, or kept a credential object, the scan of the
 * static state it initialised finds it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapStartPrimingTest {
  private static final String ACCESS_KEY = "AKIAPRIMINGCANARY0001";
  private static final String SECRET_KEY = "priming-canary-secret-5b0e1f";

  @BeforeAll
  void plantCredentials() {
    System.setProperty("aws.accessKeyId", ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", SECRET_KEY);
  }

  @AfterAll
  void removeCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  /**
   * A credential object with a key (the SDK's anonymous credentials, a constant without keys, are
   * none), or a string holding one of the planted values.
   */
  private static final Predicate<Object> CREDENTIAL = o -> (o instanceof AwsCredentialsIdentity id && id.accessKeyId() != null)
      || (o instanceof String s && (s.contains(SECRET_KEY) || s.contains(ACCESS_KEY)));

  /** Squall's classes and the SDK's credential, client and HTTP classes, Iceberg's AWS integration. */
  private static boolean inScope(String name) {
    return (name.startsWith("dev.squall.") && !name.contains("Test") && !name.contains("StaticFieldScan"))
        || name.startsWith("software.amazon.awssdk.auth.")
        || name.startsWith("software.amazon.awssdk.identity.")
        || name.startsWith("software.amazon.awssdk.awscore.")
        || name.startsWith("software.amazon.awssdk.core.")
        || name.startsWith("software.amazon.awssdk.http.")
        || name.startsWith("software.amazon.awssdk.regions.")
        || (name.startsWith("software.amazon.awssdk.services.s3.") && !name.contains(".model."))
        || name.startsWith("org.apache.iceberg.aws.");
  }

  @Test
  void hooksRunAndLeaveNoCredentialInStaticState() throws Exception {
    TaskPriming task = new TaskPriming();
    task.beforeCheckpoint(null);
    task.afterRestore(null);
    CoordinatorPriming coordinator = new CoordinatorPriming();
    coordinator.beforeCheckpoint(null);
    coordinator.afterRestore(null);
    // The handlers' class initialisers register the hooks with CRaC (a no-op without CRaC).
    Class.forName(CoordinatorLambdaHandler.class.getName(), true, getClass().getClassLoader());
    Class.forName(dev.squall.task.lambda.TaskLambdaHandler.class.getName(), true, getClass().getClassLoader());

    StaticFieldScan scan = new StaticFieldScan(CREDENTIAL);
    List<String> findings = scan.scan(SnapStartPrimingTest::inScope);
    assertThat(scan.classesScanned()).as("initialised classes scanned").isGreaterThan(200);
    assertThat(findings).isEmpty();
  }

  @Test
  void warmUpsDoTheirWork() {
    assertThat(Warmup.arrowAndIceberg(2)).isEqualTo(128);
    assertThat(S3Warmup.getObject(2)).isEqualTo(2);
    assertThat(CoordinatorPriming.prime(new HttpApi(null))).isPositive();
    assertThat(TaskPriming.prime()).isPositive();
  }

  /** A class whose static state holds a planted credential: the scan must report it. */
  static final class Leaky {
    static final Object[] HELD = {java.util.Map.of("creds", List.of("key " + ACCESS_KEY))};
  }

  @Test
  void scanFindsACredentialHeldInStaticState() throws Exception {
    assertThat(Leaky.HELD).hasSize(1);
    List<String> findings = new StaticFieldScan(CREDENTIAL)
        .scan(n -> n.equals(Leaky.class.getName()));
    assertThat(findings).singleElement().asString().contains("Leaky.HELD");
  }
}
