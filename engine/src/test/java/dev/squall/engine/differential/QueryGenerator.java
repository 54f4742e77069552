package dev.squall.engine.differential;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.TpchFixture;
import java.util.ArrayList;
import java.util.List;

/** Generates random queries (operator tree + SQL) over TPC-H. */
final class QueryGenerator {
  record Generated(String name, Rel rel) {}

  private final TpchFixture f;
  private final long seed;

  QueryGenerator(TpchFixture f, long seed) {
    this.f = f;
    this.seed = seed;
  }

  List<Generated> generate(int n) {
    return new ArrayList<>();
  }
}
