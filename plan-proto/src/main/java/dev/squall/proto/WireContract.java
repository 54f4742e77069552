package dev.squall.proto;

import com.google.protobuf.Descriptors.FileDescriptor;
import dev.squall.proto.v1.QueryProto;
import dev.squall.proto.v1.TaskSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The identity of Squall's wire contract (the {@code squall.v1} protobuf package).
 *
 * <p>The fingerprint is the first 16 hex digits of the SHA-256 of every {@code squall/v1} file
 * descriptor (its {@code FileDescriptorProto} bytes, files sorted by name). Any change to a
 * message, field, enum or option changes it, so a coordinator and a task function built from
 * different {@code .proto} files refuse to talk instead of misreading each other.
 */
public final class WireContract {
  private static final String FINGERPRINT = compute();

  private WireContract() {}

  /** The fingerprint of the plan-proto this process was built with, 16 lowercase hex digits. */
  public static String fingerprint() {
    return FINGERPRINT;
  }

  /**
   * Checks that a task spec was built against this process's wire contract.
   *
   * @throws IncompatiblePlanException naming both fingerprints when they differ
   */
  public static void checkCompatible(TaskSpec spec) {
    String theirs = spec.getSchemaFingerprint();
    if (!FINGERPRINT.equals(theirs)) {
      throw new IncompatiblePlanException(theirs, FINGERPRINT);
    }
  }

  private static String compute() {
    Map<String, FileDescriptor> files = new LinkedHashMap<>();
    collect(QueryProto.getDescriptor(), files);
    // Operators and stages are reached through task.proto; list them all explicitly anyway.
    collect(dev.squall.proto.v1.StagesProto.getDescriptor(), files);
    List<FileDescriptor> sorted = new ArrayList<>(files.values());
    sorted.sort(Comparator.comparing(FileDescriptor::getName));
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (FileDescriptor file : sorted) {
        sha.update(file.getName().getBytes(StandardCharsets.UTF_8));
        sha.update(file.toProto().toByteArray());
      }
      return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  private static void collect(FileDescriptor file, Map<String, FileDescriptor> into) {
    if (!file.getPackage().equals("squall.v1") || into.containsKey(file.getName())) {
      return;
    }
    into.put(file.getName(), file);
    for (FileDescriptor dep : file.getDependencies()) {
      collect(dep, into);
    }
  }
}
