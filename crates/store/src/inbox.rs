//! The inbox log: every mail read, its outcome, and the failures counted
//! against a mail before it is set aside.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::StoreError;

/// Is this message already in the inbox log (by Message-ID or content hash)?
pub fn inbox_seen(
    conn: &Connection,
    message_id: Option<&str>,
    content_hash: &str,
) -> Result<Option<i64>, StoreError> {
    Ok(conn.prepare_cached("SELECT id FROM inbox WHERE content_hash = ?1 OR (?2 IS NOT NULL AND message_id = ?2) LIMIT 1")?.query_row(params![content_hash, message_id], |r| r.get(0))
        .optional()?)
}

/// Forgets that the mail with this SHA-256 was set aside (its `failed:`
/// row in the inbox log and its failure count), in one commit: the host
/// put it back to be handled again. Returns how many inbox rows it had.
pub fn inbox_forget_set_aside(conn: &Connection, content_hash: &str) -> Result<usize, StoreError> {
    // Read first: a plain duplicate (the common case) takes no write lock.
    let set_aside: bool = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM inbox WHERE content_hash = ?1 AND outcome LIKE 'failed:%')",
        )?
        .query_row([content_hash], |r| r.get(0))?;
    if !set_aside {
        return Ok(0);
    }
    // A savepoint: its own commit, or its part of a commit group's.
    let tx = super::Nested::begin(conn, "forget_set_aside")?;
    let n = conn
        .prepare_cached("DELETE FROM inbox WHERE content_hash = ?1 AND outcome LIKE 'failed:%'")?
        .execute([content_hash])?;
    if n > 0 {
        conn.prepare_cached("DELETE FROM handle_failures WHERE content_hash = ?1")?
            .execute([content_hash])?;
        tx.keep()?;
    }
    Ok(n)
}

#[derive(Debug, Clone)]
pub struct InboxEntry {
    pub message_id: Option<String>,
    pub content_hash: String,
    pub source: String,
    pub sender: Option<String>,
    pub subject: Option<String>,
    pub size: usize,
    pub received_at: String,
    pub outcome: String,
    pub detail: String,
}

pub fn insert_inbox(tx: &Transaction<'_>, e: &InboxEntry) -> Result<i64, StoreError> {
    tx.prepare_cached("INSERT INTO inbox (message_id, content_hash, source, sender, subject, size, received_at, outcome, detail)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")?.execute(params![
            e.message_id,
            e.content_hash,
            e.source,
            e.sender,
            e.subject,
            e.size as i64,
            e.received_at,
            e.outcome,
            e.detail
        ])?;
    Ok(tx.last_insert_rowid())
}

pub fn set_inbox_outcome(
    tx: &Transaction<'_>,
    id: i64,
    outcome: &str,
    detail: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE inbox SET outcome = ?2, detail = ?3 WHERE id = ?1")?
        .execute(params![id, outcome, detail])?;
    Ok(())
}

/// One row of the inbox log.
#[derive(Debug, Clone)]
pub struct LogRow {
    pub id: i64,
    pub message_id: Option<String>,
    pub sender: Option<String>,
    pub subject: Option<String>,
    pub outcome: String,
    pub detail: String,
}

/// The inbox log, oldest first.
pub fn inbox_log(conn: &Connection) -> Result<Vec<LogRow>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT id, message_id, sender, subject, outcome, detail FROM inbox ORDER BY id",
    )?;
    let rows = st.query_map([], |r| {
        Ok(LogRow {
            id: r.get(0)?,
            message_id: r.get(1)?,
            sender: r.get(2)?,
            subject: r.get(3)?,
            outcome: r.get(4)?,
            detail: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Records a mail that will not be tried again (by its content hash; a
/// hash already logged is left as it is), in its own commit, or in a
/// commit group's transaction when one is open.
pub fn record_failed(
    conn: &Connection,
    hash: &str,
    source: &str,
    size: i64,
    received_at: &str,
    outcome: &str,
    detail: &str,
) -> Result<(), StoreError> {
    let tx = super::Nested::begin(conn, "record_failed")?;
    conn.prepare_cached(
        "INSERT OR IGNORE INTO inbox (content_hash, source, size, received_at, outcome, detail)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![hash, source, size, received_at, outcome, detail])?;
    tx.keep()
}

/// How many inbox rows of this outcome and detail came since a time.
pub fn outcomes_since(
    conn: &Connection,
    outcome: &str,
    detail: &str,
    since: &str,
) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT count(*) FROM inbox WHERE outcome = ?1 AND detail = ?2 AND received_at >= ?3",
        )?
        .query_row(params![outcome, detail, since], |r| r.get(0))?)
}
