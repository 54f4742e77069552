package dev.squall.engine.scan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The columns a scan fetches without decoding them, so that the projected column chunks of a row
 * group come in fewer requests: parquet-mr reads each run of adjacent requested chunks with one
 * read (one ranged GET), and two runs apart by a few small chunks become one run when those are
 * requested too. A gap is filled when its chunks add up to at most {@link #MAX_GAP_BYTES} in every
 * row group of the file, since reading that many bytes more costs less than a request's round
 * trip (S3's first byte takes tens of milliseconds, which is megabytes of transfer). Trino's
 * Parquet reader merges nearby ranges for the same reason.
 */
final class GapColumns {
  /** The most bytes of unprojected chunks read to join two runs of a row group (per gap). */
  static final long MAX_GAP_BYTES = 256 * 1024;

  private GapColumns() {}

  /**
   * The columns of {@code fileSchema} to fetch, in file order: {@code requested} (top-level
   * columns of the file) and the top-level primitive columns whose chunks lie in gaps of at most
   * {@link #MAX_GAP_BYTES} between requested chunks in every row group of {@code blocks}.
   */
  static List<Type> fetched(List<BlockMetaData> blocks, MessageType fileSchema, List<Type> requested) {
    Set<String> wanted = new HashSet<>();
    for (Type t : requested) {
      wanted.add(t.getName());
    }
    Set<String> fill = null;
    for (BlockMetaData block : blocks) {
      Set<String> here = gapsOf(block, wanted);
      if (fill == null) {
        fill = here;
      } else {
        fill.retainAll(here);
      }
    }
    List<Type> out = new ArrayList<>();
    for (Type t : fileSchema.getFields()) {
      if (wanted.contains(t.getName()) || (fill != null && fill.contains(t.getName()) && t.isPrimitive())) {
        out.add(t);
      }
    }
    return out;
  }

  /** Names of the chunks in the row group's small gaps between {@code wanted} chunks. */
  private static Set<String> gapsOf(BlockMetaData block, Set<String> wanted) {
    List<ColumnChunkMetaData> chunks = new ArrayList<>(block.getColumns());
    chunks.sort(Comparator.comparingLong(ColumnChunkMetaData::getStartingPos));
    Set<String> out = new LinkedHashSet<>();
    List<String> gap = new ArrayList<>();
    long gapBytes = 0;
    boolean afterWanted = false;
    boolean fillable = true;
    for (ColumnChunkMetaData c : chunks) {
      String[] path = c.getPath().toArray();
      String name = path[0];
      if (wanted.contains(name) && path.length == 1) {
        if (afterWanted && !gap.isEmpty() && fillable && gapBytes <= MAX_GAP_BYTES) {
          out.addAll(gap);
        }
        afterWanted = true;
        gap.clear();
        gapBytes = 0;
        fillable = true;
      } else {
        gap.add(name);
        gapBytes += c.getTotalSize();
        // A nested column's chunks are not requested on their own.
        fillable &= path.length == 1;
      }
    }
    return out;
  }
}
