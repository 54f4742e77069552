package dev.squall.coordinator.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.squall.coordinator.api.QueryAnswer;
import dev.squall.proto.v1.OperatorMetrics;
import dev.squall.proto.v1.QueryCost;
import dev.squall.proto.v1.QuerySummary;
import dev.squall.proto.v1.S3RequestCounts;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Base64;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Renders an answer as JSON:
 * {@code {"queryId", "columns": [{"name", "type"}], "rows": [[...]], "summary": {...}}}.
 * Decimals are strings (exact), dates and timestamps ISO-8601 strings (timestamps always with
 * seconds, e.g. {@code 2024-01-01T10:00:00}, and micro-seconds when not zero), binary base64, NULL
 * null; other numbers and booleans are JSON numbers and booleans.
 */
public final class JsonResultWriter {
  private final ObjectMapper mapper;

  JsonResultWriter(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  String write(QueryAnswer answer) {
    ObjectNode root = mapper.createObjectNode();
    root.put("queryId", answer.queryId());
    ArrayNode columns = root.putArray("columns");
    ArrayNode rows = root.putArray("rows");
    if (!answer.resultUrls().isEmpty()) {
      ArrayNode urls = root.putArray("resultUrls");
      answer.resultUrls().forEach(urls::add);
    } else {
      addColumnsAndRows(answer.arrowIpc(), columns, rows);
    }
    root.set("summary", summary(answer.summary()));
    return root.toString();
  }

  /**
   * Appends an Arrow IPC stream's columns ({@code {"name", "type"}}) and rows, rendered as
   * described above (also used by the CLI for answers it fetches from a result URL).
   *
   * @throws UncheckedIOException when the stream cannot be read
   */
  public static void addColumnsAndRows(byte[] arrowIpc, ArrayNode columns, ArrayNode rows) {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(arrowIpc), allocator)) {
      VectorSchemaRoot batch = reader.getVectorSchemaRoot();
      for (Field field : batch.getSchema().getFields()) {
        columns.addObject().put("name", field.getName()).put("type", sqlType(field.getType()));
      }
      while (reader.loadNextBatch()) {
        for (int r = 0; r < batch.getRowCount(); r++) {
          ArrayNode row = rows.addArray();
          for (FieldVector vector : batch.getFieldVectors()) {
            addValue(row, vector, r);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the result's Arrow IPC stream", e);
    }
  }

  /**
   * A timestamp as ISO-8601 text that always shows its seconds ({@code LocalDateTime#toString}
   * leaves out zero seconds), with the fraction only when it is not zero: {@code 2024-01-01T10:00:00},
   * {@code 2024-01-01T10:00:00.250}.
   */
  public static String timestamp(LocalDateTime t) {
    return TIMESTAMP.format(t);
  }

  private static final java.time.format.DateTimeFormatter TIMESTAMP = new java.time.format.DateTimeFormatterBuilder()
      .append(java.time.format.DateTimeFormatter.ISO_LOCAL_DATE).appendLiteral('T')
      .appendPattern("HH:mm:ss").optionalStart()
      .appendFraction(java.time.temporal.ChronoField.MICRO_OF_SECOND, 0, 6, true).toFormatter();

  ObjectNode summary(QuerySummary s) {
    return summary(s, true);
  }

  /**
   * The summary as JSON; {@code operators} false leaves out the per-operator lines of each stage
   * (the {@code x-squall-summary} header, which must stay small).
   */
  ObjectNode summary(QuerySummary s, boolean operators) {
    ObjectNode node = mapper.createObjectNode();
    node.put("stages", s.getStages());
    node.put("tasks", s.getTasks());
    node.put("attempts", s.getAttempts());
    node.put("rows", s.getRows());
    node.put("bytesScanned", s.getBytesScanned());
    node.put("bytesShuffled", s.getBytesShuffled());
    node.put("s3Requests", s.getS3Requests());
    node.put("wallMillis", s.getWallMillis());
    node.put("taskMemoryBudgetBytes", s.getTaskMemoryBudgetBytes());
    node.put("bytesSpilled", s.getBytesSpilled());
    node.put("scheduling", s.getScheduling());
    if (s.hasCost()) {
      node.set("cost", cost(s.getCost()));
    }
    ArrayNode stages = node.putArray("stageSummaries");
    for (var st : s.getStageSummariesList()) {
      ObjectNode stage = stages.addObject().put("stageId", st.getStageId()).put("tasks", st.getTasks())
          .put("attempts", st.getAttempts()).put("outputEdge", st.getOutputEdge()).put("scans", st.getScans())
          .put("maxPeakMemoryBytes", st.getMaxPeakMemoryBytes()).put("bytesSpilled", st.getBytesSpilled())
          .put("rowsIn", st.getRowsIn()).put("rowsOut", st.getRowsOut()).put("wallMillis", st.getWallMillis())
          .put("cpuMillis", st.getCpuMillis()).put("bytesScanned", st.getBytesScanned())
          .put("bytesShuffled", st.getBytesShuffled()).put("taskGbSeconds", st.getTaskGbSeconds());
      if (st.getSkewedPartitionsSplit() > 0) {
        stage.put("skewedPartitionsSplit", st.getSkewedPartitionsSplit());
      }
      if (st.getBroadcastSwitched()) {
        stage.put("broadcastSwitched", true);
      }
      stage.set("s3", requests(st.getS3()));
      if (st.getAttemptsByTierMbCount() > 0) {
        // Task-size tiers: the estimate the stage's tier came from, and its attempts by tier (MB).
        stage.put("estimatedTaskMemoryBytes", st.getEstimatedTaskMemoryBytes());
        ObjectNode tiers = stage.putObject("attemptsByTierMb");
        new java.util.TreeMap<>(st.getAttemptsByTierMbMap()).forEach((mb, n) -> tiers.put(Integer.toString(mb), n));
      }
      long[] scan = new long[7];
      for (OperatorMetrics op : st.getOperatorsList()) {
        scan[0] += op.getRowGroups();
        scan[1] += op.getRowGroupsRead();
        scan[2] += op.getRuntimeFilterRowGroupsSkipped();
        scan[3] += op.getRuntimeFilterBytesSkipped();
        scan[4] += op.getRuntimeFilterRowsDropped();
        scan[5] += op.getRuntimeFilterFilesSkipped();
        scan[6] += op.getRuntimeFilterFileBytesSkipped();
      }
      if (scan[0] > 0 || scan[5] > 0) {
        stage.put("rowGroups", scan[0]).put("rowGroupsRead", scan[1]).put("runtimeFilterRowGroupsSkipped", scan[2])
            .put("runtimeFilterBytesSkipped", scan[3]).put("runtimeFilterRowsDropped", scan[4])
            .put("runtimeFilterFilesSkipped", scan[5]).put("runtimeFilterFileBytesSkipped", scan[6]);
      }
      if (operators) {
        ArrayNode ops = stage.putArray("operators");
        for (OperatorMetrics op : st.getOperatorsList()) {
          ops.addObject().put("kind", op.getKind()).put("rowsIn", op.getRowsIn()).put("rowsOut", op.getRowsOut())
              .put("wallMillis", op.getWallNanos() / 1_000_000);
        }
      }
    }
    return node;
  }

  private ObjectNode cost(QueryCost c) {
    ObjectNode node = mapper.createObjectNode();
    node.put("taskGbSeconds", c.getTaskGbSeconds());
    node.put("coordinatorGbSeconds", c.getCoordinatorGbSeconds());
    node.put("invocations", c.getInvocations());
    node.put("taskInvocations", c.getTaskInvocations());
    node.put("coordinatorInvocations", c.getCoordinatorInvocations());
    node.put("invokerInvocations", c.getInvokerInvocations());
    node.put("invokerGbSeconds", c.getInvokerGbSeconds());
    node.set("s3", requests(c.getS3()));
    node.set("coordinatorS3", requests(c.getCoordinatorS3()));
    node.put("jobStoreReads", c.getJobStoreReads());
    node.put("jobStoreWrites", c.getJobStoreWrites());
    node.put("bytesScanned", c.getBytesScanned());
    node.put("dollars", c.getDollars());
    node.put("priceTable", c.getPriceTable());
    return node;
  }

  private ObjectNode requests(S3RequestCounts r) {
    return mapper.createObjectNode().put("put", r.getPut()).put("get", r.getGet()).put("list", r.getList())
        .put("head", r.getHead()).put("delete", r.getDelete()).put("bytesPut", r.getBytesPut())
        .put("bytesGet", r.getBytesGet());
  }

  private static void addValue(ArrayNode row, FieldVector vector, int r) {
    if (vector.isNull(r)) {
      row.addNull();
    } else if (vector instanceof DecimalVector v) {
      row.add(v.getObject(r).toPlainString());
    } else if (vector instanceof DateDayVector v) {
      row.add(LocalDate.ofEpochDay(v.get(r)).toString());
    } else if (vector instanceof TimeStampMicroVector v) {
      row.add(timestamp(v.getObject(r)));
    } else if (vector instanceof BigIntVector v) {
      row.add(v.get(r));
    } else if (vector instanceof IntVector v) {
      row.add(v.get(r));
    } else if (vector instanceof SmallIntVector v) {
      row.add(v.get(r));
    } else if (vector instanceof TinyIntVector v) {
      row.add(v.get(r));
    } else if (vector instanceof Float8Vector v) {
      row.add(v.get(r));
    } else if (vector instanceof Float4Vector v) {
      row.add(v.get(r));
    } else if (vector instanceof BitVector v) {
      row.add(v.get(r) != 0);
    } else if (vector instanceof VarCharVector v) {
      row.add(v.getObject(r).toString());
    } else if (vector instanceof VarBinaryVector v) {
      row.add(Base64.getEncoder().encodeToString(v.get(r)));
    } else {
      Object value = vector.getObject(r);
      row.add(value instanceof BigDecimal d ? d.toPlainString() : String.valueOf(value));
    }
  }

  /** The SQL name of an Arrow type, as Squall maps them (see types.proto). */
  static String sqlType(ArrowType type) {
    return switch (type.getTypeID()) {
      case Bool -> "BOOLEAN";
      case Int -> switch (((ArrowType.Int) type).getBitWidth()) {
        case 8 -> "TINYINT";
        case 16 -> "SMALLINT";
        case 32 -> "INTEGER";
        default -> "BIGINT";
      };
      case FloatingPoint -> ((ArrowType.FloatingPoint) type).getPrecision()
          == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE ? "REAL" : "DOUBLE";
      case Decimal -> "DECIMAL(" + ((ArrowType.Decimal) type).getPrecision() + ", " + ((ArrowType.Decimal) type).getScale() + ")";
      case Date -> "DATE";
      case Timestamp -> "TIMESTAMP";
      case Utf8, LargeUtf8 -> "VARCHAR";
      case Binary, LargeBinary -> "VARBINARY";
      default -> type.toString();
    };
  }
}
