package dev.squall.engine.differential;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Differential suite: each query is a hand-built operator tree run in-process by the engine over
 * the TPC-H SF 0.01 Parquet files, and the same query as SQL run by DuckDB over the very same
 * files; the answers must be equal (order-insensitive unless the query is ordered; decimals exact;
 * doubles within 1e-9 relative). Expected answers come from DuckDB only.
 */
class TpchDifferentialTest {
  @TestFactory
  Stream<DynamicTest> handWrittenQueriesMatchDuckDb() {
    TpchFixture f = TpchFixture.sf001();
    return HandWrittenQueries.all(f).stream().map(q -> DynamicTest.dynamicTest(q.name(), () -> check(f, q.name(), q.rel())));
  }

  @TestFactory
  Stream<DynamicTest> generatedQueriesMatchDuckDb() {
    TpchFixture f = TpchFixture.sf001();
    List<DynamicTest> tests = new ArrayList<>();
    for (QueryGenerator.Generated g : new QueryGenerator(f, 20261129L).generate(200)) {
      tests.add(DynamicTest.dynamicTest(g.name(), () -> check(f, g.name() + "\n" + g.rel().sql(), g.rel())));
    }
    return tests.stream();
  }

  static void check(TpchFixture f, String name, Rel rel) throws Exception {
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), rel.sql());
    List<List<Object>> actual = Rows.run(rel.op(), TestInputs.forPlan(rel.op(), f), 512L << 20);
    if (System.getenv("SQUALL_DEBUG") != null) { System.out.println("QUERY " + name.split("\n")[0] + " rows=" + expected.size() + " " + (expected.isEmpty() ? "" : expected.get(0))); }
    assertNull(Rows.difference(expected, actual, rel.ordered()), () -> name + "\nSQL: " + rel.sql());
  }
}
