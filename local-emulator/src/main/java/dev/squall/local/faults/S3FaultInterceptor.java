package dev.squall.local.faults;

import java.util.EnumSet;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Injects S3 faults into an S3 client's requests, before each is sent (so that the SDK's own retry
 * sees a 503 as it would from S3): SLOW_DOWN and THROTTLE answer 503 SlowDown, CRASH a reset
 * connection, HANG and DELAY wait, DELETE_OBJECT deletes the object first (through a client without
 * faults), so that the request finds it gone.
 */
public final class S3FaultInterceptor implements ExecutionInterceptor {
  private static final Set<FaultAction> ACTIONS = EnumSet.of(FaultAction.SLOW_DOWN, FaultAction.THROTTLE,
      FaultAction.CRASH, FaultAction.HANG, FaultAction.DELAY, FaultAction.DELETE_OBJECT);

  private final Faults faults;
  private final S3Client direct;

  /**
   * @param direct a client of the same S3 without this interceptor, for DELETE_OBJECT
   */
  public S3FaultInterceptor(Faults faults, S3Client direct) {
    this.faults = faults;
    this.direct = direct;
  }

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    SdkRequest request = context.request();
    String key = keyOf(request);
    faults.fire(FaultPoint.s3(operation, key), ACTIONS).ifPresent(rule -> {
      switch (rule.action()) {
        case SLOW_DOWN, THROTTLE -> throw S3Exception.builder().statusCode(503)
            .message("Please reduce your request rate. (injected)")
            .awsErrorDetails(AwsErrorDetails.builder().errorCode("SlowDown").serviceName("S3")
                .errorMessage("Please reduce your request rate.").build())
            .build();
        case CRASH -> throw SdkClientException.create("Connection reset (injected)");
        case HANG, DELAY -> Faults.pause(rule);
        case DELETE_OBJECT -> {
          String bucket = bucketOf(request);
          if (bucket != null && key != null) {
            direct.deleteObject(b -> b.bucket(bucket).key(key));
          }
        }
        default -> { }
      }
    });
  }

  private static String keyOf(SdkRequest request) {
    if (request instanceof GetObjectRequest r) {
      return r.key();
    }
    if (request instanceof PutObjectRequest r) {
      return r.key();
    }
    if (request instanceof HeadObjectRequest r) {
      return r.key();
    }
    if (request instanceof DeleteObjectRequest r) {
      return r.key();
    }
    if (request instanceof ListObjectsV2Request r) {
      return r.prefix(); // a LIST names no key: its prefix stands for it
    }
    return null;
  }

  private static String bucketOf(SdkRequest request) {
    if (request instanceof GetObjectRequest r) {
      return r.bucket();
    }
    if (request instanceof HeadObjectRequest r) {
      return r.bucket();
    }
    return null;
  }
}
