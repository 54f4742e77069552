package dev.squall.engine.runtimefilter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DecimalColumn;
import dev.squall.engine.column.LongColumn;
import dev.squall.engine.expr.ColumnBatch;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.KeyFilter;
import dev.squall.proto.v1.KeySummaryRequest;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Runtime filters' key summaries, their merge and the probe test: never a false negative, for every
 * key type a filter is planned on (BIGINT, INTEGER, VARCHAR, DATE, DECIMAL), through listed keys,
 * the Bloom filter and the range alone; NULL never matches.
 */
class RuntimeKeyFiltersTest {
  private static final SqlType DECIMAL = SqlType.decimal(15, 2);

  /** A one-column batch of keys {@code from .. to) step {@code step} as {@code type}, with one NULL first. */
  private static ColumnBatch batch(SqlType type, long from, long to, long step) {
    int n = (int) ((to - from + step - 1) / step) + 1;
    boolean[] nulls = new boolean[n];
    nulls[0] = true;
    Column c;
    if (type.equals(SqlType.VARCHAR)) {
      BytesColumn b = BytesColumn.withCapacity(SqlType.VARCHAR, n, n * 12);
      b.appendNull();
      for (long v = from; v < to; v += step) {
        b.append(key(v).getBytes(StandardCharsets.UTF_8));
      }
      c = b;
    } else {
      long[] values = new long[n];
      int i = 1;
      for (long v = from; v < to; v += step) {
        values[i++] = v;
      }
      c = type.equals(DECIMAL) ? new DecimalColumn(DECIMAL, values, null, nulls, n) : new LongColumn(type, values, nulls, n);
    }
    return new ColumnBatch(new Column[] {c}, n);
  }

  private static String key(long v) {
    return "key-" + v;
  }

  /** The probe-side value of key {@code v} as its column would give it. */
  private static LongFunction<Object> value(SqlType type) {
    if (type.equals(SqlType.VARCHAR)) {
      return RuntimeKeyFiltersTest::key;
    }
    if (type.equals(DECIMAL)) {
      return v -> BigDecimal.valueOf(v, 2);
    }
    return v -> v;
  }

  /** Four build tasks over [0, keys * 2) step 2 (even keys), merged. */
  private static KeyFilter built(SqlType type, long keys, long maxKeys) {
    KeySummaryRequest request = KeySummaryRequest.newBuilder().setFilterId(3).addColumns(0).setMaxKeys(maxKeys).build();
    List<KeyFilter> parts = new ArrayList<>();
    long span = keys * 2 / 4;
    for (int t = 0; t < 4; t++) {
      KeySummaryBuilder b = new KeySummaryBuilder(request);
      b.add(batch(type, t * span, (t + 1) * span, 2));
      parts.add(b.toProto().getColumns(0));
    }
    Optional<KeyFilter> merged = KeyFilters.merge(parts, maxKeys);
    assertThat(merged).isPresent();
    return merged.get();
  }

  private static final List<SqlType> TYPES = List.of(SqlType.BIGINT, SqlType.INTEGER, SqlType.VARCHAR, SqlType.DATE, DECIMAL);

  @Test
  void aBloomFilterHasNoFalseNegativesForAnyKeyType() {
    for (SqlType type : TYPES) {
      long keys = 40_000;
      KeyFilter merged = built(type, keys, 50_000);
      assertThat(merged.getHasValues()).as("%s: too many keys to list", type).isFalse();
      assertThat(merged.getBloom().isEmpty()).as("%s: a Bloom filter", type).isFalse();
      ProbeKeyFilter probe = new ProbeKeyFilter(merged);
      LongFunction<Object> v = value(type);
      int falsePositives = 0;
      for (long k = 0; k < keys * 2; k += 2) {
        assertThat(probe.mightMatch(v.apply(k))).as("%s key %d", type, k).isTrue();
        falsePositives += probe.mightMatch(v.apply(k + 1)) ? 1 : 0;
      }
      assertThat(probe.mightMatch(null)).isFalse();
      if (!type.equals(SqlType.VARCHAR)) { // strings order "key-10" < "key-9": the range says little
        assertThat(probe.mightMatch(v.apply(keys * 2 + 10))).as("%s above the range", type).isFalse();
        assertThat(probe.mightMatch(v.apply(-5))).as("%s below the range", type).isFalse();
      }
      assertThat(falsePositives).as("%s false positives of %d", type, keys).isLessThan((int) (keys * 0.03));
    }
  }

  @Test
  void fewKeysAreListedExactly() {
    for (SqlType type : TYPES) {
      KeyFilter merged = built(type, 400, 50_000);
      assertThat(merged.getHasValues()).isTrue();
      assertThat(merged.getValuesCount()).isEqualTo(400);
      assertThat(merged.getBloom().isEmpty()).isTrue();
      ProbeKeyFilter probe = new ProbeKeyFilter(merged);
      LongFunction<Object> v = value(type);
      for (long k = 0; k < 800; k++) {
        assertThat(probe.mightMatch(v.apply(k))).as("%s key %d", type, k).isEqualTo(k % 2 == 0);
      }
    }
  }

  @Test
  void aboveTheKeyBoundOnlyTheRangeIsKept() {
    for (SqlType type : TYPES) {
      KeyFilter merged = built(type, 20_000, 5_000);
      assertThat(merged.getHasValues()).isFalse();
      assertThat(merged.getBloom().isEmpty()).as("%s: no Bloom filter past max_keys", type).isTrue();
      ProbeKeyFilter probe = new ProbeKeyFilter(merged);
      LongFunction<Object> v = value(type);
      for (long k = 0; k < 40_000; k += 2) {
        assertThat(probe.mightMatch(v.apply(k))).isTrue();
      }
      assertThat(probe.mightMatch(null)).isFalse();
    }
  }

  /** Far more keys than max_keys saturate the tasks' Bloom filters: the range alone is kept. */
  @Test
  void aSaturatedBloomFilterKeepsOnlyTheRange() {
    for (long maxKeys : new long[] {0, 10, 250}) {
      KeyFilter merged = built(SqlType.BIGINT, 20_000, maxKeys);
      assertThat(merged.getHasValues()).isFalse();
      assertThat(merged.getBloom().isEmpty()).as("max_keys %d", maxKeys).isTrue();
      ProbeKeyFilter probe = new ProbeKeyFilter(merged);
      for (long k = 0; k < 40_000; k += 2) {
        assertThat(probe.mightMatch(k)).isTrue();
      }
      assertThat(probe.mightMatch(40_000L)).isFalse();
    }
  }

  @Test
  void anEmptyBuildSideMatchesNothingAndSkipsEveryRowGroup() {
    KeySummaryRequest request = KeySummaryRequest.newBuilder().setFilterId(0).addColumns(0).setMaxKeys(100).build();
    KeySummaryBuilder onlyNulls = new KeySummaryBuilder(request);
    onlyNulls.add(batch(SqlType.BIGINT, 0, 0, 1)); // one NULL row
    KeySummaryBuilder nothing = new KeySummaryBuilder(request);
    KeyFilter merged = KeyFilters.merge(List.of(onlyNulls.toProto().getColumns(0), nothing.toProto().getColumns(0)),
        100).orElseThrow();
    assertThat(merged.getEmpty()).isTrue();
    ProbeKeyFilter probe = new ProbeKeyFilter(merged);
    assertThat(probe.mightMatch(1L)).isFalse();
    assertThat(probe.iceberg("k", Types.LongType.get()).op()).isEqualTo(Expression.Operation.FALSE);
  }

  @Test
  void summariesOfListedAndBloomTasksMerge() {
    KeySummaryRequest request = KeySummaryRequest.newBuilder().setFilterId(1).addColumns(0).setMaxKeys(10_000).build();
    KeySummaryBuilder many = new KeySummaryBuilder(request);
    many.add(batch(SqlType.BIGINT, 0, 4_000, 1)); // past the listed keys: a Bloom filter
    KeySummaryBuilder few = new KeySummaryBuilder(request);
    few.add(batch(SqlType.BIGINT, 100_000, 100_010, 1));
    ProbeKeyFilter probe = new ProbeKeyFilter(KeyFilters.merge(List.of(many.toProto().getColumns(0),
        few.toProto().getColumns(0)), 10_000).orElseThrow());
    for (long k = 0; k < 4_000; k++) {
      assertThat(probe.mightMatch(k)).isTrue();
    }
    for (long k = 100_000; k < 100_010; k++) {
      assertThat(probe.mightMatch(k)).isTrue();
    }
    assertThat(probe.mightMatch(100_011L)).isFalse();
  }

  @Test
  void icebergPredicatesStateTheRangeAndListTheKeys() {
    ProbeKeyFilter listed = new ProbeKeyFilter(built(SqlType.INTEGER, 10, 100));
    assertThat(listed.iceberg("k", Types.IntegerType.get()).toString()).contains("in").contains(">=").contains("<=");
    ProbeKeyFilter decimal = new ProbeKeyFilter(built(DECIMAL, 10, 100));
    Expression d = decimal.iceberg("k", Types.DecimalType.of(15, 2));
    // IN alone would prune nothing past Iceberg's 200-value limit of its metrics evaluators.
    assertThat(d.op()).isEqualTo(Expression.Operation.AND);
    assertThat(((org.apache.iceberg.expressions.And) d).right().op()).isEqualTo(Expression.Operation.IN);
    ProbeKeyFilter ranged = new ProbeKeyFilter(built(SqlType.DATE, 4_000, 100_000));
    assertThat(ranged.iceberg("d", Types.DateType.get()).op()).isEqualTo(Expression.Operation.AND);
  }

  /**
   * A probe column of keys {@code -10 .. 2 * keys + 10} (every build key, the odd keys between and
   * keys outside the range), every seventh row NULL.
   */
  private static Column probeColumn(SqlType type, long keys) {
    int n = (int) (2 * keys + 20);
    boolean[] nulls = new boolean[n];
    long[] values = new long[n];
    BytesColumn b = BytesColumn.withCapacity(SqlType.VARCHAR, n, n * 12);
    for (int r = 0; r < n; r++) {
      values[r] = r - 10;
      nulls[r] = r % 7 == 3;
      if (nulls[r]) {
        b.appendNull();
      } else {
        b.append(key(values[r]).getBytes(StandardCharsets.UTF_8));
      }
    }
    if (type.equals(SqlType.VARCHAR)) {
      return b;
    }
    return type.equals(DECIMAL) ? new DecimalColumn(DECIMAL, values, null, nulls, n) : new LongColumn(type, values, nulls, n);
  }

  /** Rows 1, 4, 7, ... of a column of {@code n} rows: a selection that skips rows. */
  private static int[] everyThirdRow(int n, int[] count) {
    int[] rows = new int[n];
    int k = 0;
    for (int r = 1; r < n; r += 3) {
      rows[k++] = r;
    }
    count[0] = k;
    return rows;
  }

  /** The column test keeps exactly the selected rows the row test keeps, in order. */
  private static void assertSelectAgreesWithMightMatch(ProbeKeyFilter probe, Column col, String what) {
    int[] count = new int[1];
    int[] rows = everyThirdRow(col.size(), count);
    List<Integer> expected = new ArrayList<>();
    for (int k = 0; k < count[0]; k++) {
      if (probe.mightMatch(col.get(rows[k]))) {
        expected.add(rows[k]);
      }
    }
    int kept = probe.select(col, rows, count[0]);
    List<Integer> actual = new ArrayList<>();
    for (int k = 0; k < kept; k++) {
      actual.add(rows[k]);
    }
    assertThat(actual).as(what).isEqualTo(expected);
  }

  @Test
  void aWholeColumnIsTestedAsRowByRowForEveryKeyTypeWithNullsAndASelection() {
    for (SqlType type : TYPES) {
      for (long keys : new long[] {400, 40_000}) { // listed keys, then a Bloom filter
        ProbeKeyFilter probe = new ProbeKeyFilter(built(type, keys, 50_000));
        Column col = probeColumn(type, keys);
        assertSelectAgreesWithMightMatch(probe, col, type + " over " + keys + " keys");
        int[] all = new int[col.size()];
        for (int r = 0; r < all.length; r++) {
          all[r] = r;
        }
        int kept = probe.select(col, all, all.length);
        java.util.Set<Integer> keptRows = new java.util.HashSet<>();
        for (int k = 0; k < kept; k++) {
          keptRows.add(all[k]);
        }
        for (int r = 0; r < col.size(); r++) {
          long key = r - 10;
          if (col.isNull(r)) {
            assertThat(keptRows).as("%s NULL row %d", type, r).doesNotContain(r);
          } else if (key >= 0 && key < keys * 2 && key % 2 == 0) {
            assertThat(keptRows).as("%s build key %d", type, key).contains(r);
          }
        }
      }
    }
  }

  @Test
  void aDictionaryEncodedStringColumnIsTestedPerEntry() {
    for (long keys : new long[] {400, 40_000}) {
      ProbeKeyFilter probe = new ProbeKeyFilter(built(SqlType.VARCHAR, keys, 50_000));
      BytesColumn dictionary = BytesColumn.withCapacity(SqlType.VARCHAR, 64, 64 * 12);
      for (long k = 0; k < 64; k++) {
        dictionary.append(key(k * keys / 32).getBytes(StandardCharsets.UTF_8));
      }
      int n = 1000;
      int[] ids = new int[n];
      boolean[] nulls = new boolean[n];
      for (int r = 0; r < n; r++) {
        ids[r] = (r * 37) % 64;
        nulls[r] = r % 11 == 0;
      }
      BytesColumn col = BytesColumn.dictionary(SqlType.VARCHAR, ids, dictionary, nulls, n);
      assertSelectAgreesWithMightMatch(probe, col, "dictionary over " + keys + " keys");
      // A second batch over the same dictionary reuses the verdicts per entry.
      assertSelectAgreesWithMightMatch(probe, col, "again over " + keys + " keys");
      assertThat(col.isDictionary()).as("the probe leaves the column encoded").isTrue();
    }
  }

  @Test
  void aColumnOfAnotherKindKeepsItsNonNullRows() {
    ProbeKeyFilter strings = new ProbeKeyFilter(built(SqlType.VARCHAR, 400, 50_000));
    Column longs = probeColumn(SqlType.BIGINT, 400);
    int[] rows = new int[longs.size()];
    for (int r = 0; r < rows.length; r++) {
      rows[r] = r;
    }
    int kept = strings.select(longs, rows, rows.length);
    int nonNull = 0;
    for (int r = 0; r < longs.size(); r++) {
      nonNull += longs.isNull(r) ? 0 : 1;
    }
    assertThat(kept).isEqualTo(nonNull);
  }
}
