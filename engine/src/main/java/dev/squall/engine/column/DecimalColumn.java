package dev.squall.engine.column;

import dev.squall.engine.hash.Murmur3;
import dev.squall.engine.types.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * DECIMAL(p, s) values as unscaled integers: a {@code long} per row, and a {@link BigInteger} for
 * the rows whose unscaled value does not fit a long (DECIMAL up to 38 digits). Invariant: a row has
 * a BigInteger only when its value is outside the long range, so one value has one representation.
 */
public final class DecimalColumn extends Column {
  private long[] unscaled;
  private BigInteger[] big;

  public DecimalColumn(SqlType type, long[] unscaled, BigInteger[] big, boolean[] nulls, int size) {
    super(type, size, nulls);
    this.unscaled = unscaled;
    this.big = big;
  }

  /** The same values typed as {@code wider} (same scale, precision at least this one's); shares the arrays. */
  public DecimalColumn withType(SqlType wider) {
    return new DecimalColumn(wider, unscaled, big, nulls, size);
  }

  public int scale() {
    return type.scale();
  }

  /** Whether row i's unscaled value is held as a BigInteger (outside the long range). */
  public boolean isBig(int i) {
    return big != null && big[i] != null;
  }

  /** Whether any row is held as a BigInteger. */
  public boolean hasBig() {
    return big != null;
  }

  public long unscaledLong(int i) {
    return unscaled[i];
  }

  public long[] unscaledValues() {
    return unscaled;
  }

  public BigInteger unscaledBig(int i) {
    return isBig(i) ? big[i] : BigInteger.valueOf(unscaled[i]);
  }

  /** Sets row i (i &lt; capacity) to an unscaled value, keeping the representation invariant. */
  public void setBig(int i, BigInteger v) {
    if (v.bitLength() < 64) {
      unscaled[i] = v.longValue();
      if (big != null) {
        big[i] = null;
      }
    } else {
      if (big == null) {
        big = new BigInteger[unscaled.length];
      }
      big[i] = v;
    }
  }

  public void setLong(int i, long v) {
    unscaled[i] = v;
    if (big != null) {
      big[i] = null;
    }
  }

  @Override
  public Column gather(int[] rows, int n, Column reuse) {
    // Only the long array is reused: BigInteger rows are rare and their array is shared by gathers.
    long[] out = reuse instanceof DecimalColumn d && d.unscaled.length >= n && d.unscaled != unscaled ? d.unscaled : new long[n];
    if (big == null) {
      // No wide rows: a plain gather the JIT keeps branch-free.
      long[] in = unscaled;
      for (int k = 0; k < n; k++) {
        int r = rows[k];
        out[k] = r < 0 ? 0 : in[r];
      }
      return new DecimalColumn(type, out, null, gatherNulls(rows, n, reuse), n);
    }
    BigInteger[] outBig = null;
    for (int k = 0; k < n; k++) {
      int r = rows[k];
      if (r >= 0) {
        out[k] = unscaled[r];
        if (big != null && big[r] != null) {
          if (outBig == null) {
            outBig = new BigInteger[n];
          }
          outBig[k] = big[r];
        }
      }
    }
    return new DecimalColumn(type, out, outBig, gatherNulls(rows, n, reuse), n);
  }

  @Override
  public int hash(int i, int seed) {
    if (isBig(i)) {
      BigInteger b = big[i];
      return Murmur3.hashLong(b.shiftRight(64).longValue(), Murmur3.hashLong(b.longValue(), seed));
    }
    long lo = unscaled[i];
    return Murmur3.hashLong(lo >> 63, Murmur3.hashLong(lo, seed));
  }

  @Override
  public boolean valueEquals(int i, Column other, int j) {
    DecimalColumn o = (DecimalColumn) other;
    if (o.scale() != scale()) {
      return compareValues(i, other, j) == 0;
    }
    boolean ab = isBig(i);
    boolean bb = o.isBig(j);
    if (!ab && !bb) {
      return unscaled[i] == o.unscaled[j];
    }
    return ab && bb && big[i].equals(o.big[j]);
  }

  @Override
  public int compareValues(int i, Column other, int j) {
    DecimalColumn o = (DecimalColumn) other;
    if (o.scale() == scale() && !isBig(i) && !o.isBig(j)) {
      return Long.compare(unscaled[i], o.unscaled[j]);
    }
    return decimal(i).compareTo(o.decimal(j));
  }

  /** Row i as a BigDecimal (non-null rows). */
  public BigDecimal decimal(int i) {
    return isBig(i) ? new BigDecimal(big[i], scale()) : BigDecimal.valueOf(unscaled[i], scale());
  }

  @Override
  public void appendFrom(Column src, int row) {
    ensureCapacity(size + 1);
    DecimalColumn s = (DecimalColumn) src;
    if (s.isNull(row)) {
      markNull(size);
    } else if (s.scale() == scale()) {
      if (s.isBig(row)) {
        setBig(size, s.big[row]);
      } else {
        setLong(size, s.unscaled[row]);
      }
    } else {
      setBig(size, s.decimal(row).setScale(scale(), java.math.RoundingMode.HALF_UP).unscaledValue());
    }
    size++;
  }

  public void appendUnscaled(BigInteger v) {
    ensureCapacity(size + 1);
    setBig(size, v);
    size++;
  }

  @Override
  protected void setValue(int i, Column src, int row) {
    DecimalColumn s = (DecimalColumn) src;
    if (s.scale() != scale()) {
      setBig(i, s.decimal(row).setScale(scale(), java.math.RoundingMode.HALF_UP).unscaledValue());
    } else if (s.isBig(row)) {
      setBig(i, s.big[row]);
    } else {
      setLong(i, s.unscaled[row]);
    }
  }

  @Override
  public void appendRows(Column src, int[] rows, int from, int to) {
    DecimalColumn s = (DecimalColumn) src;
    if (s.big != null || s.scale() != scale()) {
      super.appendRows(src, rows, from, to);
      return;
    }
    ensureCapacity(size + (to - from));
    int at = size;
    for (int k = from; k < to; k++) {
      unscaled[at + k - from] = s.unscaled[rows[k]];
    }
    if (big != null) {
      java.util.Arrays.fill(big, at, at + (to - from), null);
    }
    appendNullsOf(src, rows, from, to, at);
    size += to - from;
  }

  @Override
  public void appendNull() {
    ensureCapacity(size + 1);
    markNull(size);
    size++;
  }

  @Override
  public Object get(int i) {
    return isNull(i) ? null : decimal(i);
  }

  @Override
  public long bytes() {
    return 16L + unscaled.length * 8L + (big == null ? 0 : big.length * 40L) + (nulls == null ? 0 : nulls.length);
  }

  @Override
  protected int capacity() {
    return unscaled.length;
  }

  @Override
  protected void grow(int capacity) {
    unscaled = Arrays.copyOf(unscaled, capacity);
    if (big != null) {
      big = Arrays.copyOf(big, capacity);
    }
  }
}
