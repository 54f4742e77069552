package dev.squall.infra;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipFile;
import javax.tools.ToolProvider;

/**
 * Cold start of a packaged function as Lambda's managed Java runtime runs it: a fresh JVM whose
 * class path is the unzipped {@code target/function.zip}, which loads the handler class
 * ({@code io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler}), instantiates it (Quarkus boots
 * and builds the function's handler) and calls {@code handleRequest} once. Prints, per run, the
 * time from starting the JVM to the handler being ready (init) and to its first answer, and, in the
 * same JVM, how long the SnapStart priming hooks take.
 *
 * <p>Run with the JDK alone, after {@code mvn package}:
 * {@code java infra/src/test/java/dev/squall/infra/ColdStartBenchmark.java task|coordinator [runs]}.
 * The task function gets an empty task spec (it answers a task error: start-up and the payload path
 * are measured, no S3 read); the coordinator gets {@code GET /v1/health} (it builds no client for
 * that). Without SnapStart this is what every new sandbox pays; with it, a restore replaces init.
 */
public final class ColdStartBenchmark {
  private static final String HANDLER = "io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler";
  /** A task payload holding an empty task spec: decoded, then answered with a task error. */
  private static final String EMPTY_TASK = "{\"taskSpec\": \"\"}";
  private static final String HEALTH = "{\"version\":\"2.0\",\"rawPath\":\"/v1/health\",\"headers\":{},"
      + "\"requestContext\":{\"http\":{\"method\":\"GET\",\"path\":\"/v1/health\"},\"requestId\":\"r1\"}}";

  private ColdStartBenchmark() {}

  public static void main(String[] args) throws Exception {
    String function = args.length > 0 ? args[0] : "task";
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path zip = Path.of(function + "-function", "target", "function.zip");
    Path dir = Files.createTempDirectory("squall-coldstart");
    unzip(zip, dir);
    String classPath = dir + File.pathSeparator + dir.resolve("lib") + File.separator + "*";
    Path classes = Files.createDirectories(dir.resolve("probe-classes"));
    Path source = Path.of("infra/src/test/java/dev/squall/infra/ColdStartBenchmark.java");
    if (ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), "-cp", classPath,
        source.toString()) != 0) {
      throw new IllegalStateException("cannot compile the probe");
    }
    System.out.printf("cold start of the %s function (%s, %.1f MB zipped), %d runs%n", function, zip,
        Files.size(zip) / 1e6, runs);
    for (int i = 0; i < runs; i++) {
      List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "--add-opens=java.base/java.nio=ALL-UNNAMED", "-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1",
          "-cp", classes + File.pathSeparator + classPath, Probe.class.getName(), function);
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.environment().put("AWS_REGION", "us-east-1");
      pb.environment().put("AWS_LAMBDA_FUNCTION_NAME", "squall-" + function);
      long start = System.nanoTime();
      Process p = pb.start();
      String report = null;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("PROBE ")) {
            report = line.substring(6) + String.format(" (%d ms after spawn)", (System.nanoTime() - start) / 1_000_000);
          } else if (line.startsWith("PRIMING ")) {
            report += ", priming hooks " + line.substring(8);
          }
        }
      }
      p.waitFor();
      System.out.printf("run %d: %s%n", i + 1, report == null ? "no answer (exit " + p.exitValue() + ")" : report);
    }
  }

  private static void unzip(Path zip, Path dir) throws Exception {
    try (ZipFile file = new ZipFile(zip.toFile())) {
      for (var e : java.util.Collections.list(file.entries())) {
        Path to = dir.resolve(e.getName()).normalize();
        if (!to.startsWith(dir)) {
          throw new IllegalStateException("zip entry outside the directory: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(to);
        } else {
          Files.createDirectories(to.getParent());
          try (InputStream in = file.getInputStream(e)) {
            Files.copy(in, to);
          }
        }
      }
    }
  }

  /** The child JVM: the managed runtime's steps, timed from the JVM's own start. */
  public static final class Probe {
    public static void main(String[] args) throws Exception {
      long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
      ClassLoader loader = Probe.class.getClassLoader();
      Class<?> contextType = Class.forName("com.amazonaws.services.lambda.runtime.Context", true, loader);
      Class<?> loggerType = Class.forName("com.amazonaws.services.lambda.runtime.LambdaLogger", true, loader);
      Object logger = Proxy.newProxyInstance(loader, new Class<?>[] {loggerType}, (proxy, m, a) -> {
        if (a != null && a.length > 0) {
          System.err.println(a[0]);
        }
        return null;
      });
      Object context = Proxy.newProxyInstance(loader, new Class<?>[] {contextType}, (proxy, m, a) -> switch (m.getName()) {
        case "getRemainingTimeInMillis" -> 900_000;
        case "getMemoryLimitInMB" -> 2048;
        case "getLogger" -> logger;
        case "getAwsRequestId" -> "req-1";
        case "getFunctionName" -> "squall-" + args[0];
        case "getFunctionVersion" -> "1";
        case "getInvokedFunctionArn" -> "arn:aws:lambda:us-east-1:000000000000:function:squall-" + args[0] + ":live";
        default -> null;
      });
      Class<?> handlerType = Class.forName(HANDLER, true, loader);
      Object handler = handlerType.getDeclaredConstructor().newInstance();
      Method handle = handlerType.getMethod("handleRequest", InputStream.class, OutputStream.class, contextType);
      long ready = System.currentTimeMillis();
      byte[] event = (args[0].equals("task") ? EMPTY_TASK : HEALTH).getBytes(StandardCharsets.UTF_8);
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      handle.invoke(handler, new ByteArrayInputStream(event), answer, context);
      long answered = System.currentTimeMillis();
      System.out.printf("PROBE init %d ms, first answer %d ms after JVM start (%d bytes)%n",
          ready - jvmStart, answered - jvmStart, answer.size());
      System.out.flush();
      long primeMs = -1;
      try {
        String priming = args[0].equals("task") ? "dev.squall.task.lambda.TaskPriming"
            : "dev.squall.coordinator.lambda.CoordinatorPriming";
        Object resource = Class.forName(priming, true, loader).getDeclaredConstructor().newInstance();
        long t = System.nanoTime();
        resource.getClass().getMethod("beforeCheckpoint", Class.forName("org.crac.Context", true, loader))
            .invoke(resource, new Object[] {null});
        primeMs = (System.nanoTime() - t) / 1_000_000;
      } catch (ReflectiveOperationException e) {
        System.err.println("priming not run: " + e);
      }
      System.out.printf("PRIMING %d ms%n", primeMs);
      System.exit(0);
    }
  }
}
