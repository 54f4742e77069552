package dev.squall.engine.operator.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.types.SqlType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Group ids of dictionary-encoded keys (looked up by dictionary entry) equal those of the same
 * values in the plain layout, across batches with different dictionaries and with NULL keys.
 */
class GroupTableTest {
  private static BytesColumn dictionary(String... values) {
    byte[][] bytes = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = values[i].getBytes(StandardCharsets.UTF_8);
    }
    return BytesColumn.of(SqlType.VARCHAR, bytes);
  }

  private static BytesColumn encoded(BytesColumn dictionary, int[] ids, boolean[] nulls) {
    return BytesColumn.dictionary(SqlType.VARCHAR, ids, dictionary, nulls, ids.length);
  }

  /** The same rows in the plain layout. */
  private static BytesColumn plain(BytesColumn encoded) {
    BytesColumn out = BytesColumn.withCapacity(SqlType.VARCHAR, encoded.size(), 64);
    for (int i = 0; i < encoded.size(); i++) {
      out.appendFrom(encoded, i);
    }
    return out;
  }

  @Test
  void dictionaryKeysGroupAsTheirValuesDo() {
    Random rnd = new Random(7);
    // Two row groups' dictionaries: overlapping values in another order, one value only in each.
    BytesColumn[] firstKey = {dictionary("AIR", "MAIL", "SHIP", "RAIL"), dictionary("SHIP", "TRUCK", "AIR", "MAIL")};
    BytesColumn[] secondKey = {dictionary("NONE", "COLLECT COD"), dictionary("COLLECT COD", "NONE", "DELIVER IN PERSON")};
    GroupTable byEntries = new GroupTable(List.of(SqlType.VARCHAR, SqlType.VARCHAR));
    GroupTable byValues = new GroupTable(List.of(SqlType.VARCHAR, SqlType.VARCHAR));
    List<Integer> a = new ArrayList<>();
    List<Integer> b = new ArrayList<>();
    for (int batch = 0; batch < 6; batch++) {
      int d = batch / 3;
      int n = 500;
      int[] ids1 = new int[n];
      int[] ids2 = new int[n];
      boolean[] nulls = new boolean[n];
      for (int i = 0; i < n; i++) {
        ids1[i] = rnd.nextInt(firstKey[d].size());
        ids2[i] = rnd.nextInt(secondKey[d].size());
        nulls[i] = rnd.nextInt(10) == 0;
      }
      BytesColumn k1 = encoded(firstKey[d], ids1, nulls);
      BytesColumn k2 = encoded(secondKey[d], ids2, null);
      for (int g : byEntries.assign(new Column[] {k1, k2}, n)) {
        a.add(g);
      }
      for (int g : byValues.assign(new Column[] {plain(k1), plain(k2)}, n)) {
        b.add(g);
      }
    }
    assertThat(a).isEqualTo(b);
    // Six first keys (five values and NULL) with NONE or COLLECT COD, and the five of the second
    // dictionary (RAIL is not in it) with DELIVER IN PERSON: all met in 3,000 random rows.
    assertThat(byEntries.groups()).isEqualTo(byValues.groups()).isEqualTo(17);
  }
}
