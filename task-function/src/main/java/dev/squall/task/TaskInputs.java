package dev.squall.task;

import dev.squall.engine.input.BatchSource;
import dev.squall.engine.input.InputProvider;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.TaskInput;
import dev.squall.proto.v1.TaskSpec;
import dev.squall.shuffle.PipelinedShuffleReader;
import dev.squall.shuffle.ShuffleMetrics;
import dev.squall.shuffle.ShuffleReader;
import dev.squall.shuffle.ShuffleReaderOptions;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.iceberg.io.FileIO;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The inputs of one task attempt as the engine sees them: scan inputs are the spec's Iceberg splits
 * read through {@code fileIO}; shuffle inputs are {@link ShuffleReader}s over the winning map
 * outputs' byte ranges, or {@link PipelinedShuffleReader}s that learn the winners as the coordinator
 * publishes them (pipelined scheduling). Keeps every reader's metrics for the task result.
 */
final class TaskInputs implements InputProvider {
  private final TaskSpec spec;
  private final FileIO fileIO;
  private final S3Client s3;
  private final ShuffleReaderOptions shuffleOptions;
  private final BooleanSupplier stop;
  private final List<ShuffleMetrics> readers = new ArrayList<>();

  /** @param stop the task's cancel probe, asked while a pipelined input waits for winners */
  TaskInputs(TaskSpec spec, FileIO fileIO, S3Client s3, ShuffleReaderOptions shuffleOptions, BooleanSupplier stop) {
    this.spec = spec;
    this.stop = stop;
    this.fileIO = fileIO;
    this.s3 = s3;
    this.shuffleOptions = shuffleOptions;
  }

  private TaskInput input(int index) {
    if (index < 0 || index >= spec.getInputsCount()) {
      throw new IllegalArgumentException("task " + spec.getStageId() + "." + spec.getPartition()
          + " has no input " + index + " (it has " + spec.getInputsCount() + ")");
    }
    return spec.getInputs(index);
  }

  @Override
  public ScanInput scanInput(int inputIndex) {
    TaskInput in = input(inputIndex);
    if (!in.hasScan()) {
      throw new IllegalArgumentException("input " + inputIndex + " is not a scan input but " + in.getKindCase());
    }
    return in.getScan();
  }

  @Override
  public FileIO fileIO() {
    return fileIO;
  }

  @Override
  public BatchSource shuffleInput(int inputIndex, BufferAllocator allocator) {
    TaskInput in = input(inputIndex);
    if (!in.hasShuffle()) {
      throw new IllegalArgumentException("input " + inputIndex + " is not a shuffle input but " + in.getKindCase());
    }
    Iterator<VectorSchemaRoot> reader;
    AutoCloseable closer;
    if (in.getShuffle().hasPipelined()) {
      PipelinedShuffleReader pipelined = PipelinedShuffleReader.open(s3, allocator, in.getShuffle().getSchema(),
          in.getShuffle().getPipelined(), shuffleOptions, stop);
      readers.add(pipelined.metrics());
      reader = pipelined;
      closer = pipelined;
    } else {
      ShuffleReader plain = ShuffleReader.open(s3, allocator, in.getShuffle(), shuffleOptions);
      readers.add(plain.metrics());
      reader = plain;
      closer = plain;
    }
    return new BatchSource() {
      @Override
      public boolean hasNext() {
        return reader.hasNext();
      }

      @Override
      public VectorSchemaRoot next() {
        return owned(reader.next(), allocator);
      }

      @Override
      public void close() {
        try {
          closer.close();
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    };
  }

  /**
   * The reader reuses its batch object for the next batch, while the engine owns and closes every
   * batch it is given: hand the engine a new root holding the buffers (a transfer, not a copy).
   */
  static VectorSchemaRoot owned(VectorSchemaRoot reused, BufferAllocator allocator) {
    List<FieldVector> vectors = new ArrayList<>(reused.getFieldVectors().size());
    for (FieldVector v : reused.getFieldVectors()) {
      TransferPair transfer = v.getTransferPair(allocator);
      transfer.transfer();
      vectors.add((FieldVector) transfer.getTo());
    }
    VectorSchemaRoot root = new VectorSchemaRoot(vectors);
    root.setRowCount(reused.getRowCount());
    return root;
  }

  /** Sum of the shuffle readers' counters so far. */
  List<ShuffleMetrics> readerMetrics() {
    return List.copyOf(readers);
  }
}
