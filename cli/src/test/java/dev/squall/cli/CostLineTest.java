package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class CostLineTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void addsTheTasksAndCoordinatorsRequestsOnOneLine() throws Exception {
    var summary = JSON.readTree("""
        {"cost": {"taskGbSeconds": 4.14, "coordinatorGbSeconds": 9.0, "invocations": 9,
          "s3": {"put": 3, "get": 10, "list": 0, "head": 8, "delete": 0},
          "coordinatorS3": {"put": 1, "get": 2, "list": 1, "head": 0, "delete": 1},
          "jobStoreReads": 20, "jobStoreWrites": 31, "bytesScanned": 1258291,
          "dollars": 0.0000312, "priceTable": "aws-us-east-1-2024-11"}}""");
    assertThat(CostLine.of(summary)).isEqualTo("cost: $0.000031 (aws-us-east-1-2024-11): 4.1 GB-s tasks + 9.0 GB-s"
        + " coordinator, 9 invocations, S3 4 PUT 12 GET 1 LIST 8 HEAD 1 DELETE, job store 20 reads 31 writes,"
        + " 1.2 MB scanned");
  }

  @Test
  void noLineWithoutACost() throws Exception {
    assertThat(CostLine.of(JSON.readTree("{\"rows\": 1}"))).isNull();
    assertThat(CostLine.of(null)).isNull();
  }
}
