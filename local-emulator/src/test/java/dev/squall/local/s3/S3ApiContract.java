package dev.squall.local.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 operations Squall relies on, run with the stock AWS SDK v2 S3Client against an S3 endpoint
 * supplied by a subclass (embedded S3Proxy, or LocalStack where Docker exists). Expected bytes are
 * always the bytes the test itself put.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class S3ApiContract {
  private S3Client s3;
  private String bucket;

  /** A client for the endpoint under test; the contract closes it. */
  protected abstract S3Client newClient() throws Exception;

  // Per test rather than @BeforeAll so that a skipped endpoint shows each test as skipped, with the reason.
  @BeforeEach
  void connect() throws Exception {
    if (s3 != null) {
      return;
    }
    s3 = newClient();
    bucket = "contract-" + UUID.randomUUID().toString().substring(0, 8);
    s3.createBucket(b -> b.bucket(bucket));
  }

  @AfterAll
  void closeClient() {
    if (s3 != null) {
      s3.close();
    }
  }

  private static byte[] randomBytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  @Test
  void createdBucketExistsAndIsListed() {
    String created = "created-" + UUID.randomUUID().toString().substring(0, 8);
    s3.createBucket(b -> b.bucket(created));

    s3.headBucket(b -> b.bucket(created));
    assertThat(s3.listBuckets().buckets()).anyMatch(b -> b.name().equals(created));
  }

  @Test
  void putThenGetReturnsTheSameBytes() {
    byte[] data = randomBytes(1_000_003, 1);
    s3.putObject(b -> b.bucket(bucket).key("objects/put-get.bin").contentType("application/octet-stream"),
        RequestBody.fromBytes(data));

    ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(bucket).key("objects/put-get.bin"));
    assertThat(got.asByteArray()).isEqualTo(data);
    assertThat(got.response().contentLength()).isEqualTo(data.length);
  }

  @Test
  void rangedGetReturnsExactlyTheRequestedBytes() {
    byte[] data = randomBytes(100_000, 2);
    s3.putObject(b -> b.bucket(bucket).key("objects/ranged.bin"), RequestBody.fromBytes(data));

    int[][] ranges = {{0, 0}, {10, 19}, {4096, 8191}, {99_990, 99_999}, {0, 99_999}};
    for (int[] range : ranges) {
      ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(bucket).key("objects/ranged.bin")
          .range("bytes=" + range[0] + "-" + range[1]));
      assertThat(got.asByteArray()).as("bytes=%d-%d", range[0], range[1])
          .isEqualTo(Arrays.copyOfRange(data, range[0], range[1] + 1));
      assertThat(got.response().contentRange()).isEqualTo("bytes " + range[0] + "-" + range[1] + "/100000");
    }
    ResponseBytes<GetObjectResponse> tail = s3.getObjectAsBytes(b -> b.bucket(bucket).key("objects/ranged.bin")
        .range("bytes=-16"));
    assertThat(tail.asByteArray()).as("suffix range: the footer of a file").isEqualTo(Arrays.copyOfRange(data, 99_984, 100_000));
  }

  @Test
  void listingFiltersByPrefixAndPagesWithContinuationTokens() {
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String key = String.format("list/stage-1/part-%03d", i);
      expected.add(key);
      s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("p" + key));
    }
    s3.putObject(b -> b.bucket(bucket).key("list/stage-2/part-000"), RequestBody.fromString("other stage"));

    List<String> listed = new ArrayList<>();
    List<Integer> pageSizes = new ArrayList<>();
    String token = null;
    do {
      String continuation = token;
      ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(bucket).prefix("list/stage-1/").maxKeys(5)
          .continuationToken(continuation));
      page.contents().stream().map(S3Object::key).forEach(listed::add);
      pageSizes.add(page.contents().size());
      token = page.isTruncated() ? page.nextContinuationToken() : null;
    } while (token != null);

    assertThat(listed).containsExactlyElementsOf(expected);
    assertThat(pageSizes).containsExactly(5, 5, 2);

    ListObjectsV2Response grouped = s3.listObjectsV2(b -> b.bucket(bucket).prefix("list/").delimiter("/"));
    assertThat(grouped.commonPrefixes()).extracting(CommonPrefix::prefix)
        .containsExactly("list/stage-1/", "list/stage-2/");
  }

  @Test
  void multipartUploadAssemblesThePartsInOrder() {
    byte[] part1 = randomBytes(5 * 1024 * 1024, 3); // S3's minimum size for all parts but the last
    byte[] part2 = randomBytes(1_234_567, 4);
    String key = "objects/multipart.parquet";
    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
    String etag1 = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(1),
        RequestBody.fromBytes(part1)).eTag();
    String etag2 = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(2),
        RequestBody.fromBytes(part2)).eTag();
    s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(
        p -> p.partNumber(1).eTag(etag1), p -> p.partNumber(2).eTag(etag2))));

    byte[] expected = new byte[part1.length + part2.length];
    System.arraycopy(part1, 0, expected, 0, part1.length);
    System.arraycopy(part2, 0, expected, part1.length, part2.length);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray()).isEqualTo(expected);
    int from = part1.length - 10;
    assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=" + from + "-" + (from + 19))).asByteArray())
        .as("a range across the part boundary").isEqualTo(Arrays.copyOfRange(expected, from, from + 20));
  }

  @Test
  void deletedObjectIsGone() {
    s3.putObject(b -> b.bucket(bucket).key("objects/deleted.bin"), RequestBody.fromString("short-lived"));

    s3.deleteObject(b -> b.bucket(bucket).key("objects/deleted.bin"));

    assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(bucket).key("objects/deleted.bin")))
        .isInstanceOfSatisfying(NoSuchKeyException.class, e -> assertThat(e.statusCode()).isEqualTo(404));
    assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("objects/deleted.bin")).contents()).isEmpty();
  }

  @Test
  void putIfNoneMatchRefusesAnExistingKeyWith412() {
    s3.putObject(b -> b.bucket(bucket).key("commits/attempt-0").ifNoneMatch("*"), RequestBody.fromString("first"));

    assertThatThrownBy(() -> s3.putObject(b -> b.bucket(bucket).key("commits/attempt-0").ifNoneMatch("*"),
        RequestBody.fromString("second")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("commits/attempt-0")).asUtf8String())
        .as("the first writer's object survives").isEqualTo("first");
  }
}
