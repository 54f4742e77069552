package dev.squall.coordinator.commit;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The real JDBC catalog whose next table commit can be made to fail the way a catalog whose
 * answer was lost fails: with {@link CommitStateUnknownException}, either after the commit landed
 * or without it landing.
 */
final class FaultInjectingJdbcCatalog extends JdbcCatalog {
  /** What the next commit does. */
  enum Fault {
    NONE, UNKNOWN_AFTER_COMMIT, UNKNOWN_WITHOUT_COMMIT,
    /** A transport error that is not a CommitStateUnknownException (a read timeout), commit not landed. */
    TIMEOUT_WITHOUT_COMMIT,
    /** A refusal before anything is written (a failed validation). */
    REFUSED
  }

  private final AtomicReference<Fault> next = new AtomicReference<>(Fault.NONE);

  /** Makes the next table commit (only that one) fail with {@code fault}. */
  void failNextCommit(Fault fault) {
    next.set(fault);
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier tableIdentifier) {
    TableOperations delegate = super.newTableOps(tableIdentifier);
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
        Fault fault = next.getAndSet(Fault.NONE);
        if (fault == Fault.TIMEOUT_WITHOUT_COMMIT) {
          throw new java.io.UncheckedIOException(new java.net.SocketTimeoutException("injected: read timed out"));
        }
        if (fault == Fault.REFUSED) {
          throw new org.apache.iceberg.exceptions.ValidationException("injected: a conflicting change was committed");
        }
        if (fault == Fault.UNKNOWN_WITHOUT_COMMIT) {
          throw new CommitStateUnknownException(new RuntimeException("injected: answer lost before commit"));
        }
        delegate.commit(base, metadata);
        if (fault == Fault.UNKNOWN_AFTER_COMMIT) {
          throw new CommitStateUnknownException(new RuntimeException("injected: answer lost after commit"));
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
