package dev.squall.planner.catalog;

import org.apache.calcite.schema.Table;

/**
 * Tables named after an Iceberg table that the catalog does not list: {@code t$snapshots} and
 * the other metadata tables, and {@code t@n}, the name time travel gives {@code t} read as of its
 * clause n (see {@code sql.TimeTravelClauses}).
 */
public interface DerivedTables {
  /** No derived tables. */
  DerivedTables NONE = (base, mark, suffix) -> null;

  /**
   * @param base the Iceberg table the name starts with
   * @param mark {@code '$'} or {@code '@'}
   * @param suffix what follows the mark
   * @return the derived table, or null when the suffix names none
   */
  Table derive(IcebergTable base, char mark, String suffix);
}
