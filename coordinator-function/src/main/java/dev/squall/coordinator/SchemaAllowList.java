package dev.squall.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;

/**
 * Which schemas (Iceberg namespaces, dot-joined: {@code sales} or {@code lake.sales}) each caller
 * may query, from {@code SQUALL_SCHEMA_ALLOW_LIST}: a JSON object from caller identity ({@link
 * dev.squall.coordinator.api.Caller#id()}) to a list of schema names, where the key {@code "*"}
 * gives the schemas of every caller not listed and the name {@code "*"} allows all. Unset or empty:
 * every caller sees every schema. Set: a caller that is neither listed nor covered by {@code "*"}
 * sees none. Tables outside a caller's schemas read as absent, so the error does not reveal them.
 */
public final class SchemaAllowList {
  /** No restriction. */
  public static final SchemaAllowList NONE = new SchemaAllowList(Map.of());
  private static final String ANY = "*";

  private final Map<String, Set<String>> byCaller;

  private SchemaAllowList(Map<String, Set<String>> byCaller) {
    this.byCaller = byCaller;
  }

  /**
   * Parses the setting's JSON; blank means {@link #NONE}.
   *
   * @throws IllegalArgumentException naming the setting when it is not an object of string lists
   */
  public static SchemaAllowList parse(String json) {
    if (json == null || json.isBlank()) {
      return NONE;
    }
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (IOException e) {
      root = null;
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("SQUALL_SCHEMA_ALLOW_LIST must be a JSON object from caller identity to a "
          + "list of schema names");
    }
    Map<String, Set<String>> byCaller = new HashMap<>();
    var fields = root.fields();
    while (fields.hasNext()) {
      var e = fields.next();
      if (!e.getValue().isArray()) {
        throw new IllegalArgumentException("SQUALL_SCHEMA_ALLOW_LIST: the entry of '" + e.getKey()
            + "' must be a list of schema names");
      }
      Set<String> schemas = new HashSet<>();
      e.getValue().forEach(n -> schemas.add(n.asText()));
      byCaller.put(e.getKey(), Set.copyOf(schemas));
    }
    return new SchemaAllowList(Map.copyOf(byCaller));
  }

  /** Whether {@code caller} may read or write tables of {@code namespace}. */
  public boolean allows(String caller, Namespace namespace) {
    if (byCaller.isEmpty()) {
      return true;
    }
    Set<String> schemas = byCaller.getOrDefault(caller, byCaller.getOrDefault(ANY, Set.of()));
    return schemas.contains(ANY) || schemas.contains(String.join(".", namespace.levels()));
  }

  /** The catalog as {@code caller} may see it: itself when nothing is restricted. */
  public Catalog restrict(Catalog catalog, String caller) {
    return byCaller.isEmpty() ? catalog : new SchemaRestrictedCatalog(catalog, ns -> allows(caller, ns));
  }
}
