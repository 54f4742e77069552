package dev.squall.planner.stage;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;

/**
 * How the output rows of a stage draft lie across its tasks.
 * <ul>
 *   <li>ANY: no known placement (e.g. rows of scan splits);</li>
 *   <li>HASH: rows with equal values of a key list are in the same task, by the shuffle's hash of
 *       those columns in that order; {@code keyLists} holds every key list known to place rows so
 *       (after an inner join both sides' keys do);</li>
 *   <li>SINGLE: all rows are in one task.</li>
 * </ul>
 */
public record Distribution(Kind kind, List<List<Integer>> keyLists) {
  public enum Kind { ANY, HASH, SINGLE }

  public static final Distribution ANY = new Distribution(Kind.ANY, List.of());
  public static final Distribution SINGLE = new Distribution(Kind.SINGLE, List.of());

  public Distribution {
    keyLists = List.copyOf(keyLists);
  }

  /** Hash placement by one or more equivalent key lists; ANY when the list is empty. */
  public static Distribution hash(List<List<Integer>> keyLists) {
    return keyLists.isEmpty() ? ANY : new Distribution(Kind.HASH, keyLists);
  }

  /** Hash placement by one key list. */
  public static Distribution hashOn(List<Integer> keys) {
    return hash(List.of(List.copyOf(keys)));
  }

  public boolean isSingle() {
    return kind == Kind.SINGLE;
  }

  /** True when rows are placed by hash of exactly these columns in this order. */
  public boolean hashedOn(List<Integer> keys) {
    return kind == Kind.HASH && keyLists.contains(keys);
  }

  /**
   * Positions within {@code keys} of a key list this placement hashes on, when every column of
   * that list is one of {@code keys}: rows equal on {@code keys} are then already together, and a
   * second input hashed on its columns at the same positions lands in the same tasks. Empty when
   * no such key list exists.
   */
  public java.util.Optional<List<Integer>> hashPositionsWithin(List<Integer> keys) {
    if (kind != Kind.HASH) {
      return java.util.Optional.empty();
    }
    for (List<Integer> list : keyLists) {
      List<Integer> positions = new ArrayList<>();
      for (int column : list) {
        int position = keys.indexOf(column);
        if (position < 0) {
          positions = null;
          break;
        }
        positions.add(position);
      }
      if (positions != null && !positions.isEmpty()) {
        return java.util.Optional.of(positions);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * True when all rows of any group of the given grouping columns are already in one task: the
   * draft is single, or hashed on a non-empty subset of the grouping columns.
   */
  public boolean groupsAreLocal(List<Integer> groupKeys) {
    if (kind == Kind.SINGLE) {
      return true;
    }
    if (kind != Kind.HASH || groupKeys.isEmpty()) {
      return false;
    }
    for (List<Integer> keys : keyLists) {
      if (!keys.isEmpty() && groupKeys.containsAll(keys)) {
        return true;
      }
    }
    return false;
  }

  /** The placement of a projection's output: key columns followed through plain column references. */
  public Distribution throughProject(List<RexNode> projects) {
    if (kind != Kind.HASH) {
      return this;
    }
    List<List<Integer>> mapped = new ArrayList<>();
    for (List<Integer> keys : keyLists) {
      List<Integer> out = new ArrayList<>();
      for (int key : keys) {
        int found = -1;
        for (int i = 0; i < projects.size() && found < 0; i++) {
          if (projects.get(i) instanceof RexInputRef ref && ref.getIndex() == key) {
            found = i;
          }
        }
        if (found < 0) {
          out = null;
          break;
        }
        out.add(found);
      }
      if (out != null) {
        mapped.add(out);
      }
    }
    return hash(mapped);
  }

  /** The placement of an aggregate's output, whose first columns are the group keys in order. */
  public Distribution throughAggregate(List<Integer> groupKeys) {
    if (kind != Kind.HASH) {
      return this;
    }
    List<List<Integer>> mapped = new ArrayList<>();
    for (List<Integer> keys : keyLists) {
      if (groupKeys.containsAll(keys)) {
        List<Integer> out = new ArrayList<>();
        for (int key : keys) {
          out.add(groupKeys.indexOf(key));
        }
        mapped.add(out);
      }
    }
    return hash(mapped);
  }

  /** This placement with every key column shifted right by {@code offset} (right side of a join). */
  public Distribution shifted(int offset) {
    if (kind != Kind.HASH) {
      return this;
    }
    List<List<Integer>> mapped = new ArrayList<>();
    for (List<Integer> keys : keyLists) {
      mapped.add(keys.stream().map(k -> k + offset).toList());
    }
    return hash(mapped);
  }
}
