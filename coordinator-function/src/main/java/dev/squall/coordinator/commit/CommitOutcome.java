package dev.squall.coordinator.commit;

/**
 * What the commit of a write did.
 *
 * @param snapshotId the snapshot that holds the job's data files (stamped with the job id)
 * @param rowCount rows the job added to the table: the sum of its data files' record counts (for
 *     a commit found from an earlier run, the snapshot summary's {@code added-records})
 * @param alreadyCommitted true when an earlier run of the same job had committed and this call
 *     committed nothing
 */
public record CommitOutcome(long snapshotId, long rowCount, boolean alreadyCommitted) {}
