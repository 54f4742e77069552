package dev.squall.shuffle.requests;

import dev.squall.shuffle.requests.S3RequestCounter.Kind;
import java.util.function.Function;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.DelegatingS3Client;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Request;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * An {@link S3Client} that counts the requests of every call it passes on, by billing class, into
 * the counter {@code counterOf} picks for the call (a task: its attempt's counter; the coordinator:
 * the job the object key belongs to, or none).
 *
 * <p>A request counts when it is sent: the wrapped client's {@link #interceptor()} counts each HTTP
 * attempt (SDK retries included), so that a hedged GET cancelled before it left is not counted,
 * as S3 never sees (nor bills) it. A wrapped client built without the interceptor still counts each
 * call that succeeded, once. Bytes: PUT and UploadPart bodies as given, GET bodies as announced by
 * the response's Content-Length.
 *
 * <p>Closing it leaves the wrapped client open: it is a view, made per task attempt.
 */
public final class CountingS3Client extends DelegatingS3Client {
  private final Function<S3Request, S3RequestCounter> counterOf;

  private CountingS3Client(S3Client delegate, Function<S3Request, S3RequestCounter> counterOf) {
    super(delegate);
    this.counterOf = counterOf;
  }

  /** {@code delegate}, every call counted into {@code counter}. */
  public static S3Client wrap(S3Client delegate, S3RequestCounter counter) {
    return new CountingS3Client(delegate, r -> counter);
  }

  /** {@code delegate}, each call counted into the counter {@code counterOf} returns (none when null). */
  public static S3Client wrap(S3Client delegate, Function<S3Request, S3RequestCounter> counterOf) {
    return new CountingS3Client(delegate, counterOf);
  }

  /** The interceptor the wrapped client must be built with for requests to count as they are sent. */
  public static ExecutionInterceptor interceptor() {
    return SentRequests.INSTANCE;
  }

  @Override
  @SuppressWarnings("unchecked")
  protected <T extends S3Request, ReturnT> ReturnT invokeOperation(T request, Function<T, ReturnT> operation) {
    S3RequestCounter counter = counterOf.apply(request);
    if (counter == null) {
      return operation.apply(request);
    }
    Call call = new Call(counter);
    AwsRequestOverrideConfiguration.Builder config = request.overrideConfiguration()
        .map(AwsRequestOverrideConfiguration::toBuilder).orElseGet(AwsRequestOverrideConfiguration::builder);
    T tagged = (T) request.toBuilder().overrideConfiguration(config.putExecutionAttribute(CALL, call).build()).build();
    ReturnT result = operation.apply(tagged);
    if (!call.sent) {
      // The wrapped client has no interceptor: the call is counted once, as it succeeded.
      counter.count(kindOf(request));
    }
    return result;
  }

  /** One call's counter, and whether the interceptor saw any of its requests leave. */
  private static final class Call {
    final S3RequestCounter counter;
    volatile boolean sent;

    Call(S3RequestCounter counter) {
      this.counter = counter;
    }
  }

  private static final ExecutionAttribute<Call> CALL = new ExecutionAttribute<>("squall.s3RequestCall");

  /** Counts each HTTP attempt of a tagged call as it is sent. */
  private enum SentRequests implements ExecutionInterceptor {
    INSTANCE;

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
      Call call = attributes.getAttribute(CALL);
      if (call != null && context.request() instanceof S3Request request) {
        call.sent = true;
        call.counter.count(kindOf(request));
      }
    }
  }

  @Override
  public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
    countBytesPut(request, body);
    return super.putObject(request, body);
  }

  @Override
  public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body) {
    countBytesPut(request, body);
    return super.uploadPart(request, body);
  }

  @Override
  public <ReturnT> ReturnT getObject(GetObjectRequest request,
      ResponseTransformer<GetObjectResponse, ReturnT> transformer) {
    S3RequestCounter counter = counterOf.apply(request);
    // A delegating transformer, not a lambda: toInputStream() must keep its connection open.
    return super.getObject(request, new ResponseTransformer<GetObjectResponse, ReturnT>() {
      @Override
      public ReturnT transform(GetObjectResponse response, AbortableInputStream in) throws Exception {
        if (counter != null && response.contentLength() != null) {
          counter.addBytesGet(response.contentLength());
        }
        return transformer.transform(response, in);
      }

      @Override
      public boolean needsConnectionLeftOpen() {
        return transformer.needsConnectionLeftOpen();
      }

      @Override
      public String name() {
        return transformer.name();
      }
    });
  }

  @Override
  public void close() {
    // A view: the wrapped client belongs to whoever built it.
  }

  private void countBytesPut(S3Request request, RequestBody body) {
    S3RequestCounter counter = counterOf.apply(request);
    if (counter != null && body != null) {
      body.optionalContentLength().ifPresent(counter::addBytesPut);
    }
  }

  /** The billing class of a request. */
  static Kind kindOf(S3Request request) {
    if (request instanceof GetObjectRequest) {
      return Kind.GET;
    }
    if (request instanceof PutObjectRequest || request instanceof UploadPartRequest
        || request instanceof CreateMultipartUploadRequest || request instanceof CompleteMultipartUploadRequest
        || request instanceof CopyObjectRequest) {
      return Kind.PUT;
    }
    if (request instanceof HeadObjectRequest || request instanceof HeadBucketRequest) {
      return Kind.HEAD;
    }
    if (request instanceof ListObjectsV2Request || request instanceof ListObjectsRequest) {
      return Kind.LIST;
    }
    if (request instanceof DeleteObjectRequest || request instanceof DeleteObjectsRequest
        || request instanceof AbortMultipartUploadRequest) {
      return Kind.DELETE;
    }
    // Anything else (bucket calls) S3 bills with the GET class.
    return Kind.GET;
  }
}
