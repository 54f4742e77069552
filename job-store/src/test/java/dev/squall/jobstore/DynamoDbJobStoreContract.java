package dev.squall.jobstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.jobstore.dynamodb.DynamoDbJobStore;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The job store contract against {@link DynamoDbJobStore} on some DynamoDB endpoint; each test gets
 * its own new table.
 */
abstract class DynamoDbJobStoreContract extends JobStoreContract {
  private static final AtomicInteger TABLES = new AtomicInteger();
  private String table;

  /** The client of the endpoint under test. */
  protected abstract DynamoDbClient client();

  /** A client of a local endpoint with dummy static credentials. */
  static DynamoDbClient localClient(URI endpoint, String region, String accessKey, String secretKey) {
    return DynamoDbClient.builder()
        .endpointOverride(endpoint)
        .region(Region.of(region))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }

  @Override
  protected JobStore openStore(Duration retention) {
    table = "squall-jobs-" + TABLES.incrementAndGet();
    DynamoDbJobStore.createTable(client(), table);
    return new DynamoDbJobStore(client(), table, retention);
  }

  @Override
  protected boolean purgeDeletesExpiredJobs() {
    return false;
  }

  @Test
  void onlyNonTerminalJobsCarryTheSweepIndexKey() {
    store.create(new NewJob("job-open", "SELECT 1", Map.of()), t0);
    store.create(new NewJob("job-closed", "SELECT 2", Map.of()), t0);
    Lease lease = store.acquire("job-closed", "coord-a", t0, Duration.ofSeconds(30)).orElseThrow();
    store.transition(lease, JobState.QUEUED, JobState.FAILED,
        JobUpdate.error(new JobError("INTERNAL", "x", 0, 0)), t0.plusSeconds(1));

    assertThat(jobItem("job-open")).containsKeys("sweep", "sweep_key");
    assertThat(jobItem("job-closed")).doesNotContainKey("sweep");
    List<Map<String, AttributeValue>> indexed = client().query(r -> r.tableName(table)
        .indexName(DynamoDbJobStore.UNFINISHED_INDEX).keyConditionExpression("sweep = :s")
        .expressionAttributeValues(Map.of(":s", AttributeValue.fromS("UNFINISHED")))).items();
    assertThat(indexed).extracting(i -> i.get("job_id").s()).containsExactly("job-open");
  }

  private Map<String, AttributeValue> jobItem(String jobId) {
    return client().getItem(r -> r.tableName(table).consistentRead(true)
        .key(Map.of("job_id", AttributeValue.fromS(jobId), "item", AttributeValue.fromS("JOB")))).item();
  }

  @Override
  protected void assertMarkedForNativeExpiry(String jobId, Instant expiresAt) {
    List<Map<String, AttributeValue>> items = client().query(r -> r.tableName(table).consistentRead(true)
        .keyConditionExpression("job_id = :j").expressionAttributeValues(Map.of(":j", AttributeValue.fromS(jobId))))
        .items();
    assertThat(items).extracting(i -> i.get("item").s())
        .contains("JOB", "WINNER#0000#000000", "ATTEMPT#0000#000000#000000");
    long expirySeconds = expiresAt.getEpochSecond() + (expiresAt.getNano() == 0 ? 0 : 1);
    for (Map<String, AttributeValue> item : items) {
      AttributeValue ttl = item.get(DynamoDbJobStore.TTL_ATTRIBUTE);
      assertThat(ttl).as("TTL of %s", item.get("item").s()).isNotNull();
      long seconds = Long.parseLong(ttl.n());
      if (item.get("item").s().equals("JOB")) {
        assertThat(seconds).isEqualTo(expirySeconds);
      } else {
        assertThat(seconds).as("a task item must not expire before its job").isGreaterThanOrEqualTo(expirySeconds);
      }
    }
  }
}
