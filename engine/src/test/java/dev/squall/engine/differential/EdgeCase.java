package dev.squall.engine.differential;

import dev.squall.engine.testing.Rel;
import dev.squall.engine.testing.TpchFixture;
import dev.squall.engine.testing.X;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One differential query of the edge-case families: its name (category first), the relation (plan
 * and DuckDB SQL), and whether both engines must refuse it with an error (numeric overflow,
 * a cast out of range) instead of answering.
 */
record EdgeCase(String name, Rel rel, boolean errors) {
  static EdgeCase answer(String category, String name, Rel rel) {
    return new EdgeCase(category + "_" + name, rel, false);
  }

  static EdgeCase error(String category, String name, Rel rel) {
    return new EdgeCase(category + "_" + name, rel, true);
  }

  /** Every edge-case query, registering the edge tables in the fixture first. */
  static List<EdgeCase> all(TpchFixture f) {
    EdgeTables.register(f);
    List<EdgeCase> out = new ArrayList<>();
    out.addAll(NullQueries.all(f));
    out.addAll(StringQueries.all(f));
    out.addAll(DecimalQueries.all(f));
    out.addAll(EmptyInputQueries.all(f));
    out.addAll(ManyBatchQueries.all(f));
    out.addAll(PushedFilterQueries.all(f));
    return out;
  }

  /** The relation's columns renamed with a prefix (a self-join needs distinct names on both sides). */
  static Rel prefixed(Rel rel, String prefix) {
    return rel.project(r -> {
      Map<String, X> m = new LinkedHashMap<>();
      for (String n : r.names()) {
        m.put(prefix + n, r.col(n));
      }
      return m;
    });
  }
}
