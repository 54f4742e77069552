package dev.squall.jobstore;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The job store contract against the DynamoDB store on dynalite (installed and started by the test). */
class DynaliteJobStoreTest extends DynamoDbJobStoreContract {
  private static DynaliteServer server;
  private static DynamoDbClient client;

  @BeforeAll
  static void startDynalite() {
    server = DynaliteServer.start();
    client = localClient(server.endpoint(), "us-east-1", "dummy-access-key", "dummy-secret-key");
  }

  @AfterAll
  static void stopDynalite() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected DynamoDbClient client() {
    return client;
  }
}
