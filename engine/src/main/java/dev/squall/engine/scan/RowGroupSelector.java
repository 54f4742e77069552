package dev.squall.engine.scan;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.parquet.ParquetBloomRowGroupFilter;
import org.apache.iceberg.parquet.ParquetDictionaryRowGroupFilter;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;

/**
 * Which row groups of a data file a split reads. A row group belongs to the split whose byte
 * range {@code [start, start + length)} holds its midpoint (parquet-mr's rule for ranged reads,
 * {@code ParquetMetadataConverter.filterFileMetaDataByMidpoint}, which Iceberg's reader relies on),
 * so the splits of one file read each row group exactly once. Of those, row groups that cannot hold
 * a row matching the filter are skipped with Iceberg's column statistics, dictionary and bloom
 * filter tests, as Iceberg's own {@code ReadConf} does; the filter stays inexact (a Filter above the
 * scan decides each row).
 */
final class RowGroupSelector {
  private RowGroupSelector() {}

  /** A chosen row group: its index in the footer and the file position of its first row. */
  record RowGroup(int index, long firstRow, long rows) {}

  /**
   * @param fileSchema the file's schema with Iceberg field ids
   * @param tableSchema the schema the filter binds to
   * @param filter unbound Iceberg filter (alwaysTrue for none)
   */
  static List<RowGroup> select(ParquetFileReader reader, MessageType fileSchema, Schema tableSchema, Expression filter,
      long start, long length) throws IOException {
    return select(reader, fileSchema, tableSchema, filter, null, null, start, length);
  }

  /**
   * As above, then of the row groups the filter reads, those a runtime filter ({@code runtime}, an
   * unbound Iceberg predicate, or null) excludes by the same tests are skipped too, and counted.
   *
   * @param counters where the row groups, those read and those the runtime filter skipped are
   *     counted; may be null
   */
  static List<RowGroup> select(ParquetFileReader reader, MessageType fileSchema, Schema tableSchema, Expression filter,
      Expression runtime, ScanCounters counters, long start, long length) throws IOException {
    List<BlockMetaData> blocks = reader.getRowGroups();
    boolean filtered = filter != null && filter.op() != Expression.Operation.TRUE;
    ParquetMetricsRowGroupFilter stats = null;
    ParquetDictionaryRowGroupFilter dictionaries = null;
    ParquetBloomRowGroupFilter blooms = null;
    if (filtered) {
      Expression f = Expressions.rewriteNot(filter);
      stats = new ParquetMetricsRowGroupFilter(tableSchema, f, true);
      dictionaries = dictionaryFilter(tableSchema, f);
      blooms = new ParquetBloomRowGroupFilter(tableSchema, f, true);
    }
    boolean runtimeFiltered = runtime != null && runtime.op() != Expression.Operation.TRUE;
    ParquetMetricsRowGroupFilter runtimeStats = null;
    ParquetDictionaryRowGroupFilter runtimeDictionaries = null;
    ParquetBloomRowGroupFilter runtimeBlooms = null;
    Set<String> runtimeColumns = Set.of();
    if (runtimeFiltered) {
      Expression f = Expressions.rewriteNot(runtime);
      runtimeStats = new ParquetMetricsRowGroupFilter(tableSchema, f, true);
      runtimeDictionaries = dictionaryFilter(tableSchema, f);
      runtimeBlooms = new ParquetBloomRowGroupFilter(tableSchema, f, true);
      runtimeColumns = columnNames(fileSchema, tableSchema, f);
    }
    long groups = 0;
    long runtimeSkipped = 0;
    long runtimeBytes = 0;
    List<RowGroup> out = new ArrayList<>();
    long firstRow = 0;
    long end = start + length;
    for (int i = 0; i < blocks.size(); i++) {
      BlockMetaData block = blocks.get(i);
      long mid = midpoint(block);
      if (mid >= start && mid < end && block.getRowCount() > 0) {
        boolean read = !filtered
            || (stats.shouldRead(fileSchema, block)
                && (dictionaries == null || dictionaries.shouldRead(fileSchema, block, reader.getDictionaryReader(block)))
                && blooms.shouldRead(fileSchema, block, reader.getBloomFilterDataReader(block)));
        groups++;
        if (read && runtimeFiltered
            && !(runtimeStats.shouldRead(fileSchema, block)
                && (runtimeDictionaries == null || !smallDictionaries(block, runtimeColumns)
                    || runtimeDictionaries.shouldRead(fileSchema, block, reader.getDictionaryReader(block)))
                && runtimeBlooms.shouldRead(fileSchema, block, reader.getBloomFilterDataReader(block)))) {
          read = false;
          runtimeSkipped++;
          runtimeBytes += block.getCompressedSize();
        }
        if (read) {
          out.add(new RowGroup(i, firstRow, block.getRowCount()));
        }
      }
      firstRow += block.getRowCount();
    }
    if (counters != null) {
      counters.counted(groups, out.size(), runtimeSkipped, runtimeBytes);
    }
    return out;
  }

  /**
   * The dictionary test of {@code filter}'s dictionary-decidable part ({@link DictionaryPredicates}),
   * or null when it has none, so that no dictionary page is read for a test the statistics decide.
   */
  private static ParquetDictionaryRowGroupFilter dictionaryFilter(Schema tableSchema, Expression filter) {
    Expression part = DictionaryPredicates.of(filter);
    return part.op() == Expression.Operation.TRUE ? null : new ParquetDictionaryRowGroupFilter(tableSchema, part, true);
  }

  /**
   * The largest dictionary page (compressed bytes, header included) of a runtime filter's column
   * that its dictionary test reads. A runtime filter lists at most a thousand join keys; a column
   * chunk whose dictionary is larger holds so many distinct values that the listed keys hardly
   * ever all miss it (its statistics have already tested the key range), while the test costs a
   * request and a set of the dictionary's values.
   */
  static final long RUNTIME_DICTIONARY_MAX_BYTES = 16 * 1024;

  /** Whether every chunk of {@code columns} in the row group has a dictionary within the bound, or none. */
  private static boolean smallDictionaries(BlockMetaData block, Set<String> columns) {
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (c.hasDictionaryPage() && columns.contains(c.getPath().toDotString())
          && c.getFirstDataPageOffset() - c.getDictionaryPageOffset() > RUNTIME_DICTIONARY_MAX_BYTES) {
        return false;
      }
    }
    return true;
  }

  /** The file's column paths of the table columns {@code filter} refers to (top-level, by field id). */
  private static Set<String> columnNames(MessageType fileSchema, Schema tableSchema, Expression filter) {
    Set<Integer> ids = Binder.boundReferences(tableSchema.asStruct(), List.of(filter), true);
    Set<String> names = new HashSet<>();
    for (org.apache.parquet.schema.Type t : fileSchema.getFields()) {
      if (t.getId() != null && ids.contains(t.getId().intValue())) {
        names.add(t.getName());
      }
    }
    return names;
  }

  /** The first byte of the row group plus half its compressed size. */
  static long midpoint(BlockMetaData block) {
    List<ColumnChunkMetaData> columns = block.getColumns();
    long first = Long.MAX_VALUE;
    long size = 0;
    for (ColumnChunkMetaData c : columns) {
      first = Math.min(first, c.getStartingPos());
      size += c.getTotalSize();
    }
    return columns.isEmpty() ? block.getStartingPos() : first + size / 2;
  }
}
