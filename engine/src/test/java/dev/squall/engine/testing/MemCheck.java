package dev.squall.engine.testing;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;

/** Runs a relation over in-memory tables in the engine and in DuckDB and asserts equal answers. */
public final class MemCheck {
  private MemCheck() {}

  /**
   * @param inputs shuffle input index to table
   * @param batchRows rows per input batch handed to the engine
   */
  public static void check(Rel rel, Map<Integer, MemTable> inputs, String tableNames, int batchRows) throws Exception {
    for (MemTable t : inputs.values()) {
      t.load(DuckDbOracle.connection());
    }
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), rel.sql());
    TestInputs in = new TestInputs();
    inputs.forEach((index, table) -> in.withShuffle(index, alloc -> table.batches(alloc, batchRows)));
    List<List<Object>> actual = Rows.run(rel.op(), in, 256L << 20);
    assertNull(Rows.difference(expected, actual, rel.ordered()), () -> tableNames + "\nSQL: " + rel.sql());
  }
}
