package dev.squall.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Table and CSV rendering of values that are easy to confuse or to misalign. */
class ResultPrinterTest {
  private static final String[] TEXT = {null, "", "NULL", "'quoted", "中文", "😀x", "plain"};
  private static final LocalDateTime TEN = LocalDateTime.of(2024, 1, 1, 10, 0);

  private static byte[] stream() throws Exception {
    Schema schema = new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE),
        Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null))));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      root.allocateNew();
      VarCharVector s = (VarCharVector) root.getVector(0);
      TimeStampMicroVector ts = (TimeStampMicroVector) root.getVector(1);
      for (int i = 0; i < TEXT.length; i++) {
        if (TEXT[i] == null) {
          s.setNull(i);
        } else {
          s.setSafe(i, TEXT[i].getBytes(StandardCharsets.UTF_8));
        }
        ts.setSafe(i, TEN.plusNanos(i * 250_000_000L).toEpochSecond(ZoneOffset.UTC) * 1_000_000L
            + (i * 250_000L) % 1_000_000L);
      }
      s.setValueCount(TEXT.length);
      ts.setValueCount(TEXT.length);
      root.setRowCount(TEXT.length);
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    return out.toByteArray();
  }

  private static List<String> print(ResultFormat format) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ResultPrinter.print(new ByteArrayInputStream(stream()), format, new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void tableTellsNullFromEmptyAndFromTheStringNull() throws Exception {
    List<String> lines = print(ResultFormat.TABLE);
    List<String> cells = lines.subList(2, 2 + TEXT.length).stream().map(l -> l.split(" \\| ")[0].strip()).toList();
    assertThat(cells).containsExactly("NULL", "''", "'NULL'", "'''quoted'", "中文", "😀x", "plain");
  }

  @Test
  void tableAlignsWideCharactersByDisplayWidth() throws Exception {
    List<String> lines = print(ResultFormat.TABLE);
    // Every row puts its separator at the same display column.
    List<Integer> separators = lines.subList(2, 2 + TEXT.length).stream()
        .map(l -> DisplayWidth.of(l.substring(0, l.indexOf(" | ")))).distinct().toList();
    assertThat(separators).hasSize(1);
    assertThat(DisplayWidth.of("中文")).isEqualTo(4);
    assertThat(DisplayWidth.of("😀x")).isEqualTo(3);
  }

  @Test
  void timestampsKeepTheirSeconds() throws Exception {
    List<String> lines = print(ResultFormat.CSV);
    assertThat(lines.get(1)).endsWith(",2024-01-01 10:00:00");
    assertThat(lines.get(2)).endsWith(",2024-01-01 10:00:00.25");
  }

  @Test
  void csvTellsNullFromEmpty() throws Exception {
    List<String> lines = print(ResultFormat.CSV);
    assertThat(lines.get(0)).isEqualTo("s,ts");
    assertThat(lines.get(1)).startsWith(",2024");
    assertThat(lines.get(2)).startsWith("\"\",2024");
    assertThat(lines.get(3)).startsWith("NULL,2024");
  }

  @Test
  void errorBodyPrintsAsLineColumnAndMessage() {
    String body = "{\"queryId\":\"q1\",\"error\":{\"code\":\"USER_ERROR\",\"message\":\"Column 'n_nam' not found"
        + " (line 1, column 8)\",\"line\":1,\"column\":8}}";
    assertThat(AnswerPrinter.errorLine(400, body.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("error 400: line 1:8: Column 'n_nam' not found");
    assertThat(AnswerPrinter.errorLine(502, "Bad Gateway".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("error 502: Bad Gateway");
  }
}
