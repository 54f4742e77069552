package dev.squall.local.lambda;

import dev.squall.local.gateway.Gateway;
import dev.squall.local.s3.EmbeddedS3;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Round-trip cost of the local stack's transports, to size what the local coordinator and tasks pay
 * per call: one synchronous Invoke (payload echoed back) and one gateway request (binary body
 * echoed back), beside a put+get of the same bytes on the embedded S3. Single caller, warm JVM.
 *
 * <p>Run from the repository root:
 * <pre>
 * mvn -B -q -o -pl local-emulator -am test-compile
 * mvn -B -q -o -pl local-emulator dependency:build-classpath -Dmdep.outputFile=/tmp/emu-cp.txt -Dmdep.includeScope=test
 * java -cp local-emulator/target/classes:local-emulator/target/test-classes:$(cat /tmp/emu-cp.txt) \
 *     dev.squall.local.lambda.InvokeBenchmark
 * </pre>
 */
public final class InvokeBenchmark {
  private InvokeBenchmark() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("aws.requestChecksumCalculation", "when_required");
    System.setProperty("aws.responseChecksumValidation", "when_required");
    try (LambdaEmulator lambda = LambdaEmulator.start(0, List.of(
            FunctionDefinition.of("echo", (payload, context) -> payload),
            FunctionDefinition.of("http-echo", (payload, context) -> {
              var event = new com.fasterxml.jackson.databind.ObjectMapper().readTree(payload);
              return ("{\"statusCode\":200,\"isBase64Encoded\":true,\"body\":\"" + event.path("body").asText() + "\"}")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            })));
        Gateway gateway = Gateway.start(0, lambda.endpoint(), "http-echo");
        EmbeddedS3 s3 = EmbeddedS3.startTransient("bench-bucket");
        LambdaClient client = LocalLambdaClients.withoutRetries(lambda.endpoint());
        S3Client s3Client = s3.newClient()) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      System.out.printf(Locale.ROOT, "%-10s %8s %14s %14s %14s%n", "payload", "calls", "invoke ms", "gateway ms", "s3 put+get ms");
      for (int size : new int[] {1_024, 262_144, 1_048_576, 4_194_304}) {
        byte[] json = new byte[size];
        Arrays.fill(json, (byte) 'a');
        json[0] = '"';
        json[size - 1] = '"';
        int calls = size <= 262_144 ? 500 : 40;
        SdkBytes payload = SdkBytes.fromByteArray(json);
        HttpRequest request = HttpRequest.newBuilder(gateway.endpoint().resolve("/echo"))
            .header("Content-Type", "application/octet-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json)).build();
        double invokeMs = time(calls, () -> check(client.invoke(b -> b.functionName("echo").payload(payload))
            .payload().asByteArrayUnsafe().length == size));
        double gatewayMs = time(calls, () -> check(http.send(request, HttpResponse.BodyHandlers.ofByteArray())
            .body().length == size));
        double s3Ms = time(calls, () -> {
          s3Client.putObject(b -> b.bucket("bench-bucket").key("bench/object"), RequestBody.fromBytes(json));
          check(s3Client.getObjectAsBytes(b -> b.bucket("bench-bucket").key("bench/object")).asByteArrayUnsafe().length == size);
        });
        System.out.printf(Locale.ROOT, "%-10s %8d %14.3f %14.3f %14.3f%n", size / 1024 + " KB", calls, invokeMs, gatewayMs, s3Ms);
      }
    }
  }

  private interface Call {
    void run() throws Exception;
  }

  private static void check(boolean ok) {
    if (!ok) {
      throw new IllegalStateException("echo returned the wrong number of bytes");
    }
  }

  /** Mean milliseconds per call after as many warm-up calls. */
  private static double time(int calls, Call call) throws Exception {
    for (int i = 0; i < calls; i++) {
      call.run();
    }
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      call.run();
    }
    return (System.nanoTime() - start) / 1e6 / calls;
  }
}
