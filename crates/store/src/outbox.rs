//! The outbox: every mail the judge sends, queued in the transaction that
//! made it, claimed, sent, retried or set aside as dead.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::StoreError;

#[derive(Debug, Clone)]
pub struct OutMail {
    pub id: i64,
    pub game_id: Option<i64>,
    pub recipient: String,
    pub message_id: String,
    pub kind: String,
    pub raw: Vec<u8>,
    pub status: String,
    pub attempts: i64,
    /// When it was queued (RFC 3339): a transient fault is retried until
    /// the host's horizon from here (`outbound.retry_days`).
    pub created_at: String,
    /// Why the stored body cannot be read back (then `raw` is empty): the
    /// row fails alone, the rest of its page is delivered.
    pub damaged: Option<String>,
}

pub fn insert_outbox(
    tx: &Transaction<'_>,
    game_id: Option<i64>,
    recipient: &str,
    message_id: &str,
    kind: &str,
    raw: &[u8],
    now: &str,
) -> Result<i64, StoreError> {
    insert_packed_outbox(tx, game_id, recipient, message_id, kind, &pack(raw), now)
}

/// [`insert_outbox`] for a body already [`pack`]ed (on another thread).
pub fn insert_packed_outbox(
    tx: &Transaction<'_>,
    game_id: Option<i64>,
    recipient: &str,
    message_id: &str,
    kind: &str,
    packed: &[u8],
    now: &str,
) -> Result<i64, StoreError> {
    tx.prepare_cached("INSERT INTO outbox (game_id, recipient, message_id, kind, raw, next_attempt_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)")?.execute(params![game_id, recipient, message_id, kind, packed, now])?;
    Ok(tx.last_insert_rowid())
}

/// How a turn report's body begins while it waits to be rendered at
/// delivery (`service::Renderer`): a small JSON job, not a mail. No mail
/// begins so (a message starts with a header field), nor does [`pack`].
pub const JOB: &[u8] = b"\0adjutant-job\0";

/// How a compressed body begins: no mail does (a message starts with a
/// header field), so a body stored whole before compression still reads.
pub(crate) const PACKED: &[u8] = b"\0adjutant-lz4\0";

/// The largest body [`unpack`] will restore (a mail is refused far below).
const UNPACKED_LIMIT: usize = 64 << 20;

/// An outgoing mail's body as stored: an LZ4 block (its size first, four
/// bytes little-endian) behind [`PACKED`]. A report mail (text, an SVG
/// board, JSON) shrinks about three times, and with it the pages each
/// inbound mail's transaction writes and `secure_delete` zeroes again after
/// delivery. LZ4 rather than DEFLATE: DEFLATE saves a few more pages but
/// costs more CPU per mail than the pages it saves.
#[must_use]
pub fn pack(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(PACKED.len() + 4 + raw.len() / 2);
    out.extend_from_slice(PACKED);
    out.extend_from_slice(&lz4_flex::block::compress_prepend_size(raw));
    out
}

/// The mail [`pack`] stored (a body stored whole, a report's [`JOB`], or
/// none, once dropped, is returned as it is). A body that is none of these
/// (neither packed nor a mail: damaged, random bytes) is refused as a
/// truncated one is, never sent as it is.
pub fn unpack(stored: Vec<u8>) -> Result<Vec<u8>, StoreError> {
    let bad = |why: String| StoreError::Corrupt(format!("an outbox body does not unpack: {why}"));
    let Some(z) = stored.strip_prefix(PACKED) else {
        if stored.is_empty() || stored.starts_with(JOB) || is_whole_mail(&stored) {
            return Ok(stored);
        }
        return Err(bad(
            "it is neither packed nor a mail with a Message-ID (damaged)".into(),
        ));
    };
    let size = z
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or_else(|| bad("it is cut short".into()))?;
    if size > UNPACKED_LIMIT {
        return Err(bad(format!("it claims {size} bytes")));
    }
    lz4_flex::block::decompress_size_prepended(z).map_err(|e| bad(e.to_string()))
}

/// Whether a body stored whole reads as a mail: a header field first, and
/// a Message-ID field in its header (every mail the judge makes has one).
fn is_whole_mail(raw: &[u8]) -> bool {
    let field_name = |line: &[u8]| {
        line.iter()
            .position(|&b| b == b':')
            .is_some_and(|n| n > 0 && line[..n].iter().all(|b| b.is_ascii_graphic()))
    };
    let mut lines = raw.split(|&b| b == b'\n');
    if !lines.next().is_some_and(field_name) {
        return false;
    }
    lines
        .take_while(|l| !l.is_empty() && *l != b"\r")
        .any(|l| l.len() > 11 && l[..11].eq_ignore_ascii_case(b"message-id:"))
}

fn out_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<OutMail> {
    let (raw, damaged) = match unpack(r.get(5)?) {
        Ok(raw) => (raw, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    Ok(OutMail {
        id: r.get(0)?,
        game_id: r.get(1)?,
        recipient: r.get(2)?,
        message_id: r.get(3)?,
        kind: r.get(4)?,
        raw,
        status: r.get(6)?,
        attempts: r.get(7)?,
        created_at: r.get(8)?,
        damaged,
    })
}

const OUT_COLS: &str =
    "id, game_id, recipient, message_id, kind, raw, status, attempts, created_at";

/// At most this many pending mails (bodies included) are read at a time
/// by [`outbox_claim`]: delivery's memory does not grow with the backlog.
pub const OUTBOX_PAGE: usize = 64;

/// Claims for `owner`, until `until`, at most `limit` pending mails due at
/// `now` with an id above `after` and no live claim (none, or one lapsed
/// by `now`), and returns them in id order, bodies included. A mail still
/// waiting out a back-off is due too when a newer mail to the same
/// recipient is: mail to one recipient goes out in the order it was
/// queued (a notice is not overtaken by a later report; issue 54). One UPDATE
/// takes SQLite's write lock before it reads, so two deliverers (threads
/// or processes) never claim the same row; a row is then sent by its
/// claimer only, and [`outbox_sent`] / [`outbox_failed`] end the claim.
pub fn outbox_claim(
    conn: &Connection,
    now: &str,
    after: i64,
    limit: usize,
    owner: &str,
    until: &str,
) -> Result<Vec<OutMail>, StoreError> {
    let mut st = conn.prepare_cached(&format!(
        "UPDATE outbox SET claimed_by = ?4, claim_until = ?5
         WHERE id IN (SELECT id FROM outbox INDEXED BY outbox_waiting
                      WHERE status = 'pending' AND id > ?2
                        AND (claim_until IS NULL OR claim_until <= ?1)
                        AND (next_attempt_at <= ?1
                             OR EXISTS (SELECT 1 FROM outbox AS newer INDEXED BY outbox_waiting
                                        WHERE newer.status = 'pending' AND newer.id > outbox.id
                                          AND newer.recipient = outbox.recipient
                                          AND newer.next_attempt_at <= ?1))
                      ORDER BY id LIMIT ?3)
         RETURNING {OUT_COLS}"
    ))?;
    let rows = st.query_map(params![now, after, limit as i64, owner, until], out_row)?;
    let mut rows: Vec<OutMail> = rows.collect::<Result<_, _>>()?;
    rows.sort_by_key(|m| m.id);
    Ok(rows)
}

/// Makes every pending mail waiting out a back-off due at `now` (the
/// server takes mail again, or the judge starts). Returns how many.
pub fn outbox_due_now(conn: &Connection, now: &str) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "UPDATE outbox SET next_attempt_at = ?1
             WHERE status = 'pending' AND next_attempt_at > ?1",
        )?
        .execute([now])?)
}

/// Gives back claims not used (a deliverer stopping before it sent them):
/// the rows are due again at once for any deliverer.
pub fn outbox_release(conn: &Connection, ids: &[i64], owner: &str) -> Result<(), StoreError> {
    let mut st = conn.prepare_cached(
        "UPDATE outbox SET claimed_by = NULL, claim_until = NULL
         WHERE id = ?1 AND claimed_by = ?2 AND status = 'pending'",
    )?;
    for id in ids {
        st.execute(params![id, owner])?;
    }
    Ok(())
}

/// Renews `owner`'s claim on its pending rows with ids from `from` to `to`
/// (the rest of a page it is still sending) until `until`, so that its
/// claim does not lapse while it is alive and at work.
pub fn outbox_renew(
    conn: &Connection,
    from: i64,
    to: i64,
    owner: &str,
    until: &str,
) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "UPDATE outbox SET claim_until = ?4
             WHERE id >= ?1 AND id <= ?2 AND claimed_by = ?3 AND status = 'pending'",
        )?
        .execute(params![from, to, owner, until])?)
}

/// The deliverers holding a live claim at `now` (a claim not yet lapsed).
pub fn outbox_claimers(conn: &Connection, now: &str) -> Result<Vec<String>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT DISTINCT claimed_by FROM outbox INDEXED BY outbox_waiting
         WHERE status = 'pending' AND claimed_by IS NOT NULL AND claim_until > ?1
         ORDER BY claimed_by",
    )?;
    let rows = st.query_map([now], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Ends every claim of `owner` (a deliverer known to be gone): its rows
/// are due again at once. Returns how many rows it held.
pub fn outbox_release_owner(conn: &Connection, owner: &str) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "UPDATE outbox SET claimed_by = NULL, claim_until = NULL
             WHERE claimed_by = ?1 AND status = 'pending'",
        )?
        .execute([owner])?)
}

/// Counts one more failure to handle the mail with this SHA-256 (in its
/// own commit: the handling's transaction was rolled back). Returns how
/// many times it has failed.
pub fn handle_failed(
    conn: &Connection,
    content_hash: &str,
    error: &str,
    now: &str,
) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "INSERT INTO handle_failures (content_hash, failures, last_error, last_at)
             VALUES (?1, 1, ?2, ?3)
             ON CONFLICT (content_hash) DO UPDATE
             SET failures = failures + 1, last_error = ?2, last_at = ?3
             RETURNING failures",
        )?
        .query_row(params![content_hash, error, now], |r| r.get(0))?)
}

/// One outbox row as `adjutant outbox` lists it: everything but the body,
/// and the body's size as stored, compressed (0 once it is dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEntry {
    pub id: i64,
    pub game_id: Option<i64>,
    pub recipient: String,
    pub kind: String,
    pub status: String,
    pub attempts: i64,
    pub created_at: String,
    pub sent_at: Option<String>,
    pub body_bytes: i64,
    /// The body is a turn report's [`JOB`], rendered at delivery.
    pub to_render: bool,
    /// Why the last attempt failed (none once sent).
    pub last_error: Option<String>,
}

/// Every outbox row without its body (SQLite's `length` of a blob reads
/// its size, not its bytes).
pub fn outbox_list(conn: &Connection) -> Result<Vec<OutboxEntry>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT id, game_id, recipient, kind, status, attempts, created_at, sent_at, length(raw),
                coalesce(substr(raw, 1, ?1) = ?2, 0), last_error
         FROM outbox ORDER BY id",
    )?;
    let rows = st.query_map(params![JOB.len() as i64, JOB], |r| {
        Ok(OutboxEntry {
            id: r.get(0)?,
            game_id: r.get(1)?,
            recipient: r.get(2)?,
            kind: r.get(3)?,
            status: r.get(4)?,
            attempts: r.get(5)?,
            created_at: r.get(6)?,
            sent_at: r.get(7)?,
            body_bytes: r.get(8)?,
            to_render: r.get(9)?,
            last_error: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The Message-ID and stored body of one outbox row (empty once dropped;
/// a report still to render is its [`JOB`]).
pub fn outbox_body(conn: &Connection, id: i64) -> Result<Option<(String, Vec<u8>)>, StoreError> {
    conn.prepare_cached("SELECT message_id, raw FROM outbox WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .map(|(mid, raw)| unpack(raw).map(|raw| (mid, raw)))
        .transpose()
}

/// A delivered mail: marked sent, and its bytes (which carry the seat's
/// reply token and maybe a fresh secret) dropped at once unless `keep` (a
/// retention setting, see [`outbox_compact`]); secure_delete zeroes them.
pub fn outbox_sent(conn: &Connection, id: i64, now: &str, keep: bool) -> Result<(), StoreError> {
    let mut st = conn.prepare_cached(
        "UPDATE outbox SET status = 'sent', attempts = attempts + 1, sent_at = ?2, last_error = NULL,
                raw = CASE WHEN ?3 THEN raw ELSE X'' END, claimed_by = NULL, claim_until = NULL
         WHERE id = ?1 AND status = 'pending'",
    )?;
    st.execute(params![id, now, keep])?;
    Ok(())
}

/// Runs `f` with `synchronous = NORMAL`, then puts FULL back. For writes
/// whose loss on a power failure costs nothing but repeating them (marking
/// a delivered mail sent: lost, it is delivered again, as after a crash
/// between delivery and the mark): they still reach the WAL at once, so a
/// killed process loses none, and the next FULL commit makes them durable.
pub fn relaxed<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    let r = f(conn);
    conn.pragma_update(None, "synchronous", "FULL")?;
    r
}

/// Drops the bodies of mails delivered before `sent_before` (the retention
/// period's start), keeping each row's metadata and Message-ID. Pending
/// mails are never touched; dead ones keep their bytes for the host.
/// Returns how many bodies were dropped.
pub fn outbox_compact(conn: &Connection, sent_before: &str) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "UPDATE outbox SET raw = X''
         WHERE status = 'sent' AND raw <> X'' AND sent_at < ?1",
        )?
        .execute([sent_before])?)
}

/// Puts dead mail back in the queue, due at `now` with its attempts
/// counted afresh: one row by id (dead, or pending and waiting out a
/// back-off), or every dead row (`adjutant outbox retry`). Returns how many
/// rows were put back; a sent row, or one another deliverer holds, is
/// left alone.
pub fn outbox_retry(conn: &Connection, id: Option<i64>, now: &str) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ?2, created_at = ?2,
                    claimed_by = NULL, claim_until = NULL
             WHERE (status = 'dead' AND (?1 IS NULL OR id = ?1))
                OR (status = 'pending' AND id = ?1 AND (claim_until IS NULL OR claim_until <= ?2))",
        )?
        .execute(params![id, now])?)
}

pub fn outbox_failed(
    conn: &Connection,
    id: i64,
    error: &str,
    next_attempt_at: Option<&str>,
) -> Result<(), StoreError> {
    match next_attempt_at {
        Some(next) => conn.prepare_cached("UPDATE outbox SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3, claimed_by = NULL, claim_until = NULL WHERE id = ?1 AND status = 'pending'")?.execute(params![id, error, next])?,
        None => conn.prepare_cached("UPDATE outbox SET attempts = attempts + 1, last_error = ?2, status = 'dead', claimed_by = NULL, claim_until = NULL WHERE id = ?1 AND status = 'pending'")?.execute(params![id, error])?,
    };
    Ok(())
}

/// How many of our error answers had this Message-ID (a mail replying to
/// one is a loop).
pub fn errors_with_message_id(conn: &Connection, message_id: &str) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM outbox WHERE message_id = ?1 AND kind = 'error'")?
        .query_row([message_id], |r| r.get(0))?)
}

/// The Message-ID (without brackets) of the first welcome mail `to` got
/// for `game`, if the outbox still has it: the root of that recipient's
/// thread of the game, which its turn reports answer (issue 53).
pub fn welcome_message_id(
    conn: &Connection,
    game: i64,
    to: &str,
) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT message_id FROM outbox WHERE recipient = ?1 AND kind = 'welcome' \
             AND game_id = ?2 ORDER BY id LIMIT 1",
        )?
        .query_row(params![to, game], |r| r.get(0))
        .optional()?)
}

/// The kinds of mail counted against a recipient's answer caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKinds {
    /// Error answers alone.
    Errors,
    /// Limit notices alone (an address told it is over its cap).
    Limits,
    /// Every answer: replies, errors, notices and limit notices.
    All,
}

/// How many answers of `kinds` went to `to` since `since`.
pub fn answers_to_since(
    conn: &Connection,
    to: &str,
    since: &str,
    kinds: AnswerKinds,
) -> Result<i64, StoreError> {
    let sql = match kinds {
        AnswerKinds::Errors => {
            "SELECT count(*) FROM outbox WHERE recipient = ?1 AND kind IN ('error') AND created_at >= ?2"
        }
        AnswerKinds::Limits => {
            "SELECT count(*) FROM outbox WHERE recipient = ?1 AND kind IN ('limit') AND created_at >= ?2"
        }
        AnswerKinds::All => {
            "SELECT count(*) FROM outbox WHERE recipient = ?1 AND kind IN ('reply','error','notice','limit') AND created_at >= ?2"
        }
    };
    Ok(conn
        .prepare_cached(sql)?
        .query_row(params![to, since], |r| r.get(0))?)
}

/// Everyone's answers since a time, from the tally kept by the minute (an
/// answer in the window's first minute counts whole).
pub fn answers_since(conn: &Connection, since: &str) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT coalesce(sum(n), 0) FROM answer_tally WHERE minute >= substr(?1, 1, 16)",
        )?
        .query_row([since], |r| r.get(0))?)
}

/// How many notices a game sent since a time.
pub fn notices_since(conn: &Connection, game: i64, since: &str) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT count(*) FROM outbox WHERE kind = 'notice' AND game_id = ?1 AND created_at >= ?2",
        )?
        .query_row(params![game, since], |r| r.get(0))?)
}

/// The pending rows' next attempts, the earliest first (at most 64).
pub fn next_attempts(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT next_attempt_at FROM outbox WHERE status = 'pending'
         ORDER BY next_attempt_at LIMIT 64",
    )?;
    let rows = st.query_map([], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What a host should hear of (`adjutant doctor` and the CLI's warnings):
/// a count and the last reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trouble {
    pub count: i64,
    pub last: Option<String>,
}

fn trouble(conn: &Connection, sql: &str) -> Result<Trouble, StoreError> {
    Ok(conn.query_row(sql, [], |r| {
        Ok(Trouble {
            count: r.get(0)?,
            last: r.get(1)?,
        })
    })?)
}

/// The dead mails, and the last one's error.
pub fn dead_trouble(conn: &Connection) -> Result<Trouble, StoreError> {
    trouble(
        conn,
        "SELECT count(*), (SELECT last_error FROM outbox WHERE status = 'dead' ORDER BY id DESC LIMIT 1)
         FROM outbox WHERE status = 'dead'",
    )
}

/// The pending mails, and the last error of one that failed a delivery.
pub fn retry_trouble(conn: &Connection) -> Result<Trouble, StoreError> {
    trouble(
        conn,
        "SELECT count(*), (SELECT last_error FROM outbox WHERE status = 'pending' AND attempts > 0 ORDER BY id DESC LIMIT 1)
         FROM outbox WHERE status = 'pending'",
    )
}

/// The inbound mails set aside for good, and the last one's detail.
pub fn set_aside_trouble(conn: &Connection) -> Result<Trouble, StoreError> {
    trouble(
        conn,
        "SELECT count(*), (SELECT detail FROM inbox WHERE outcome IN ('failed: set aside', 'failed: internal error') ORDER BY id DESC LIMIT 1)
         FROM inbox WHERE outcome IN ('failed: set aside', 'failed: internal error')",
    )
}
