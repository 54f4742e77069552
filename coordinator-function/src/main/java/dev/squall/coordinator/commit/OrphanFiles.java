package dev.squall.coordinator.commit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files under a table's location that no retained metadata references and that are
 * older than a cutoff (Trino's and Iceberg's {@code remove_orphan_files}, done with the table's
 * {@code FileIO} alone): lists the location ({@link SupportsPrefixOperations#listPrefix}),
 * subtracts every file reachable from the current metadata (metadata files and their log,
 * statistics files, each retained snapshot's manifest list, its manifests and the live data and
 * delete files they hold) and deletes the rest whose creation time lies before the cutoff. A file
 * that only a DELETED manifest entry names belongs to no retained snapshot and is an orphan.
 *
 * <p>Paths are compared without their scheme ({@code s3://b/k} and {@code s3a://b/k} are one
 * file). A write still running has data files that no metadata references yet; the cutoff (at
 * least the minimum retention, 7 days unless set lower) keeps them.
 */
public final class OrphanFiles {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFiles.class);

  private OrphanFiles() {}

  /**
   * @return the number of files deleted
   * @throws UnsupportedOperationException when the table's FileIO cannot list a prefix
   */
  public static int remove(Table table, long olderThanMillis) {
    FileIO io = table.io();
    if (!(io instanceof SupportsPrefixOperations prefixes)) {
      throw new UnsupportedOperationException("the table's storage cannot list files ("
          + io.getClass().getSimpleName() + ")");
    }
    Set<String> reachable = reachable(table);
    List<String> orphans = new ArrayList<>();
    String location = table.location().endsWith("/") ? table.location() : table.location() + "/";
    for (FileInfo file : prefixes.listPrefix(location)) {
      if (file.createdAtMillis() < olderThanMillis && !reachable.contains(withoutScheme(file.location()))
          && !file.location().endsWith("version-hint.text")) {
        orphans.add(file.location());
      }
    }
    if (orphans.isEmpty()) {
      return 0;
    }
    if (io instanceof SupportsBulkOperations bulk) {
      bulk.deleteFiles(orphans);
    } else {
      orphans.forEach(io::deleteFile);
    }
    LOG.info("removed {} orphan files of {}", orphans.size(), table.name());
    return orphans.size();
  }

  /** Every file the table's current metadata reaches, without scheme. */
  static Set<String> reachable(Table table) {
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    Set<String> files = new HashSet<>();
    add(files, metadata.metadataFileLocation());
    metadata.previousFiles().forEach(entry -> add(files, entry.file()));
    reachableFromSnapshots(table, new HashMap<>()).forEach(f -> add(files, f));
    return files;
  }

  /**
   * Every file the table's retained snapshots reach, as the metadata writes it: statistics files,
   * each snapshot's manifest list, its manifests and the live data and delete files they hold (a
   * file only a DELETED entry names is not reached).
   *
   * @param liveFilesByManifest manifests already read (path to the files they hold), filled as
   *     manifests are read; manifests never change, so one map may serve several calls
   */
  static Set<String> reachableFromSnapshots(Table table, Map<String, List<String>> liveFilesByManifest) {
    FileIO io = table.io();
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    Set<String> files = new HashSet<>();
    metadata.statisticsFiles().forEach(f -> files.add(f.path()));
    metadata.partitionStatisticsFiles().forEach(f -> files.add(f.path()));
    for (Snapshot snapshot : metadata.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        files.add(snapshot.manifestListLocation());
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        files.add(manifest.path());
        files.addAll(liveFilesByManifest.computeIfAbsent(manifest.path(), p -> liveFiles(manifest, io, metadata)));
      }
    }
    return files;
  }

  private static List<String> liveFiles(ManifestFile manifest, FileIO io, TableMetadata metadata) {
    List<String> files = new ArrayList<>();
    try (CloseableIterable<? extends ContentFile<?>> entries = switch (manifest.content()) {
      case DATA -> ManifestFiles.read(manifest, io, metadata.specsById());
      case DELETES -> ManifestFiles.readDeleteManifest(manifest, io, metadata.specsById());
    }) {
      entries.forEach(f -> files.add(f.location()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return files;
  }

  private static void add(Set<String> files, String path) {
    if (path != null) {
      files.add(withoutScheme(path));
    }
  }

  private static String withoutScheme(String path) {
    int scheme = path.indexOf("://");
    return scheme < 0 ? path : path.substring(scheme + 3);
  }
}
