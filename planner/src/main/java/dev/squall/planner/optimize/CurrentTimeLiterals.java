package dev.squall.planner.optimize;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Replaces CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP and NOW() by literals of one instant,
 * the query's start, so that every task of every stage sees the same time (as Trino fixes it once
 * per query). Times are UTC: Squall's timestamps carry no time zone.
 */
public final class CurrentTimeLiterals {
  private CurrentTimeLiterals() {}

  /** {@code plan} with every current-time call (sub-queries included) replaced by a literal of {@code now}. */
  public static RelNode apply(RelNode plan, Instant now) {
    RexBuilder rex = plan.getCluster().getRexBuilder();
    LocalDateTime utc = LocalDateTime.ofInstant(now, ZoneOffset.UTC);
    // Millisecond precision, as Trino's current_timestamp.
    TimestampString timestamp = TimestampString.fromMillisSinceEpoch(now.toEpochMilli());
    DateString date = DateString.fromDaysSinceEpoch((int) utc.toLocalDate().toEpochDay());
    RelHomogeneousShuttle[] rels = new RelHomogeneousShuttle[1];
    RexShuttle exprs = new RexShuttle() {
      @Override
      public RexNode visitCall(RexCall call) {
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (call.getOperands().isEmpty()) {
          switch (name) {
            case "CURRENT_DATE":
              return rex.makeDateLiteral(date);
            case "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "NOW":
              return rex.makeCast(call.getType(), rex.makeTimestampLiteral(timestamp, 3), false, false);
            default:
              break;
          }
        }
        return super.visitCall(call);
      }

      @Override
      public RexNode visitSubQuery(RexSubQuery subQuery) {
        RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
        return visited.clone(visited.rel.accept(rels[0]));
      }
    };
    rels[0] = new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        return super.visit(other).accept(exprs);
      }
    };
    return plan.accept(rels[0]);
  }
}
