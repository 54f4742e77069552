package dev.squall.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Terraform module's configuration as parsed by {@link Hcl2Json}, merged over its {@code .tf}
 * files: resources, data sources, locals and variables by name. Expressions are not evaluated;
 * {@link #literals} reads the string literals an expression can yield, following {@code local.}
 * references, which is enough to check what a policy or a setting may contain.
 */
final class TerraformConfig {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern QUOTED = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern LOCAL_REF = Pattern.compile("\\blocal\\.([A-Za-z0-9_]+)");
  private static final Pattern VAR_REF = Pattern.compile("\\bvar\\.([A-Za-z0-9_]+)");

  private final Map<String, Map<String, JsonNode>> resources = new LinkedHashMap<>();
  private final Map<String, Map<String, JsonNode>> data = new LinkedHashMap<>();
  private final Map<String, JsonNode> locals = new LinkedHashMap<>();
  private final Map<String, JsonNode> variables = new LinkedHashMap<>();
  private final Map<String, JsonNode> modules = new LinkedHashMap<>();

  private TerraformConfig() {}

  /** Parses every {@code .tf} file directly in {@code dir}. */
  static TerraformConfig load(Path dir) {
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".tf")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (files.isEmpty()) {
      throw new IllegalStateException("no .tf files in " + dir);
    }
    TerraformConfig config = new TerraformConfig();
    Hcl2Json.parse(files).fields().forEachRemaining(f -> config.add(f.getValue()));
    return config;
  }

  /** Parses HCL text (for checks of the checks). */
  static TerraformConfig parse(String hcl) {
    try {
      Path dir = Files.createTempDirectory("squall-tf");
      Files.writeString(dir.resolve("main.tf"), hcl);
      try {
        return load(dir);
      } finally {
        Files.delete(dir.resolve("main.tf"));
        Files.delete(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void add(JsonNode file) {
    blocks(file.path("resource"), resources);
    blocks(file.path("data"), data);
    file.path("locals").forEach(l -> l.fields().forEachRemaining(f -> locals.put(f.getKey(), f.getValue())));
    file.path("variable").fields().forEachRemaining(f -> variables.put(f.getKey(), f.getValue().get(0)));
    file.path("module").fields().forEachRemaining(f -> modules.put(f.getKey(), f.getValue().get(0)));
  }

  private static void blocks(JsonNode byType, Map<String, Map<String, JsonNode>> into) {
    byType.fields().forEachRemaining(type -> type.getValue().fields().forEachRemaining(named ->
        into.computeIfAbsent(type.getKey(), t -> new LinkedHashMap<>()).put(named.getKey(), named.getValue().get(0))));
  }

  /** Resources of a type by name (empty when none). */
  Map<String, JsonNode> resources(String type) {
    return resources.getOrDefault(type, Map.of());
  }

  /** One resource's body; fails naming it when absent. */
  JsonNode resource(String type, String name) {
    JsonNode r = resources(type).get(name);
    if (r == null) {
      throw new AssertionError("no resource " + type + "." + name);
    }
    return r;
  }

  /** One data source's body; fails naming it when absent. */
  JsonNode data(String type, String name) {
    JsonNode d = data.getOrDefault(type, Map.of()).get(name);
    if (d == null) {
      throw new AssertionError("no data source " + type + "." + name);
    }
    return d;
  }

  Map<String, JsonNode> locals() {
    return locals;
  }

  JsonNode local(String name) {
    JsonNode l = locals.get(name);
    if (l == null) {
      throw new AssertionError("no local " + name);
    }
    return l;
  }

  JsonNode variable(String name) {
    JsonNode v = variables.get(name);
    if (v == null) {
      throw new AssertionError("no variable " + name);
    }
    return v;
  }

  Map<String, JsonNode> modules() {
    return modules;
  }

  /**
   * The statements of an {@code aws_iam_policy_document}: its {@code statement} blocks and the
   * {@code content} of its {@code dynamic "statement"} blocks (each of which may or may not be
   * generated).
   */
  List<JsonNode> policyStatements(String documentName) {
    JsonNode doc = data("aws_iam_policy_document", documentName);
    List<JsonNode> statements = new ArrayList<>();
    doc.path("statement").forEach(statements::add);
    doc.path("dynamic").path("statement").forEach(d -> d.path("content").forEach(statements::add));
    return statements;
  }

  /**
   * Every string literal {@code value} can yield: list elements, string literals inside {@code
   * ${...}} expressions, and those of the locals it references, recursively.
   *
   * @throws AssertionError when the value may also hold strings from a variable of a collection
   *     type (not bounded by this configuration)
   */
  Set<String> literals(JsonNode value) {
    Set<String> out = new LinkedHashSet<>();
    collect(value, out, new LinkedHashSet<>());
    return out;
  }

  private void collect(JsonNode value, Set<String> out, Set<String> seenLocals) {
    if (value == null || value.isNull()) {
      return;
    }
    if (value.isArray() || value.isObject()) {
      value.forEach(v -> collect(v, out, seenLocals));
      return;
    }
    String text = value.asText();
    if (!text.contains("${")) {
      out.add(text);
      return;
    }
    Matcher q = QUOTED.matcher(text);
    while (q.find()) {
      out.add(q.group(1));
    }
    Matcher v = VAR_REF.matcher(text);
    while (v.find()) {
      String type = variable(v.group(1)).path("type").asText("any");
      // Numbers and booleans, and collections of them, cannot hold an action or a resource name.
      if (!type.matches("\\$\\{(string|number|bool)}") && !type.matches("string|number|bool")
          && !type.matches("\\$\\{(list|set)\\((number|bool)\\)}")) {
        throw new AssertionError("'" + text + "' may hold values of variable " + v.group(1) + " (" + type + ")");
      }
    }
    Matcher l = LOCAL_REF.matcher(text);
    while (l.find()) {
      if (seenLocals.add(l.group(1))) {
        collect(local(l.group(1)), out, seenLocals);
      }
    }
  }

  /** The body as an object (for fields that may be absent). */
  static ObjectNode object(JsonNode node) {
    return node instanceof ObjectNode o ? o : JSON.createObjectNode();
  }
}
