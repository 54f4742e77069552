package dev.squall.planner.meta;

import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.DerivedTables;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.sql.TimeTravelClauses;
import java.time.Instant;
import org.apache.calcite.schema.Table;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The derived tables of one statement: {@code t$type} is an Iceberg metadata table
 * ({@link IcebergMetadataTables}); {@code t@n} is {@code t} read as of time travel clause n of the
 * statement ({@link TimeTravelClauses}): FOR VERSION AS OF names the snapshot, FOR TIMESTAMP AS OF
 * takes the snapshot that was current at that instant (the last one committed at or before it).
 */
public final class DerivedTableNames implements DerivedTables {
  private final TimeTravelClauses clauses;

  public DerivedTableNames(TimeTravelClauses clauses) {
    this.clauses = clauses;
  }

  /**
   * @throws PlanningException USER_ERROR at the clause for a snapshot id the table does not have,
   *     or a timestamp before its first snapshot
   */
  @Override
  public Table derive(IcebergTable base, char mark, String suffix) {
    if (mark == IcebergMetadataTables.MARK) {
      return IcebergMetadataTables.type(suffix).map(type -> (Table) IcebergMetadataTables.of(base.table(), type))
          .orElse(null);
    }
    int index;
    try {
      index = Integer.parseInt(suffix);
    } catch (NumberFormatException e) {
      return null;
    }
    if (index < 0 || index >= clauses.clauses().size()) {
      return null;
    }
    TimeTravelClauses.Clause clause = clauses.clauses().get(index);
    long snapshotId;
    if (clause.kind() == TimeTravelClauses.Kind.VERSION) {
      Snapshot snapshot = base.table().snapshot(clause.value());
      if (snapshot == null) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Table " + base.identifier() + " has no snapshot "
            + clause.value() + " (" + clause.text() + "); its snapshots are listed in \"" + base.identifier().name()
            + "$snapshots\"", clause.line(), clause.column());
      }
      snapshotId = snapshot.snapshotId();
    } else {
      try {
        snapshotId = SnapshotUtil.snapshotIdAsOfTime(base.table(), clause.value());
      } catch (IllegalArgumentException e) {
        throw new PlanningException(Code.VALIDATION_ERROR, "Table " + base.identifier() + " has no snapshot at or"
            + " before " + Instant.ofEpochMilli(clause.value()) + " (" + clause.text() + ")", clause.line(),
            clause.column());
      }
    }
    return new IcebergTable(null, base.identifier(), base.table(), snapshotId);
  }
}
