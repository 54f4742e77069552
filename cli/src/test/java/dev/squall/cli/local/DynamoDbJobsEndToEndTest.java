package dev.squall.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.squall.jobstore.DynaliteServer;
import dev.squall.jobstore.dynamodb.DynamoDbJobStore;
import dev.squall.local.lambda.LambdaHandler;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The coordinator on the job store it uses on AWS: the DynamoDB store, here against dynalite (the
 * DynamoDB API on 127.0.0.1, installed from npm and started by the test). Queries, writes and
 * cancel run through the whole local stack with every job state in DynamoDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DynamoDbJobsEndToEndTest {
  private static final String Q = "select o_orderpriority, count(*) as n, sum(o_totalprice) as p "
      + "from tpch.orders group by o_orderpriority order by o_orderpriority";

  private volatile long taskDelayMillis;
  private DynaliteServer dynalite;
  private DynamoDbClient dynamo;
  private DynamoDbJobStore store;
  private TestStack stack;
  private Connection duck;

  private LambdaHandler delayed(LambdaHandler real) {
    return (payload, ctx) -> {
      long delay = taskDelayMillis;
      if (delay > 0) {
        Thread.sleep(delay);
      }
      return real.handle(payload, ctx);
    };
  }

  @BeforeAll
  void start() throws Exception {
    dynalite = DynaliteServer.start();
    dynamo = DynamoDbClient.builder().endpointOverride(dynalite.endpoint()).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
        .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    DynamoDbJobStore.createTable(dynamo, "squall-jobs");
    store = new DynamoDbJobStore(dynamo, "squall-jobs", Duration.ofDays(1));
    stack = TestStack.startWith(0.01, 5_000, o -> o.withJobStore(store).withTaskHandlerWrapper(this::delayed));
    duck = stack.duckDb();
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {duck, stack, store, dynamo, dynalite}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  void asyncQueryKeptInDynamoDbSucceedsWithDuckDbsAnswer() throws Exception {
    String id = stack.submitAsync(Q, Map.of("target_split_size_bytes", "65536"));
    JsonNode status = stack.awaitTerminal(id, Duration.ofMinutes(2));
    assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("SUCCEEDED");
    assertThat(store.get(id).orElseThrow().resultLocation()).endsWith("results/" + id + ".arrows");
    assertThat(store.winners(id)).hasSize(status.at("/summary/tasks").asInt());
    HttpResponse<byte[]> result = stack.send("GET", "/v1/queries/" + id + "/result", "application/vnd.apache.arrow.stream");
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(Q.replace("tpch.", ""))) {
      assertThat(ResultRows.difference(ResultRows.fromArrow(result.body()), ResultRows.fromJdbc(rs), true)).isNull();
    }
    assertThat(stack.objectsLeftBy(id, Duration.ofSeconds(5))).isEmpty();
  }

  @Test
  void writeAndCancelWithJobsInDynamoDb() throws Exception {
    HttpResponse<byte[]> ctas = stack.post("create table tpch.ddb_orders as select * from tpch.orders", Map.of(),
        "application/json");
    assertThat(ctas.statusCode()).as(new String(ctas.body())).isEqualTo(200);
    try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery("select count(*) from orders")) {
      rs.next();
      assertThat(new String(ctas.body())).contains("\"rows\":[[" + rs.getLong(1) + "]]");
    }

    taskDelayMillis = 1000;
    try {
      String id = stack.submitAsync(Q, Map.of("target_split_size_bytes", "65536"));
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!stack.status(id).get("state").asText().equals("RUNNING") && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertThat(stack.send("DELETE", "/v1/queries/" + id, "application/json").statusCode()).isEqualTo(202);
      JsonNode status = stack.awaitTerminal(id, Duration.ofSeconds(5));
      assertThat(status.get("state").asText()).as(status.toString()).isEqualTo("CANCELLED");
      assertThat(stack.objectsLeftBy(id, Duration.ofSeconds(5))).isEmpty();
    } finally {
      taskDelayMillis = 0;
    }
  }
}
