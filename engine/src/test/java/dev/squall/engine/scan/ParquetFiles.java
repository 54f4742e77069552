package dev.squall.engine.scan;

import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MILLIS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.NANOS;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BOOLEAN;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.DOUBLE;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FLOAT;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;

/**
 * Parquet files of every type the scan reads, written with parquet-mr's example writer so that the
 * test controls page versions, encodings, page and row group sizes and compression; plus the
 * Iceberg schema (same field ids) and FileScanTasks over them.
 */
final class ParquetFiles {
  private ParquetFiles() {}

  /**
   * Columns of the all-types file, as DuckDB expressions giving the engine's value form; {@code %1$s}
   * stands for an optional table qualifier.
   */
  static final List<String> DUCKDB_COLUMNS = List.of(
      "%1$sid", "%1$sb", "%1$si32", "%1$si64", "%1$si64_plain", "%1$sf", "%1$sd", "%1$ss", "%1$ss_hi",
      "%1$sdt - DATE '1970-01-01'", "epoch_us(%1$sts_ms)", "epoch_us(%1$sts_us)", "epoch_us(%1$sts_ns)",
      "%1$sdec9", "%1$sdec18", "%1$sdec38b", "%1$sdec38f", "CAST(%1$su AS VARCHAR)", "hex(%1$sfx)", "hex(%1$sbn)",
      "%1$si16");

  /** The DuckDB select list of the all-types columns, qualified with {@code qualifier} ("" for none). */
  static String duckdbColumns(String qualifier) {
    return String.join(", ", DUCKDB_COLUMNS.stream().map(c -> String.format(c, qualifier)).toList());
  }

  static final MessageType PARQUET_SCHEMA = org.apache.parquet.schema.Types.buildMessage()
      .required(INT64).id(1).named("id")
      .optional(BOOLEAN).id(2).named("b")
      .optional(INT32).id(3).named("i32")
      .optional(INT64).id(4).named("i64")
      .optional(INT64).id(5).named("i64_plain")
      .optional(FLOAT).id(6).named("f")
      .optional(DOUBLE).id(7).named("d")
      .optional(BINARY).as(LogicalTypeAnnotation.stringType()).id(8).named("s")
      .optional(BINARY).as(LogicalTypeAnnotation.stringType()).id(9).named("s_hi")
      .optional(INT32).as(LogicalTypeAnnotation.dateType()).id(10).named("dt")
      .optional(INT64).as(LogicalTypeAnnotation.timestampType(false, MILLIS)).id(11).named("ts_ms")
      .optional(INT64).as(LogicalTypeAnnotation.timestampType(false, MICROS)).id(12).named("ts_us")
      .optional(INT64).as(LogicalTypeAnnotation.timestampType(false, NANOS)).id(13).named("ts_ns")
      .optional(INT32).as(LogicalTypeAnnotation.decimalType(2, 9)).id(14).named("dec9")
      .optional(INT64).as(LogicalTypeAnnotation.decimalType(4, 18)).id(15).named("dec18")
      .optional(BINARY).as(LogicalTypeAnnotation.decimalType(6, 38)).id(16).named("dec38b")
      .optional(FIXED_LEN_BYTE_ARRAY).length(16).as(LogicalTypeAnnotation.decimalType(10, 38)).id(17).named("dec38f")
      .optional(FIXED_LEN_BYTE_ARRAY).length(16).as(LogicalTypeAnnotation.uuidType()).id(18).named("u")
      .optional(FIXED_LEN_BYTE_ARRAY).length(5).id(19).named("fx")
      .optional(BINARY).id(20).named("bn")
      .optional(INT32).as(LogicalTypeAnnotation.intType(16, true)).id(21).named("i16")
      .named("all_types");

  static final Schema ICEBERG_SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "b", Types.BooleanType.get()),
      Types.NestedField.optional(3, "i32", Types.IntegerType.get()),
      Types.NestedField.optional(4, "i64", Types.LongType.get()),
      Types.NestedField.optional(5, "i64_plain", Types.LongType.get()),
      Types.NestedField.optional(6, "f", Types.FloatType.get()),
      Types.NestedField.optional(7, "d", Types.DoubleType.get()),
      Types.NestedField.optional(8, "s", Types.StringType.get()),
      Types.NestedField.optional(9, "s_hi", Types.StringType.get()),
      Types.NestedField.optional(10, "dt", Types.DateType.get()),
      Types.NestedField.optional(11, "ts_ms", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(12, "ts_us", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(13, "ts_ns", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(14, "dec9", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(15, "dec18", Types.DecimalType.of(18, 4)),
      Types.NestedField.optional(16, "dec38b", Types.DecimalType.of(38, 6)),
      Types.NestedField.optional(17, "dec38f", Types.DecimalType.of(38, 10)),
      Types.NestedField.optional(18, "u", Types.UUIDType.get()),
      Types.NestedField.optional(19, "fx", Types.FixedType.ofLength(5)),
      Types.NestedField.optional(20, "bn", Types.BinaryType.get()),
      Types.NestedField.optional(21, "i16", Types.IntegerType.get()));

  /** How a file is written. */
  record Layout(WriterVersion version, CompressionCodecName codec, int rowGroupRows, int pageRows, int dictionaryPageBytes) {}

  /** Writes {@code rows} rows of the all-types schema (NULLs, runs of NULLs, extremes) with a seed. */
  static Path writeAllTypes(Path file, int rows, long seed, Layout layout) throws IOException {
    Files.deleteIfExists(file);
    Configuration conf = new Configuration(false);
    SimpleGroupFactory groups = new SimpleGroupFactory(PARQUET_SCHEMA);
    Random rnd = new Random(seed);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(PARQUET_SCHEMA)
        .withConf(conf)
        .withWriterVersion(layout.version())
        .withCompressionCodec(layout.codec())
        .withRowGroupRowCountLimit(layout.rowGroupRows())
        .withPageRowCountLimit(layout.pageRows())
        .withDictionaryPageSize(layout.dictionaryPageBytes())
        .withDictionaryEncoding("i64_plain", false)
        .withDictionaryEncoding("bn", false)
        .build()) {
      for (int r = 0; r < rows; r++) {
        Group g = groups.newGroup();
        g.add("id", (long) r);
        if (present(rnd)) {
          g.add("b", rnd.nextBoolean());
        }
        // A long run of NULLs gives pages without a single value.
        if (present(rnd) && (r < rows / 4 || r > rows / 2)) {
          g.add("i32", rnd.nextInt(40) - 20 + (r % 7 == 0 ? Integer.MAX_VALUE - 20 : 0));
        }
        // The first page of each row group repeats a few values, so the writer keeps its dictionary;
        // later pages are distinct and overflow it: the chunk falls back to PLAIN (V1) or DELTA (V2).
        boolean firstPage = r % layout.rowGroupRows() < layout.pageRows();
        if (present(rnd)) {
          g.add("i64", firstPage ? r % 3 : rnd.nextLong());
        }
        if (present(rnd)) {
          g.add("i64_plain", r % 3 == 0 ? Long.MIN_VALUE + r : (long) r * 1_000_003L - 77);
        }
        if (present(rnd)) {
          g.add("f", rnd.nextFloat() * 1000 - 500);
        }
        if (present(rnd)) {
          g.add("d", rnd.nextGaussian() * 1e6);
        }
        if (present(rnd)) {
          g.add("s", "city-" + rnd.nextInt(30) + (r % 11 == 0 ? "-ünïcødé" : ""));
        }
        if (present(rnd)) {
          g.add("s_hi", firstPage ? "rep-" + r % 4 : r % 13 == 0 ? "" : "row " + r + " " + "x".repeat(r % 37));
        }
        if (present(rnd)) {
          g.add("dt", rnd.nextInt(40_000) - 10_000);
        }
        if (present(rnd)) {
          g.add("ts_ms", rnd.nextLong() % 4_000_000_000_000L);
        }
        if (present(rnd)) {
          g.add("ts_us", rnd.nextLong() % 4_000_000_000_000_000L);
        }
        if (present(rnd)) {
          g.add("ts_ns", Math.floorMod(rnd.nextLong(), 4_000_000_000_000_000_000L));
        }
        if (present(rnd)) {
          g.add("dec9", rnd.nextInt(1_999_999_999) - 999_999_999);
        }
        if (present(rnd)) {
          g.add("dec18", rnd.nextLong() % 999_999_999_999_999_999L);
        }
        if (present(rnd)) {
          g.add("dec38b", Binary.fromConstantByteArray(bigUnscaled(rnd, r).toByteArray()));
        }
        if (present(rnd)) {
          g.add("dec38f", Binary.fromConstantByteArray(fixed16(bigUnscaled(rnd, r + 1))));
        }
        if (present(rnd)) {
          byte[] u = new byte[16];
          rnd.nextBytes(u);
          g.add("u", Binary.fromConstantByteArray(u));
        }
        if (present(rnd)) {
          byte[] fx = new byte[5];
          rnd.nextBytes(fx);
          g.add("fx", Binary.fromConstantByteArray(fx));
        }
        if (present(rnd)) {
          byte[] bn = new byte[rnd.nextInt(12)];
          rnd.nextBytes(bn);
          g.add("bn", Binary.fromConstantByteArray(bn));
        }
        if (present(rnd)) {
          g.add("i16", rnd.nextInt(65536) - 32768);
        }
        w.write(g);
      }
    }
    return file;
  }

  private static boolean present(Random rnd) {
    return rnd.nextInt(10) != 0;
  }

  /** Unscaled values of DECIMAL(38, s): small ones, ones near the long range, and 38-digit ones. */
  private static BigInteger bigUnscaled(Random rnd, int r) {
    BigInteger v = switch (r % 4) {
      case 0 -> BigInteger.valueOf(rnd.nextInt(1_000_000));
      case 1 -> BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.valueOf(rnd.nextInt(3) - 1));
      case 2 -> new BigInteger(120, rnd);
      default -> new BigDecimal("9".repeat(38)).toBigInteger().subtract(BigInteger.valueOf(rnd.nextInt(1000)));
    };
    return rnd.nextBoolean() ? v.negate() : v;
  }

  private static byte[] fixed16(BigInteger v) {
    byte[] be = v.toByteArray();
    byte[] out = new byte[16];
    Arrays.fill(out, v.signum() < 0 ? (byte) -1 : 0);
    System.arraycopy(be, 0, out, 16 - be.length, be.length);
    return out;
  }

  /** A FileScanTask over a whole data file of a table with {@code schema}, with delete files. */
  static FileScanTask task(Path file, Schema schema, long rows, DeleteFile... deletes) throws IOException {
    PartitionSpec spec = PartitionSpec.unpartitioned();
    DataFile dataFile = DataFiles.builder(spec)
        .withPath(file.toString())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(Files.size(file))
        .withRecordCount(rows)
        .build();
    return new BaseFileScanTask(dataFile, deletes, SchemaParser.toJson(schema), PartitionSpecParser.toJson(spec),
        ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
  }
}
