//! How commits reach the disk: group commit (issue 57). The daemon's big
//! inbox pass commits each mail's transaction without a sync and syncs the
//! WAL once a group (src/daemon.rs, `Group`; docs/architecture.md).

use rusqlite::Connection;

use crate::StoreError;

/// Sets how the connection's commits reach the disk: `full` (the
/// default, [`crate::open`]) syncs the WAL at every commit; not `full`
/// (`synchronous = NORMAL`) leaves that to [`sync_wal`]: a commit is written
/// to the WAL at once, so a killed process loses none, but only a later
/// sync makes it survive a power cut. Group commit (the daemon's big inbox
/// pass) commits each mail in its own transaction this way and syncs once a
/// group, before any of the group's mails leaves the inbox.
pub fn set_full_sync(conn: &Connection, full: bool) -> Result<(), StoreError> {
    conn.pragma_update(None, "synchronous", if full { "FULL" } else { "NORMAL" })?;
    Ok(())
}

/// Makes every transaction committed so far to `conn`'s database durable,
/// whichever connection committed it: one `fsync` of the WAL file, as a
/// `synchronous = FULL` commit ends with (the WAL is one file, and an
/// `fsync` writes all of a file's pages, whoever wrote them). A database
/// with no WAL file has nothing waiting in one (a checkpoint syncs the
/// database file before the WAL is reset); an in-memory one nothing to sync.
pub fn sync_wal(conn: &Connection) -> std::io::Result<()> {
    let Some(path) = conn.path().filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    match std::fs::File::open(format!("{path}-wal")) {
        Ok(wal) => wal.sync_all(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}
