package dev.squall.engine.input;

import dev.squall.proto.v1.ScanInput;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.io.FileIO;

/**
 * The task's inputs, by {@code TaskSpec.inputs} index, as the task runtime hands them to the engine.
 * Scan inputs are Iceberg splits read through a {@link FileIO}; shuffle inputs are Arrow batches
 * delivered by the shuffle module, so that the engine itself knows nothing of S3.
 */
public interface InputProvider {
  /**
   * The Iceberg splits of scan input {@code inputIndex} ({@code TaskSpec.inputs[i].scan}).
   *
   * @throws IllegalArgumentException when input i is not a scan input
   */
  ScanInput scanInput(int inputIndex);

  /** The FileIO through which data files are read (S3FileIO on Lambda, a local FileIO in tests). */
  FileIO fileIO();

  /**
   * The batches of shuffle input {@code inputIndex}, allocated from {@code allocator} (the reading
   * operator's share of the task budget); each batch belongs to the caller.
   *
   * @throws IllegalArgumentException when input i is not a shuffle input
   */
  BatchSource shuffleInput(int inputIndex, BufferAllocator allocator);
}
