//! The games row's columns the service sets as a game goes: its texts and
//! settings at creation, its turn and status as turns are made, its
//! deadline, pause and hold for a referee's review.

use rusqlite::{params, Connection};

use super::StoreError;

/// The rules texts of a new game: its scenario's text, a ruleset file's
/// text if one was given, and its rule options (JSON).
pub fn set_texts(
    conn: &Connection,
    id: i64,
    scenario_text: Option<&str>,
    ruleset_text: Option<&str>,
    options: &str,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE games SET scenario_text = ?2, ruleset_text = ?3, options = ?4 WHERE id = ?1",
    )?
    .execute(params![id, scenario_text, ruleset_text, options])?;
    Ok(())
}

/// A new game's settings beside its rules.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    pub nmr_policy: &'a str,
    pub grace_secs: i64,
    pub referee: Option<&'a str>,
    pub referee_tz: &'a str,
    pub referee_after: i64,
    pub review_secs: Option<i64>,
}

/// Sets a new game's [`Settings`].
pub fn set_settings(conn: &Connection, id: i64, s: &Settings<'_>) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE games SET nmr_policy = ?2, grace_secs = ?3, referee = ?4, referee_tz = ?5, referee_after = ?6, review_secs = ?7 WHERE id = ?1")?.execute(params![
        id,
        s.nmr_policy,
        s.grace_secs,
        s.referee,
        s.referee_tz,
        s.referee_after,
        s.review_secs
    ])?;
    Ok(())
}

/// Sets (or, `None`, clears) the game's deadline.
pub fn set_deadline(conn: &Connection, id: i64, at: Option<&str>) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE games SET deadline_at = ?2 WHERE id = ?1")?
        .execute(params![id, at])?;
    Ok(())
}

/// A turn made: the game's new turn, status, result and deadline; a paused
/// game keeps the new deadline as its base too (issue 51 item 3).
pub fn advance(
    conn: &Connection,
    id: i64,
    turn: u32,
    status: &str,
    result: Option<&str>,
    deadline_at: Option<&str>,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE games SET turn = ?2, status = ?3, result = ?4, deadline_at = ?5,
             paused_deadline = CASE WHEN paused = 1 THEN ?5 ELSE paused_deadline END
         WHERE id = ?1",
    )?
    .execute(params![id, turn, status, result, deadline_at])?;
    Ok(())
}

/// Sets the game's turn alone (a referee's amendment).
pub fn set_turn(conn: &Connection, id: i64, turn: u32) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE games SET turn = ?2 WHERE id = ?1")?
        .execute(params![id, turn])?;
    Ok(())
}

/// Ends the game with `result` (a winner's side, "" a draw): no deadline.
pub fn end(conn: &Connection, id: i64, result: &str) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE games SET status = 'over', result = ?2, deadline_at = NULL WHERE id = ?1",
    )?
    .execute(params![id, result])?;
    Ok(())
}

/// Holds the game's reports from turn `from` for the referee's review.
pub fn hold(conn: &Connection, id: i64, from: u32, since: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE games SET held_from = ?2, held_since = ?3 WHERE id = ?1")?
        .execute(params![id, from, since])?;
    Ok(())
}

/// Releases a held game with its new deadline (a paused game keeps it as
/// its base).
pub fn release(conn: &Connection, id: i64, deadline_at: Option<&str>) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE games SET held_from = NULL, held_since = NULL, deadline_at = ?2,
             paused_deadline = CASE WHEN paused = 1 THEN ?2 ELSE paused_deadline END
         WHERE id = ?1",
    )?
    .execute(params![id, deadline_at])?;
    Ok(())
}

/// Pauses the game's clock, keeping its deadline as the base of resuming.
pub fn pause(conn: &Connection, id: i64) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE games SET paused = 1, paused_deadline = deadline_at WHERE id = ?1",
    )?
    .execute([id])?;
    Ok(())
}

/// The deadline the game had when it was paused.
pub fn paused_deadline(conn: &Connection, id: i64) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT paused_deadline FROM games WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?)
}

/// Resumes the game's clock with its new deadline.
pub fn resume(conn: &Connection, id: i64, deadline_at: Option<&str>) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE games SET paused = 0, paused_deadline = NULL, deadline_at = ?2 WHERE id = ?1",
    )?
    .execute(params![id, deadline_at])?;
    Ok(())
}

/// Adds an observer to the game (lower case; twice is once).
pub fn add_observer(conn: &Connection, id: i64, email: &str) -> Result<(), StoreError> {
    conn.prepare_cached("INSERT OR IGNORE INTO observers (game_id, email) VALUES (?1, ?2)")?
        .execute(params![id, email])?;
    Ok(())
}
