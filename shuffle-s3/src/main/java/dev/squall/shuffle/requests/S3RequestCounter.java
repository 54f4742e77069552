package dev.squall.shuffle.requests;

import dev.squall.proto.v1.S3RequestCounts;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts S3 requests by billing class and the bytes they carried; safe to update from any thread.
 * Fed by {@link CountingS3Client}, the one place Squall's S3 requests are counted.
 */
public final class S3RequestCounter {
  /** The billing class of a request (S3's price list groups requests so). */
  public enum Kind { PUT, GET, LIST, HEAD, DELETE }

  private final AtomicLong[] requests = new AtomicLong[Kind.values().length];
  private final AtomicLong bytesPut = new AtomicLong();
  private final AtomicLong bytesGet = new AtomicLong();

  public S3RequestCounter() {
    for (int i = 0; i < requests.length; i++) {
      requests[i] = new AtomicLong();
    }
  }

  /** Counts one request of {@code kind}. */
  public void count(Kind kind) {
    requests[kind.ordinal()].incrementAndGet();
  }

  /** Adds bytes sent in a PUT body. */
  public void addBytesPut(long bytes) {
    bytesPut.addAndGet(Math.max(0, bytes));
  }

  /** Adds bytes received in a GET body. */
  public void addBytesGet(long bytes) {
    bytesGet.addAndGet(Math.max(0, bytes));
  }

  /** Requests of {@code kind} counted so far. */
  public long requests(Kind kind) {
    return requests[kind.ordinal()].get();
  }

  /** The counts as their wire form. */
  public S3RequestCounts toProto() {
    return S3RequestCounts.newBuilder().setPut(requests(Kind.PUT)).setGet(requests(Kind.GET))
        .setList(requests(Kind.LIST)).setHead(requests(Kind.HEAD)).setDelete(requests(Kind.DELETE))
        .setBytesPut(bytesPut.get()).setBytesGet(bytesGet.get()).build();
  }

  /** The sum of two counts, field by field. */
  public static S3RequestCounts plus(S3RequestCounts a, S3RequestCounts b) {
    return S3RequestCounts.newBuilder().setPut(a.getPut() + b.getPut()).setGet(a.getGet() + b.getGet())
        .setList(a.getList() + b.getList()).setHead(a.getHead() + b.getHead())
        .setDelete(a.getDelete() + b.getDelete()).setBytesPut(a.getBytesPut() + b.getBytesPut())
        .setBytesGet(a.getBytesGet() + b.getBytesGet()).build();
  }

  /** All requests of a count, whatever their class. */
  public static long total(S3RequestCounts c) {
    return c.getPut() + c.getGet() + c.getList() + c.getHead() + c.getDelete();
  }
}
