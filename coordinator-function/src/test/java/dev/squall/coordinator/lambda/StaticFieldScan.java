package dev.squall.coordinator.lambda;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Finds values in the static state of already-initialised classes: lists the classes of the
 * classpath whose names match a filter, keeps those the JVM has initialised (without initialising
 * any), and walks the object graph from their static fields (fields of project and library
 * objects, arrays, collections and maps; not the JDK's internals) to a bounded depth, reporting
 * every object a predicate selects with the path that reaches it.
 */
final class StaticFieldScan {
  private static final int MAX_DEPTH = 6;
  private final Predicate<Object> suspicious;
  private final List<String> findings = new ArrayList<>();
  private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Method shouldBeInitialized;
  private final Object unsafe;
  private int classesScanned;

  StaticFieldScan(Predicate<Object> suspicious) throws ReflectiveOperationException {
    this.suspicious = suspicious;
    Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
    Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
    theUnsafe.setAccessible(true);
    this.unsafe = theUnsafe.get(null);
    this.shouldBeInitialized = unsafeClass.getMethod("shouldBeInitialized", Class.class);
  }

  int classesScanned() {
    return classesScanned;
  }

  /** Scans the initialised classes whose binary names {@code classFilter} accepts; returns the findings. */
  List<String> scan(Predicate<String> classFilter) throws IOException {
    ClassLoader loader = getClass().getClassLoader();
    for (String name : classNames(classFilter)) {
      Class<?> c;
      try {
        c = Class.forName(name, false, loader);
        if ((boolean) shouldBeInitialized.invoke(unsafe, c)) {
          continue; // not initialised: nothing of it can hold state yet
        }
      } catch (Throwable e) {
        continue;
      }
      classesScanned++;
      Field[] fields;
      try {
        fields = c.getDeclaredFields();
      } catch (Throwable e) {
        continue;
      }
      for (Field f : fields) {
        if (Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
          Object value = read(f, null);
          walk(value, name + "." + f.getName(), 0);
        }
      }
    }
    return findings;
  }

  private static Object read(Field f, Object owner) {
    try {
      f.setAccessible(true);
      return f.get(owner);
    } catch (Throwable e) {
      return null;
    }
  }

  private void walk(Object value, String path, int depth) {
    if (value == null || depth > MAX_DEPTH || !seen.add(value)) {
      return;
    }
    if (suspicious.test(value)) {
      findings.add(path + " = " + value.getClass().getName());
      return;
    }
    Class<?> type = value.getClass();
    if (type.isArray()) {
      if (!type.getComponentType().isPrimitive()) {
        for (int i = 0; i < Math.min(Array.getLength(value), 10_000); i++) {
          walk(Array.get(value, i), path + "[" + i + "]", depth + 1);
        }
      }
      return;
    }
    if (value instanceof Map<?, ?> map && isJdk(type)) {
      try {
        for (Map.Entry<?, ?> e : List.copyOf(map.entrySet())) {
          walk(e.getKey(), path + "{key}", depth + 1);
          walk(e.getValue(), path + "{" + e.getKey() + "}", depth + 1);
        }
      } catch (RuntimeException ignored) {
        // a map that cannot be copied (concurrently changed, lazy): skip it
      }
      return;
    }
    if (value instanceof Collection<?> collection && isJdk(type)) {
      try {
        int i = 0;
        for (Object o : List.copyOf(collection)) {
          walk(o, path + "[" + i++ + "]", depth + 1);
        }
      } catch (RuntimeException ignored) {
        // as above
      }
      return;
    }
    if (isJdk(type)) {
      return;
    }
    for (Class<?> c = type; c != null && !isJdk(c); c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
          walk(read(f, value), path + "." + f.getName(), depth + 1);
        }
      }
    }
  }

  private static boolean isJdk(Class<?> c) {
    String n = c.getName();
    return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
        || n.startsWith("com.sun.");
  }

  private static List<String> classNames(Predicate<String> filter) throws IOException {
    List<String> names = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (Files.isDirectory(p)) {
        try (Stream<Path> files = Files.walk(p)) {
          files.map(f -> p.relativize(f).toString()).filter(f -> f.endsWith(".class"))
              .map(StaticFieldScan::binaryName).filter(filter).forEach(names::add);
        }
      } else if (entry.endsWith(".jar") && Files.exists(p)) {
        try (JarFile jar = new JarFile(p.toFile())) {
          jar.stream().map(e -> e.getName()).filter(f -> f.endsWith(".class") && !f.startsWith("META-INF"))
              .map(StaticFieldScan::binaryName).filter(filter).forEach(names::add);
        }
      }
    }
    return names;
  }

  private static String binaryName(String file) {
    return file.substring(0, file.length() - ".class".length()).replace('/', '.').replace('\\', '.');
  }
}
