package dev.squall.local.faults;

import java.util.EnumSet;
import java.util.Set;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The local JDBC catalog with COMMIT faults: before a table's metadata is swapped, a matching rule
 * (key: the table name, e.g. {@code tpch.t}) may delay it, fail it without committing (CRASH: a
 * connection error, so the committer cannot know the outcome) or commit and then lose the answer
 * (LOSE_ANSWER: {@link CommitStateUnknownException} after the commit landed).
 */
public final class FaultingJdbcCatalog extends JdbcCatalog {
  private static final Set<FaultAction> ACTIONS = EnumSet.of(FaultAction.CRASH, FaultAction.DELAY, FaultAction.HANG,
      FaultAction.LOSE_ANSWER);

  private final Faults faults;

  public FaultingJdbcCatalog(Faults faults) {
    this.faults = faults;
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier table) {
    TableOperations delegate = super.newTableOps(table);
    return new TableOperations() {
      @Override
      public TableMetadata current() {
        return delegate.current();
      }

      @Override
      public TableMetadata refresh() {
        return delegate.refresh();
      }

      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        var rule = faults.fire(FaultPoint.commit(table.toString()), ACTIONS);
        if (rule.isPresent()) {
          switch (rule.get().action()) {
            case CRASH -> throw new java.io.UncheckedIOException(
                new java.net.SocketException("Connection reset (injected before the commit)"));
            case DELAY, HANG -> Faults.pause(rule.get());
            default -> { }
          }
        }
        delegate.commit(base, metadata);
        if (rule.isPresent() && rule.get().action() == FaultAction.LOSE_ANSWER) {
          throw new CommitStateUnknownException(new RuntimeException("answer lost after the commit (injected)"));
        }
      }

      @Override
      public FileIO io() {
        return delegate.io();
      }

      @Override
      public EncryptionManager encryption() {
        return delegate.encryption();
      }

      @Override
      public String metadataFileLocation(String fileName) {
        return delegate.metadataFileLocation(fileName);
      }

      @Override
      public LocationProvider locationProvider() {
        return delegate.locationProvider();
      }

      @Override
      public TableOperations temp(TableMetadata uncommittedMetadata) {
        return delegate.temp(uncommittedMetadata);
      }

      @Override
      public long newSnapshotId() {
        return delegate.newSnapshotId();
      }

      @Override
      public boolean requireStrictCleanup() {
        return delegate.requireStrictCleanup();
      }
    };
  }
}
