package dev.squall.coordinator.scheduler;

import dev.squall.proto.TaskPayloads;
import dev.squall.proto.v1.TaskResult;
import dev.squall.proto.v1.TaskSpec;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Task specs and answers over Lambda's 6 MB payload limit ({@link TaskPayloads#MAX_INLINE_PAYLOAD_BYTES})
 * travel through S3: a large spec is stored under the job's prefix (beside its cancel marker,
 * {@code jobs/<id>/specs/s<stage>-p<partition>-a<attempt>.pb}, deleted with the job's data) and the
 * invocation names it; an answer that names a stored result is read back. Without this a spec over
 * the limit (many splits, each with its file's metadata) was refused by Lambda on every attempt.
 */
public final class TaskPayloadStore {
  private final S3Client s3;

  public TaskPayloadStore(S3Client s3) {
    this.s3 = s3;
  }

  /** The invocation payload for {@code spec}: inline, or a reference to the stored spec. */
  public byte[] request(TaskSpec spec) {
    byte[] inline = TaskPayloads.encodeSpec(spec);
    if (inline.length <= TaskPayloads.MAX_INLINE_PAYLOAD_BYTES) {
      return inline;
    }
    TaskPayloads.ObjectRef ref = specRefOf(spec);
    s3.putObject(b -> b.bucket(ref.bucket()).key(ref.key()), RequestBody.fromBytes(spec.toByteArray()));
    return TaskPayloads.encodeSpecRef(ref);
  }

  /** The task's answer: inline, or read from the object it names. */
  public TaskResult answer(byte[] payload) {
    Optional<TaskPayloads.ObjectRef> ref = TaskPayloads.resultRef(payload);
    if (ref.isEmpty()) {
      return TaskPayloads.decodeResult(payload);
    }
    return TaskPayloads.parseResult(s3.getObjectAsBytes(b -> b.bucket(ref.get().bucket()).key(ref.get().key()))
        .asByteArray());
  }

  /** Where a large spec is stored: under the job's root, named by task and attempt. */
  static TaskPayloads.ObjectRef specRefOf(TaskSpec spec) {
    String marker = spec.getCancelMarker().getObjectKey();
    String root = marker.substring(0, marker.lastIndexOf('/') + 1);
    return new TaskPayloads.ObjectRef(spec.getCancelMarker().getBucket(), root + "specs/s" + spec.getStageId() + "-p"
        + spec.getPartition() + "-a" + spec.getAttempt() + ".pb");
  }
}
