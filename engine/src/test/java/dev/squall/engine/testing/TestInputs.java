package dev.squall.engine.testing;

import dev.squall.engine.input.BatchSource;
import dev.squall.engine.input.BatchSources;
import dev.squall.engine.input.InputProvider;
import dev.squall.proto.v1.Operator;
import dev.squall.proto.v1.ScanInput;
import dev.squall.proto.v1.ScanSplit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.io.FileIO;

/**
 * Task inputs for in-process tests: scan inputs are the TPC-H fixture's splits of the table each
 * Scan names; shuffle inputs are batches made by a supplied function.
 */
public final class TestInputs implements InputProvider {
  private final Map<Integer, ScanInput> scans = new HashMap<>();
  private final Map<Integer, Function<BufferAllocator, List<VectorSchemaRoot>>> shuffles = new HashMap<>();
  private final FileIO io = new LocalFileIO();

  public static TestInputs forPlan(Operator plan, TpchFixture fixture) {
    TestInputs in = new TestInputs();
    in.collect(plan, fixture);
    return in;
  }

  public TestInputs withShuffle(int index, Function<BufferAllocator, List<VectorSchemaRoot>> batches) {
    shuffles.put(index, batches);
    return this;
  }

  private void collect(Operator op, TpchFixture fixture) {
    if (op.hasScan()) {
      String table = op.getScan().getTable().replace("tpch.", "");
      ScanInput.Builder b = ScanInput.newBuilder();
      TpchFixture.Table t = fixture.table(table);
      for (int i = 0; i < t.splitJson().size(); i++) {
        b.addSplits(ScanSplit.newBuilder().setFileScanTaskJson(t.splitJson().get(i)).setDataFilePath(t.files().get(i)));
      }
      scans.put(op.getScan().getInputIndex(), b.build());
      return;
    }
    for (var f : op.getAllFields().entrySet()) {
      Object v = f.getValue();
      if (v instanceof Operator child) {
        collect(child, fixture);
      } else if (v instanceof com.google.protobuf.Message m) {
        for (var g : m.getAllFields().entrySet()) {
          Object w = g.getValue();
          if (w instanceof Operator c) {
            collect(c, fixture);
          } else if (w instanceof List<?> list) {
            for (Object o : list) {
              if (o instanceof Operator c) {
                collect(c, fixture);
              }
            }
          }
        }
      }
    }
  }

  @Override
  public ScanInput scanInput(int inputIndex) {
    ScanInput s = scans.get(inputIndex);
    if (s == null) {
      throw new IllegalArgumentException("input " + inputIndex + " is not a scan input");
    }
    return s;
  }

  @Override
  public FileIO fileIO() {
    return io;
  }

  @Override
  public BatchSource shuffleInput(int inputIndex, BufferAllocator allocator) {
    var f = shuffles.get(inputIndex);
    if (f == null) {
      throw new IllegalArgumentException("input " + inputIndex + " is not a shuffle input");
    }
    return BatchSources.of(f.apply(allocator));
  }
}
