package dev.squall.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.squall.jobstore.NpmPackages;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * Applies the module to LocalStack (through its Terraform support: the AWS provider pointed at the
 * container) and runs a query through the deployed API with a SigV4-signed request. Needs Docker,
 * the {@code terraform} binary and both function zips ({@code mvn package}); where any is missing
 * it is skipped saying which. {@link TerraformModuleTest} checks the same configuration parsed.
 */
class LocalStackApplyTest {
  private static final String IMAGE = System.getProperty("squall.localstack.image", "localstack/localstack:4.4.0");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void appliedStackAnswersASignedQuery() throws Exception {
    Path terraform = NpmPackages.onPath("terraform").orElse(null);
    Assumptions.assumeTrue(terraform != null,
        "no terraform binary on the PATH: the LocalStack apply test is skipped (TerraformModuleTest checks the parsed module)");
    Assumptions.assumeTrue(DockerClientFactory.instance().isDockerAvailable(),
        "Docker is not available: the LocalStack apply test is skipped (TerraformModuleTest checks the parsed module)");
    Path module = Path.of(System.getProperty("user.dir"));
    Path coordinatorZip = module.resolve("../coordinator-function/target/function.zip").normalize();
    Path taskZip = module.resolve("../task-function/target/function.zip").normalize();
    Assumptions.assumeTrue(Files.exists(coordinatorZip) && Files.exists(taskZip),
        "function zips are not built (run mvn package): the LocalStack apply test is skipped");

    try (LocalStackContainer localstack = new LocalStackContainer(
        DockerImageName.parse(IMAGE).asCompatibleSubstituteFor("localstack/localstack"))) {
      localstack.start();
      String endpoint = localstack.getEndpoint().toString();
      Path root = Files.createTempDirectory("squall-tf-apply");
      Files.writeString(root.resolve("main.tf"), """
          provider "aws" {
            region                      = "%s"
            access_key                  = "test"
            secret_key                  = "test"
            skip_credentials_validation = true
            skip_metadata_api_check     = true
            skip_requesting_account_id  = true
            s3_use_path_style           = true
            endpoints {
              apigatewayv2 = "%2$s"
              cloudwatchlogs = "%2$s"
              dynamodb = "%2$s"
              iam = "%2$s"
              lambda = "%2$s"
              s3 = "%2$s"
              scheduler = "%2$s"
              sts = "%2$s"
            }
          }
          module "squall" {
            source                  = "%3$s"
            create_warehouse_bucket = true
            coordinator_zip         = "%4$s"
            task_zip                = "%5$s"
            task_reserved_concurrency = 10
          }
          output "api_endpoint" { value = module.squall.api_endpoint }
          """.formatted(localstack.getRegion(), endpoint, module, coordinatorZip, taskZip));
      run(terraform, root, "init", "-input=false", "-no-color");
      run(terraform, root, "apply", "-auto-approve", "-input=false", "-no-color");
      String api = run(terraform, root, "output", "-raw", "api_endpoint").trim();

      byte[] body = "{\"sql\": \"select 1 as one\"}".getBytes(StandardCharsets.UTF_8);
      SdkHttpRequest unsigned = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(URI.create(api + "/v1/queries"))
          .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json").build();
      SignedRequest signed = AwsV4HttpSigner.create().sign(r -> r.identity(AwsBasicCredentials.create("test", "test"))
          .request(unsigned).payload(() -> new java.io.ByteArrayInputStream(body))
          .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api")
          .putProperty(AwsV4HttpSigner.REGION_NAME, localstack.getRegion()));
      HttpRequest.Builder request = HttpRequest.newBuilder(signed.request().getUri()).timeout(Duration.ofMinutes(2))
          .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      signed.request().headers().forEach((name, values) -> {
        if (!name.equalsIgnoreCase("host") && !name.equalsIgnoreCase("content-length")) {
          values.forEach(v -> request.header(name, v));
        }
      });
      HttpResponse<byte[]> response = HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(response.statusCode()).as(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo(200);
      JsonNode answer = JSON.readTree(response.body());
      assertThat(answer.at("/rows/0/0").asInt()).isEqualTo(1);
      run(terraform, root, "destroy", "-auto-approve", "-input=false", "-no-color");
    }
  }

  private static String run(Path terraform, Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(terraform.toString()));
    command.addAll(List.of(args));
    Path log = Files.createTempFile("terraform", ".log");
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(20, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("terraform " + args[0] + " took more than 20 minutes");
    }
    String out = Files.readString(log);
    assertThat(p.exitValue()).as("terraform %s: %s", args[0], out).isZero();
    return out;
  }
}
