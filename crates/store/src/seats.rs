//! The seats row's settings a player or host changes: address, time zone,
//! PICTURE, absences and the misses in a row.

use rusqlite::{params, Connection};

use super::StoreError;

/// Sets the seat's address.
pub fn set_email(conn: &Connection, game: i64, side: &str, email: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE seats SET email = ?3 WHERE game_id = ?1 AND side = ?2")?
        .execute(params![game, side, email])?;
    Ok(())
}

/// Gives the seat to a new address, its misses in a row forgotten.
pub fn replace(conn: &Connection, game: i64, side: &str, email: &str) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE seats SET email = ?3, misses = 0 WHERE game_id = ?1 AND side = ?2",
    )?
    .execute(params![game, side, email])?;
    Ok(())
}

/// Sets the seat's time zone (an IANA name the caller checked).
pub fn set_timezone(conn: &Connection, game: i64, side: &str, tz: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE seats SET tz = ?3 WHERE game_id = ?1 AND side = ?2")?
        .execute(params![game, side, tz])?;
    Ok(())
}

/// The seat's time zone as stored now.
pub fn timezone(conn: &Connection, game: i64, side: &str) -> Result<String, StoreError> {
    Ok(conn
        .prepare_cached("SELECT tz FROM seats WHERE game_id = ?1 AND side = ?2")?
        .query_row(params![game, side], |r| r.get(0))?)
}

/// Sets the seat's PICTURE choice (its word).
pub fn set_picture(conn: &Connection, game: i64, side: &str, word: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE seats SET picture = ?3 WHERE game_id = ?1 AND side = ?2")?
        .execute(params![game, side, word])?;
    Ok(())
}

/// The side moved: its misses in a row start again.
pub fn reset_misses(conn: &Connection, game: i64, side: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE seats SET misses = 0 WHERE game_id = ?1 AND side = ?2")?
        .execute(params![game, side])?;
    Ok(())
}

/// The side missed a deadline: one more miss in a row.
pub fn add_miss(conn: &Connection, game: i64, side: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE seats SET misses = misses + 1 WHERE game_id = ?1 AND side = ?2")?
        .execute(params![game, side])?;
    Ok(())
}

/// Sets the seat's absence (its first and last instants, stamps).
pub fn set_absence(
    conn: &Connection,
    game: i64,
    side: &str,
    from: &str,
    until: &str,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE seats SET absent_from = ?3, absent_until = ?4 WHERE game_id = ?1 AND side = ?2",
    )?
    .execute(params![game, side, from, until])?;
    Ok(())
}

/// The seat's absence as stored: (from, until).
pub fn absence(
    conn: &Connection,
    game: i64,
    side: &str,
) -> Result<(Option<String>, Option<String>), StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT absent_from, absent_until FROM seats WHERE game_id = ?1 AND side = ?2",
        )?
        .query_row(params![game, side], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// Forgets the seat's absence.
pub fn clear_absence(conn: &Connection, game: i64, side: &str) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE seats SET absent_from = NULL, absent_until = NULL WHERE game_id = ?1 AND side = ?2",
    )?
    .execute(params![game, side])?;
    Ok(())
}

/// Does this address have a seat, a referee desk, an observer place or a
/// team member's seat in any game here?
pub fn known_address(conn: &Connection, email: &str) -> Result<bool, StoreError> {
    let n: i64 = conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM seats WHERE lower(email) = lower(?1))
              + (SELECT count(*) FROM referees WHERE lower(email) = lower(?1))
              + (SELECT count(*) FROM observers WHERE lower(email) = lower(?1))
              + (SELECT count(*) FROM team_members WHERE lower(email) = lower(?1))",
        )?
        .query_row([email], |r| r.get(0))?;
    Ok(n > 0)
}
