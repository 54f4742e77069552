package dev.squall.engine.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.squall.engine.input.BatchSource;
import dev.squall.engine.input.InputProvider;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.LocalFileIO;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.proto.v1.ScanInput;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A scan over many small data files opens several splits ahead at once, never more than {@link
 * ScanOperator#MAX_SPLITS_AHEAD} beyond the current one, and leaves no data file open, also when
 * its consumer stops early.
 */
class ScanOpenAheadTest {
  private static final int FILES = 12;
  private static final int ROWS_PER_FILE = 3_000;
  private final TpchFixture f = manyFiles(TpchFixture.sf001());

  @Test
  void manySmallFilesAreOpenedSeveralAtOnceWithinTheBoundAndAllClosed() throws Exception {
    Rel rel = Rel.scan(f, "many_files", 0, "k", "v");
    SlowFileIO io = new SlowFileIO(Duration.ofMillis(15));
    List<List<Object>> actual = Rows.run(rel.op(), inputs(rel, io), 64L << 20);
    assertNull(Rows.difference(Rows.duckdb(DuckDbOracle.connection(), rel.sql()), actual, false));
    assertThat(io.opened.get()).isEqualTo(FILES);
    // One file read and one opened ahead was the old bound: several round trips overlap now.
    assertThat(io.peakOpen.get()).as("data files open at once").isGreaterThan(2)
        .isLessThanOrEqualTo(ScanOperator.MAX_SPLITS_AHEAD + 1);
    assertThat(io.open.get()).as("data files left open").isZero();
  }

  @Test
  void aScanWhoseConsumerStopsEarlyClosesEverySplitOpenedAhead() throws Exception {
    Rel rel = Rel.scan(f, "many_files", 0, "k", "v").limit(0, 10);
    SlowFileIO io = new SlowFileIO(Duration.ofMillis(15));
    List<List<Object>> actual = Rows.run(rel.op(), inputs(rel, io), 64L << 20);
    assertThat(actual).hasSize(10);
    assertThat(io.opened.get()).as("files opened before the limit was reached").isGreaterThan(1).isLessThan(FILES);
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (io.open.get() > 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(io.open.get()).as("data files left open").isZero();
  }

  private InputProvider inputs(Rel rel, FileIO io) {
    TestInputs plain = TestInputs.forPlan(rel.op(), f);
    return new InputProvider() {
      @Override
      public ScanInput scanInput(int inputIndex) {
        return plain.scanInput(inputIndex);
      }

      @Override
      public FileIO fileIO() {
        return io;
      }

      @Override
      public BatchSource shuffleInput(int inputIndex, BufferAllocator allocator) {
        return plain.shuffleInput(inputIndex, allocator);
      }
    };
  }

  /** Registers a table of {@link #FILES} data files of {@link #ROWS_PER_FILE} rows each (once). */
  private static TpchFixture manyFiles(TpchFixture f) {
    Schema schema = new Schema(Types.NestedField.optional(1, "k", Types.LongType.get()),
        Types.NestedField.optional(2, "v", Types.StringType.get()));
    List<List<Object[]>> files = new ArrayList<>();
    for (int file = 0; file < FILES; file++) {
      List<Object[]> rows = new ArrayList<>();
      for (int r = 0; r < ROWS_PER_FILE; r++) {
        long k = (long) file * ROWS_PER_FILE + r;
        rows.add(new Object[] {k, k % 7 == 0 ? null : "v-" + (k % 113)});
      }
      files.add(rows);
    }
    f.addTable("many_files", schema, files, Map.of());
    return f;
  }

  /**
   * Local files whose streams wait {@code delay} before their first read (a GET's round trip),
   * counting the streams opened, open now and at most open at once.
   */
  private static final class SlowFileIO implements FileIO {
    private final Duration delay;
    private final LocalFileIO local = new LocalFileIO();
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger open = new AtomicInteger();
    final AtomicInteger peakOpen = new AtomicInteger();

    SlowFileIO(Duration delay) {
      this.delay = delay;
    }

    @Override
    public InputFile newInputFile(String path) {
      InputFile file = local.newInputFile(path);
      return new InputFile() {
        @Override
        public long getLength() {
          return file.getLength();
        }

        @Override
        public SeekableInputStream newStream() {
          opened.incrementAndGet();
          peakOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
          return new SlowStream(file.newStream());
        }

        @Override
        public String location() {
          return file.location();
        }

        @Override
        public boolean exists() {
          return file.exists();
        }
      };
    }

    @Override
    public OutputFile newOutputFile(String path) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void deleteFile(String path) {
      throw new UnsupportedOperationException();
    }

    private final class SlowStream extends SeekableInputStream {
      private final SeekableInputStream in;
      private boolean waited;
      private boolean closed;

      SlowStream(SeekableInputStream in) {
        this.in = in;
      }

      private void firstRead() throws IOException {
        if (!waited) {
          waited = true;
          try {
            Thread.sleep(delay.toMillis());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
          }
        }
      }

      @Override
      public long getPos() throws IOException {
        return in.getPos();
      }

      @Override
      public void seek(long pos) throws IOException {
        in.seek(pos);
      }

      @Override
      public int read() throws IOException {
        firstRead();
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        firstRead();
        return in.read(b, off, len);
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          open.decrementAndGet();
        }
        in.close();
      }
    }
  }
}
