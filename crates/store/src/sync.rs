//! How commits reach the disk: group commit (issue 57). The daemon's big
//! inbox pass commits each mail's transaction without a sync and syncs the
//! WAL once a group (src/daemon.rs, `Group`; docs/architecture.md).

use rusqlite::Connection;

use crate::StoreError;

/// Puts the connection in or out of group commit (the daemon's big inbox
/// pass). Out of it, as [`crate::open`] leaves a connection, every commit
/// syncs the WAL (`synchronous = FULL`) and temporary storage is SQLite's
/// default, files. In it (`on`):
///
/// - a commit is written to the WAL but not synced (`synchronous =
///   NORMAL`), so a killed process loses none, but only a later
///   [`sync_wal`] makes it survive a power cut; the pass syncs once a
///   group, before any of the group's mails leaves the inbox;
/// - temporary storage is memory (`temp_store = MEMORY`): a group is one
///   transaction with a savepoint a mail, and each savepoint journals the
///   pages its mail changes; past 64 KiB SQLite wrote that journal to a
///   temporary file, about 60 page writes a mail (12,544 of a 200-mail
///   pass's 15,334 `pwrite`s, issue 57) for a journal only a rolled-back
///   mail reads, and that is dropped at the mail's end.
///
/// Neither may change inside a transaction: call it between groups.
pub fn group_commit(conn: &Connection, on: bool) -> Result<(), StoreError> {
    conn.pragma_update(None, "synchronous", if on { "NORMAL" } else { "FULL" })?;
    conn.pragma_update(None, "temp_store", if on { "MEMORY" } else { "DEFAULT" })?;
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
