package dev.squall.task.write;

import dev.squall.engine.column.Column;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;

/**
 * Writes engine column batches to one local Parquet file exactly as a writer task writes a data
 * file (schema checks, column-wise encoding, row groups, footer and Iceberg metrics), for benchmarks
 * that time the writer beside DuckDB's {@code COPY ... TO 'file.parquet'}.
 */
public final class LocalParquetWrite {
  private LocalParquetWrite() {}

  /**
   * Writes the batches (column {@code i} of each is field {@code i} of {@code schema}; each batch's
   * row count is its first column's size) to {@code file}, replacing it.
   *
   * @param properties Iceberg table properties ({@code write.parquet.*}); empty for Iceberg's defaults
   * @return elapsed wall-clock nanoseconds, from the first check to the closed file with its metrics
   * @throws dev.squall.engine.EngineException as {@link DataFileTaskWriter#write(Column[], int)}
   */
  public static long writeNanos(Path file, Schema schema, List<Column[]> batches, Map<String, String> properties) {
    long start = System.nanoTime();
    BatchConformer conformer = new BatchConformer(schema);
    ColumnarParquetWriter writer = new ColumnarParquetWriter(Files.localOutput(file.toFile()), schema,
        ColumnarParquetWriter.fileSchema(schema), ParquetWriteSettings.of(schema, properties));
    try {
      for (Column[] batch : batches) {
        int rows = batch.length == 0 ? 0 : batch[0].size();
        writer.write(conformer.conform(batch, rows), null, 0, rows);
      }
      writer.close();
      writer.metrics();
    } catch (RuntimeException e) {
      writer.abandon();
      throw e;
    }
    return System.nanoTime() - start;
  }
}
