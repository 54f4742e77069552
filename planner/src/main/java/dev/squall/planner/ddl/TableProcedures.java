package dev.squall.planner.ddl;

import dev.squall.planner.PlannerSettings;
import dev.squall.planner.PlanningException;
import dev.squall.planner.PlanningException.Code;
import dev.squall.planner.catalog.IcebergTable;
import dev.squall.planner.sql.DdlStatement.ExecuteProcedure;
import dev.squall.planner.sql.DdlStatement.ProcedureArgument;
import dev.squall.proto.v1.DdlRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Trino's Iceberg table procedures, {@code ALTER TABLE t EXECUTE procedure(name => value, ...)}:
 * their names, their arguments (by name or in order) and the checks made before anything runs.
 *
 * <ul>
 *   <li>{@code optimize(file_size_threshold => '100MB')}: rewrites the data files below the
 *       threshold (100 MB unless given) into files near the table's target file size; planned as a
 *       write ({@code write.OptimizePlanner}).
 *   <li>{@code expire_snapshots(retention_threshold => '7d')} and
 *       {@code remove_orphan_files(retention_threshold => '7d')}: run on the coordinator alone
 *       ({@code DdlRecord} kinds EXPIRE_SNAPSHOTS and REMOVE_ORPHAN_FILES). A threshold shorter
 *       than the minimum retention ({@link PlannerSettings#minRetention()}, 7 days unless the
 *       query property {@value PlannerSettings#MIN_RETENTION_PROPERTY} says otherwise) is refused,
 *       as Trino refuses it.
 * </ul>
 */
public final class TableProcedures {
  private TableProcedures() {}

  public static final String OPTIMIZE = "optimize";
  public static final String EXPIRE_SNAPSHOTS = "expire_snapshots";
  public static final String REMOVE_ORPHAN_FILES = "remove_orphan_files";

  /** Trino's default {@code file_size_threshold} of optimize: 100 MB. */
  public static final long DEFAULT_FILE_SIZE_THRESHOLD = 100L << 20;

  private static final Map<String, List<String>> PARAMETERS = Map.of(
      OPTIMIZE, List.of("file_size_threshold"),
      EXPIRE_SNAPSHOTS, List.of("retention_threshold"),
      REMOVE_ORPHAN_FILES, List.of("retention_threshold"));

  /**
   * The procedure's name in lower case.
   *
   * @throws PlanningException VALIDATION_ERROR naming a procedure Squall does not have, at its name
   */
  public static String name(ExecuteProcedure s) {
    String name = s.procedure().text().toLowerCase(Locale.ROOT);
    if (!PARAMETERS.containsKey(name)) {
      throw new PlanningException(Code.VALIDATION_ERROR, "Table procedure '" + s.procedure().text()
          + "' does not exist; Squall has optimize, expire_snapshots and remove_orphan_files",
          s.procedure().line(), s.procedure().column());
    }
    return name;
  }

  /**
   * The bytes of optimize's {@code file_size_threshold}.
   *
   * @throws PlanningException VALIDATION_ERROR at a bad argument
   */
  public static long fileSizeThreshold(ExecuteProcedure s) {
    ProcedureArgument a = arguments(s).get("file_size_threshold");
    if (a == null) {
      return DEFAULT_FILE_SIZE_THRESHOLD;
    }
    try {
      return ProcedureValues.dataSize(a.value());
    } catch (IllegalArgumentException e) {
      throw new PlanningException(Code.VALIDATION_ERROR, "file_size_threshold: " + e.getMessage(), a.line(),
          a.column(), e);
    }
  }

  /**
   * The optimize statement as its answer names it, with the threshold as the user wrote it (the
   * default as {@code 100MB}): {@code ALTER TABLE ns.t EXECUTE optimize(file_size_threshold => '10MB')}.
   */
  public static String optimizeDescription(ExecuteProcedure s, IcebergTable table) {
    ProcedureArgument a = arguments(s).get("file_size_threshold");
    return "ALTER TABLE " + table.identifier() + " EXECUTE " + OPTIMIZE + "(file_size_threshold => '"
        + (a == null ? "100MB" : a.value().trim()) + "')";
  }

  /**
   * The record of expire_snapshots or remove_orphan_files: what is older than {@code now} minus
   * the retention threshold goes.
   *
   * @throws PlanningException VALIDATION_ERROR at a bad or too short retention threshold
   */
  public static DdlRecord plan(ExecuteProcedure s, IcebergTable table, Duration minRetention, Instant now) {
    String name = name(s);
    if (name.equals(OPTIMIZE)) {
      throw new IllegalArgumentException("optimize is planned as a write");
    }
    if (table.pinnedSnapshotId().isPresent()) {
      throw new PlanningException(Code.UNSUPPORTED, "Unsupported SQL: " + name + " of a table as of a snapshot",
          s.table().get(0).line(), s.table().get(0).column());
    }
    ProcedureArgument a = arguments(s).get("retention_threshold");
    Duration retention = minRetention;
    // Echoed as the user wrote it ('1h', not 0.04d); the default in its largest whole unit.
    String retentionText = a == null ? ProcedureValues.text(minRetention) : a.value().trim();
    if (a != null) {
      try {
        retention = ProcedureValues.duration(a.value());
      } catch (IllegalArgumentException e) {
        throw new PlanningException(Code.VALIDATION_ERROR, "retention_threshold: " + e.getMessage(), a.line(),
            a.column(), e);
      }
      if (retention.compareTo(minRetention) < 0) {
        throw new PlanningException(Code.VALIDATION_ERROR, "retention_threshold " + retentionText
            + " is shorter than the minimum retention " + ProcedureValues.days(minRetention)
            + "; the query property " + PlannerSettings.MIN_RETENTION_PROPERTY + " sets the minimum",
            a.line(), a.column());
      }
    }
    var id = table.identifier();
    return DdlRecord.newBuilder()
        .setKind(name.equals(EXPIRE_SNAPSHOTS) ? DdlRecord.Kind.EXPIRE_SNAPSHOTS : DdlRecord.Kind.REMOVE_ORPHAN_FILES)
        .addAllNamespace(List.of(id.namespace().levels())).setTable(id.name())
        .setOlderThanMillis(now.minus(retention).toEpochMilli())
        .setDescription("ALTER TABLE " + id + " EXECUTE " + name + "(retention_threshold => '"
            + retentionText + "')")
        .build();
  }

  /**
   * The arguments by parameter name.
   *
   * @throws PlanningException VALIDATION_ERROR at an unknown, repeated or surplus argument
   */
  private static Map<String, ProcedureArgument> arguments(ExecuteProcedure s) {
    String procedure = name(s);
    List<String> parameters = PARAMETERS.get(procedure);
    Map<String, ProcedureArgument> byName = new LinkedHashMap<>();
    for (int i = 0; i < s.arguments().size(); i++) {
      ProcedureArgument a = s.arguments().get(i);
      String name;
      if (a.name() == null) {
        if (i >= parameters.size()) {
          throw new PlanningException(Code.VALIDATION_ERROR, procedure + " takes " + parameters.size()
              + " argument" + (parameters.size() == 1 ? "" : "s") + ": " + String.join(", ", parameters),
              a.line(), a.column());
        }
        name = parameters.get(i);
      } else {
        name = a.name().toLowerCase(Locale.ROOT);
        if (!parameters.contains(name)) {
          throw new PlanningException(Code.VALIDATION_ERROR, procedure + " has no argument '" + a.name()
              + "'; it takes " + String.join(", ", parameters), a.line(), a.column());
        }
      }
      if (byName.put(name, a) != null) {
        throw new PlanningException(Code.VALIDATION_ERROR, "argument " + name + " is given twice", a.line(),
            a.column());
      }
    }
    return byName;
  }
}
