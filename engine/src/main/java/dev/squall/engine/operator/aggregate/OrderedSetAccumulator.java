package dev.squall.engine.operator.aggregate;

import dev.squall.engine.EngineException;
import dev.squall.engine.column.BytesColumn;
import dev.squall.engine.column.Column;
import dev.squall.engine.column.DoubleColumn;
import dev.squall.engine.expr.Batch;
import dev.squall.engine.expr.Casts;
import dev.squall.engine.types.SqlType;
import dev.squall.proto.v1.AggregateCall;
import dev.squall.proto.v1.SortKey;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;

/**
 * The aggregates that need all of a group's values in order, computed in one step (SINGLE mode):
 * LISTAGG / STRING_AGG(value[, separator]) [ORDER BY keys] (no separator: ''), PERCENTILE_CONT and PERCENTILE_DISC
 * (p) WITHIN GROUP (ORDER BY value). Rows with a NULL value are skipped. The non-NULL rows are
 * kept (value, order keys, group) and sorted by (group, keys) — stably, so LISTAGG without ORDER
 * BY keeps the input order — when the results are asked for.
 *
 * <p>PERCENTILE_CONT interpolates linearly between the values at positions floor(r) and ceil(r),
 * r = p * (n - 1), of the n ordered values; PERCENTILE_DISC answers the value at position
 * max(ceil(p * n), 1) - 1 (the first whose cumulative distribution reaches p). Both as in the SQL
 * standard and DuckDB's quantile_cont / quantile_disc. A group without non-NULL values is NULL.
 */
final class OrderedSetAccumulator implements Accumulator {
  private final AggregateCall.Kind kind;
  private final int valueArg;
  private final int separatorArg;
  private final int[] orderArgs;
  private final boolean[] descending;
  private final boolean[] nullsFirst;
  private final double percentile;
  private final SqlType out;
  private final SqlType valueType;
  private final Column values;
  /** The order key columns of the kept rows; for the percentiles, the values themselves. */
  private final Column[] orderValues;
  private int[] groupOf = new int[1024];
  private int rows;
  /** LISTAGG: each group's separator (the first non-NULL one seen), UTF-8. */
  private byte[][] separators = new byte[0][];

  OrderedSetAccumulator(AggregateCall call, List<SqlType> inTypes, SqlType out) {
    this.kind = call.getKind();
    this.out = out;
    this.percentile = call.getPercentile();
    this.valueArg = call.getArgs(0);
    List<SortKey> keys = call.getOrderKeysList();
    boolean listagg = kind == AggregateCall.Kind.LISTAGG;
    if (listagg && call.getArgsCount() != 1 && call.getArgsCount() != 2) {
      throw EngineException.badPlan("LISTAGG needs a value and at most a separator column");
    }
    if (!listagg && keys.size() != 1) {
      throw EngineException.badPlan(kind + " needs exactly one order key");
    }
    this.separatorArg = listagg && call.getArgsCount() == 2 ? call.getArgs(1) : -1;
    this.valueType = switch (kind) {
      case LISTAGG -> SqlType.VARCHAR;
      case PERCENTILE_CONT -> SqlType.DOUBLE;
      default -> inTypes.get(valueArg);
    };
    this.values = Column.empty(valueType, 1024);
    this.orderArgs = new int[keys.size()];
    this.descending = new boolean[keys.size()];
    this.nullsFirst = new boolean[keys.size()];
    this.orderValues = new Column[keys.size()];
    for (int k = 0; k < keys.size(); k++) {
      orderArgs[k] = keys.get(k).getColumn();
      descending[k] = keys.get(k).getDescending();
      nullsFirst[k] = keys.get(k).getNullsFirst();
      orderValues[k] = listagg ? Column.empty(inTypes.get(orderArgs[k]), 1024) : values;
    }
  }

  @Override
  public void add(int[] ids, int n, int groups, Batch batch) {
    Column value = Casts.cast(batch.column(valueArg), valueType);
    boolean listagg = kind == AggregateCall.Kind.LISTAGG;
    Column separator = separatorArg >= 0 ? Casts.cast(batch.column(separatorArg), SqlType.VARCHAR) : null;
    if (listagg && separators.length < groups) {
      separators = Arrays.copyOf(separators, Math.max(groups, separators.length * 2));
    }
    for (int i = 0; i < n; i++) {
      if (value.isNull(i)) {
        continue;
      }
      if (rows == groupOf.length) {
        groupOf = Arrays.copyOf(groupOf, rows * 2);
      }
      groupOf[rows++] = ids[i];
      values.appendFrom(value, i);
      if (listagg) {
        for (int k = 0; k < orderArgs.length; k++) {
          orderValues[k].appendFrom(batch.column(orderArgs[k]), i);
        }
        if (separator != null && separators[ids[i]] == null && !separator.isNull(i)) {
          separators[ids[i]] = ((BytesColumn) separator).value(i);
        }
      }
    }
  }

  @Override
  public Column[] results(int groups) {
    Integer[] order = new Integer[rows];
    for (int r = 0; r < rows; r++) {
      order[r] = r;
    }
    Arrays.sort(order, this::compare);
    Column result = Column.empty(kind == AggregateCall.Kind.PERCENTILE_DISC ? valueType : out, groups);
    int at = 0;
    for (int g = 0; g < groups; g++) {
      int from = at;
      while (at < rows && groupOf[order[at]] == g) {
        at++;
      }
      if (at == from) {
        result.appendNull();
        continue;
      }
      switch (kind) {
        case LISTAGG -> result.appendFrom(concatenated(order, from, at, g), 0);
        case PERCENTILE_CONT -> result.appendFrom(interpolated(order, from, at), 0);
        default -> {
          int count = at - from;
          int position = (int) Math.max(Math.ceil(percentile * count), 1) - 1;
          result.appendFrom(values, order[from + position]);
        }
      }
    }
    return new Column[] {Casts.cast(result, out)};
  }

  private Column concatenated(Integer[] order, int from, int to, int group) {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    byte[] separator = group < separators.length && separators[group] != null ? separators[group] : new byte[0];
    BytesColumn strings = (BytesColumn) values;
    for (int i = from; i < to; i++) {
      if (i > from) {
        text.writeBytes(separator);
      }
      text.writeBytes(strings.value(order[i]));
    }
    return BytesColumn.of(out, text.toByteArray());
  }

  private Column interpolated(Integer[] order, int from, int to) {
    double[] v = ((DoubleColumn) values).values();
    double position = percentile * (to - from - 1);
    int low = (int) Math.floor(position);
    int high = (int) Math.ceil(position);
    double lo = v[order[from + low]];
    double hi = v[order[from + high]];
    double x = low == high ? lo : lo + (position - low) * (hi - lo);
    return new DoubleColumn(SqlType.DOUBLE, new double[] {x}, null, 1);
  }

  private int compare(int a, int b) {
    int cmp = Integer.compare(groupOf[a], groupOf[b]);
    for (int k = 0; cmp == 0 && k < orderValues.length; k++) {
      Column c = orderValues[k];
      boolean na = c.isNull(a);
      boolean nb = c.isNull(b);
      if (na || nb) {
        cmp = na == nb ? 0 : (na == nullsFirst[k] ? -1 : 1);
      } else {
        cmp = c.compareValues(a, c, b);
        if (descending[k]) {
          cmp = -cmp;
        }
      }
    }
    return cmp;
  }

  @Override
  public long bytes() {
    long bytes = values.bytes() + groupOf.length * 4L + separators.length * 24L;
    if (kind == AggregateCall.Kind.LISTAGG) {
      for (Column c : orderValues) {
        bytes += c.bytes();
      }
    }
    return bytes;
  }
}
