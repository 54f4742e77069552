package dev.squall.task.write;

import dev.squall.engine.EngineException;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * How the data files of one table are laid out, read once per writer task from the table's
 * properties with Iceberg's names and defaults (as Iceberg's own {@code Parquet.write} reads
 * them): {@code write.parquet.row-group-size-bytes} (128 MiB), {@code page-size-bytes} (1 MiB),
 * {@code page-row-limit} (20,000), {@code dict-size-bytes} (2 MiB), {@code compression-codec}
 * (zstd) and {@code compression-level}, {@code row-group-check-min/max-record-count} (100 / 10,000),
 * {@code parquet.enable.dictionary} (true), the per-column bloom filter and statistics switches
 * ({@code write.parquet.bloom-filter-enabled.column.<name>}, {@code ...-fpp.column.<name>},
 * {@code write.parquet.column-stats-enabled.column.<name>}), and the column metrics modes
 * ({@code write.metadata.metrics.*}, {@link MetricsConfig}). Pages are Parquet v1, Iceberg's default.
 *
 * <p>The Hadoop {@link Configuration} the compression codecs read is built here once, so that a task
 * writing many files does not parse Hadoop's defaults per file.
 *
 * @param rowGroupSizeBytes target size of a row group as buffered before compression
 * @param rowGroupCheckMin fewest rows between two row-group size checks
 * @param rowGroupCheckMax most rows between two row-group size checks
 * @param parquet page, dictionary, bloom filter and statistics settings of parquet-mr
 * @param codec the page compression codec
 * @param conf the configuration the codec is created with (carries the compression level)
 * @param metrics which column metrics go into the DataFile
 */
public record ParquetWriteSettings(long rowGroupSizeBytes, int rowGroupCheckMin, int rowGroupCheckMax,
    ParquetProperties parquet, CompressionCodecName codec, Configuration conf, MetricsConfig metrics) {

  private static final String ENABLE_DICTIONARY = "parquet.enable.dictionary";

  /**
   * Settings from table properties for a table of {@code schema}.
   *
   * @throws EngineException USER_ERROR naming the property when a size is not a positive number or
   *     the codec is unknown
   */
  public static ParquetWriteSettings of(Schema schema, Map<String, String> properties) {
    int rowGroupSize = positive(properties, TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
        TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT);
    int pageSize = positive(properties, TableProperties.PARQUET_PAGE_SIZE_BYTES,
        TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT);
    int pageRowLimit = positive(properties, TableProperties.PARQUET_PAGE_ROW_LIMIT,
        TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT);
    int dictionarySize = positive(properties, TableProperties.PARQUET_DICT_SIZE_BYTES,
        TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT);
    int checkMin = positive(properties, TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
        TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT_DEFAULT);
    int checkMax = positive(properties, TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
        TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT_DEFAULT);
    if (checkMax < checkMin) {
      throw EngineException.user("table property " + TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT
          + " is below " + TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT);
    }
    int bloomMaxBytes = positive(properties, TableProperties.PARQUET_BLOOM_FILTER_MAX_BYTES,
        TableProperties.PARQUET_BLOOM_FILTER_MAX_BYTES_DEFAULT);
    boolean dictionary = PropertyUtil.propertyAsBoolean(properties, ENABLE_DICTIONARY, true);

    ParquetProperties.Builder parquet = ParquetProperties.builder()
        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
        .withPageSize(pageSize)
        .withPageRowCountLimit(pageRowLimit)
        .withDictionaryEncoding(dictionary)
        .withDictionaryPageSize(dictionarySize)
        .withMinRowCountForPageSizeCheck(checkMin)
        .withMaxRowCountForPageSizeCheck(checkMax)
        .withMaxBloomFilterBytes(bloomMaxBytes);
    // Top-level primitive columns only: a column's Parquet path is its name.
    for (Types.NestedField field : schema.columns()) {
      String name = field.name();
      String bloom = properties.get(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + name);
      if (bloom != null) {
        parquet.withBloomFilterEnabled(name, Boolean.parseBoolean(bloom));
      }
      String fpp = properties.get(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_FPP_PREFIX + name);
      if (fpp != null) {
        try {
          parquet.withBloomFilterFPP(name, Double.parseDouble(fpp));
        } catch (NumberFormatException e) {
          throw EngineException.user("table property " + TableProperties.PARQUET_BLOOM_FILTER_COLUMN_FPP_PREFIX
              + name + " is not a number: " + fpp);
        }
      }
      String stats = properties.get(TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX + name);
      if (stats != null) {
        parquet.withStatisticsEnabled(name, Boolean.parseBoolean(stats));
      }
    }

    CompressionCodecName codec = codec(properties.getOrDefault(TableProperties.PARQUET_COMPRESSION,
        TableProperties.PARQUET_COMPRESSION_DEFAULT));
    // Without default resources: loading Hadoop's XML defaults costs more than the write of a small file.
    Configuration conf = new Configuration(false);
    String level = properties.getOrDefault(TableProperties.PARQUET_COMPRESSION_LEVEL,
        TableProperties.PARQUET_COMPRESSION_LEVEL_DEFAULT);
    if (level != null) {
      // The configuration keys parquet-mr's and Hadoop's codecs read their level from.
      switch (codec) {
        case GZIP -> conf.set("zlib.compress.level", level);
        case BROTLI -> conf.set("compression.brotli.quality", level);
        case ZSTD -> {
          conf.set("parquet.compression.codec.zstd.level", level);
          conf.set("io.compression.codec.zstd.level", level);
        }
        default -> { }
      }
    }
    return new ParquetWriteSettings(rowGroupSize, checkMin, checkMax, parquet.build(), codec, conf,
        MetricsConfig.fromProperties(properties));
  }

  private static CompressionCodecName codec(String name) {
    try {
      return CompressionCodecName.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw EngineException.user("table property " + TableProperties.PARQUET_COMPRESSION
          + " names an unknown codec: " + name);
    }
  }

  private static int positive(Map<String, String> properties, String name, int fallback) {
    int value;
    try {
      value = PropertyUtil.propertyAsInt(properties, name, fallback);
    } catch (NumberFormatException e) {
      throw EngineException.user("table property " + name + " is not a number: " + properties.get(name));
    }
    if (value <= 0) {
      throw EngineException.user("table property " + name + " must be positive: " + value);
    }
    return value;
  }
}
