package dev.squall.coordinator;

import dev.squall.jobstore.JobStore;
import dev.squall.jobstore.dynamodb.DynamoDbJobStore;
import java.time.Duration;

/** Opens the job store the deployment names. */
final class JobStores {
  private JobStores() {}

  /** The DynamoDB job store on table {@code table}, with the SDK's default region and credentials. */
  static JobStore dynamoDb(String table, Duration retention) {
    return DynamoDbJobStore.open(table, retention);
  }
}
