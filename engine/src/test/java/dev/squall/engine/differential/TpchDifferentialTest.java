package dev.squall.engine.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.squall.engine.EngineException;
import dev.squall.engine.testing.DuckDbOracle;
import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.Rows;
import dev.squall.engine.testing.TestInputs;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.proto.v1.ErrorCode;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Differential suite: each query is a hand-built operator tree run in-process by the engine over
 * the TPC-H SF 0.01 Parquet files, and the same query as SQL run by DuckDB over the very same
 * files; the answers must be equal (order-insensitive unless the query is ordered; decimals exact;
 * doubles within 1e-9 relative). Expected answers come from DuckDB only. The edge-case families
 * (NULL-heavy, string-heavy, decimal edges, empty and many-batch inputs; {@link EdgeCase}) add
 * tables of their own written the same way; a query DuckDB refuses (overflow) must fail in the
 * engine too, with a user error.
 */
class TpchDifferentialTest {
  /**
   * Edge-case queries on which the engine is known to disagree with DuckDB. Each is asserted to
   * still fail, so that a fix shows here (remove it from the list) and the list stays honest.
   */
  static final Set<String> KNOWN_FAILURES = Set.of();

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

  @TestFactory
  Stream<DynamicTest> edgeCaseQueriesMatchDuckDb() {
    TpchFixture f = TpchFixture.sf001();
    List<EdgeCase> cases = EdgeCase.all(f);
    return cases.stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
      if (KNOWN_FAILURES.contains(c.name())) {
        assertThrows(Throwable.class, () -> check(f, c), c.name() + " is listed as a known failure but now passes: remove it from the list");
      } else {
        check(f, c);
      }
    }));
  }

  static void check(TpchFixture f, EdgeCase c) throws Exception {
    if (!c.errors()) {
      check(f, c.name(), c.rel());
      return;
    }
    SQLException duck = assertThrows(SQLException.class, () -> Rows.duckdb(DuckDbOracle.connection(), c.rel().sql()),
        () -> c.name() + ": DuckDB answered a query expected to fail\nSQL: " + c.rel().sql());
    assertTrue(duck.getMessage().contains("Overflow") || duck.getMessage().contains("out of range") || duck.getMessage().contains("Failed to cast"),
        () -> c.name() + ": DuckDB failed for another reason: " + duck.getMessage());
    EngineException e = assertThrows(EngineException.class, () -> Rows.run(c.rel().op(), TestInputs.forPlan(c.rel().op(), f), 512L << 20),
        () -> c.name() + ": the engine answered where DuckDB failed with " + duck.getMessage().split("\n")[0]);
    assertEquals(ErrorCode.USER_ERROR, e.code(), () -> c.name() + ": " + e.getMessage());
  }

  static void check(TpchFixture f, String name, Rel rel) throws Exception {
    List<List<Object>> expected = Rows.duckdb(DuckDbOracle.connection(), rel.sql());
    List<List<Object>> actual = Rows.run(rel.op(), TestInputs.forPlan(rel.op(), f), 512L << 20);
    if (System.getenv("SQUALL_DEBUG") != null) { System.out.println("QUERY " + name.split("\n")[0] + " rows=" + expected.size() + " " + (expected.isEmpty() ? "" : expected.get(0))); }
    assertNull(Rows.difference(expected, actual, rel.ordered()), () -> name + "\nSQL: " + rel.sql());
  }
}
