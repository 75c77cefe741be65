//! Team rows (docs/teams.md): a side's members after its first seat, their
//! held parts of a turn's orders, and a game's messages.

use super::{credentials, Seat, StoreError};
use rusqlite::{params, Connection, OptionalExtension, Transaction};

/// A member of a team beyond its Commander-in-Chief (seat 0, the seats row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub game_id: i64,
    pub side: String,
    pub seat_no: i64,
    pub email: String,
    pub secret: String,
    pub token: String,
    pub tz: String,
}

impl Member {
    /// The member as a seat of the side (his own address, secret and
    /// token), for the code that answers a seat.
    #[must_use]
    pub fn seat(&self) -> Seat {
        Seat {
            game_id: self.game_id,
            side: self.side.clone(),
            email: self.email.clone(),
            secret: self.secret.clone(),
            token: self.token.clone(),
            tz: self.tz.clone(),
            misses: 0,
            absent_from: None,
            absent_until: None,
            picture: None,
        }
    }
}

fn member_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Member> {
    Ok(Member {
        game_id: r.get(0)?,
        side: r.get(1)?,
        seat_no: r.get(2)?,
        email: r.get(3)?,
        secret: r.get(4)?,
        token: r.get(5)?,
        tz: r.get(6)?,
    })
}

/// A member's columns, his credentials derived from the judge's key and his
/// nonces as a seat's are (store::credentials); the `secret` and `token`
/// columns hold only keyed hashes.
const MEMBER_COLS: &str = "game_id, side, seat_no, email, \
     adj_word('member-secret', game_id, side || '#' || seat_no, secret_nonce), \
     adj_word('member-token', game_id, side || '#' || seat_no, nonce), tz";

/// Records a member with fresh credentials (`m.secret` and `m.token` are
/// ignored) and returns him as stored, with them.
pub fn insert_member(tx: &Transaction<'_>, m: &Member) -> Result<Member, StoreError> {
    let (n, sn) = (credentials::nonce()?, credentials::nonce()?);
    tx.prepare_cached("INSERT INTO team_members (game_id, side, seat_no, email, tz, nonce, secret_nonce, secret, token)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,
                 adj_hash('secret', adj_word('member-secret', ?1, ?2 || '#' || ?3, ?7)),
                 adj_hash('token', adj_word('member-token', ?1, ?2 || '#' || ?3, ?6)))")?.execute(params![m.game_id, m.side, m.seat_no, m.email, m.tz, n, sn])?;
    member(tx, m.game_id, &m.side, m.seat_no)
}

/// One member.
pub fn member(
    conn: &Connection,
    game_id: i64,
    side: &str,
    seat_no: i64,
) -> Result<Member, StoreError> {
    conn.prepare_cached(&format!(
        "SELECT {MEMBER_COLS} FROM team_members WHERE game_id = ?1 AND side = ?2 AND seat_no = ?3"
    ))?
    .query_row(params![game_id, side, seat_no], member_row)
    .optional()?
    .ok_or_else(|| StoreError::Corrupt(format!("no member {seat_no} of {side} in game {game_id}")))
}

/// Gives a member a fresh secret (his reply token stays); returns him.
pub fn rekey_member(
    conn: &Connection,
    game_id: i64,
    side: &str,
    seat_no: i64,
) -> Result<Member, StoreError> {
    let sn = credentials::nonce()?;
    conn.prepare_cached("UPDATE team_members SET secret_nonce = ?4,
             secret = adj_hash('secret', adj_word('member-secret', game_id, side || '#' || seat_no, ?4))
         WHERE game_id = ?1 AND side = ?2 AND seat_no = ?3")?.execute(params![game_id, side, seat_no, sn])?;
    member(conn, game_id, side, seat_no)
}

/// Hands a member's seat to another address (the host's `replace-seat
/// --old`): fresh secret and reply token, so the old member's mails no
/// longer carry the seat; returns him.
pub fn replace_member(
    conn: &Connection,
    game_id: i64,
    side: &str,
    seat_no: i64,
    email: &str,
) -> Result<Member, StoreError> {
    let (n, sn) = (credentials::nonce()?, credentials::nonce()?);
    conn.prepare_cached("UPDATE team_members SET email = ?4, nonce = ?5, secret_nonce = ?6,
             secret = adj_hash('secret', adj_word('member-secret', game_id, side || '#' || seat_no, ?6)),
             token = adj_hash('token', adj_word('member-token', game_id, side || '#' || seat_no, ?5))
         WHERE game_id = ?1 AND side = ?2 AND seat_no = ?3")?.execute(params![game_id, side, seat_no, email, n, sn])?;
    member(conn, game_id, side, seat_no)
}

/// The members beyond the first seat of every side of a game, by side and seat.
pub fn members(conn: &Connection, game_id: i64) -> Result<Vec<Member>, StoreError> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT {MEMBER_COLS} FROM team_members WHERE game_id = ?1 ORDER BY side, seat_no"
    ))?;
    let rows = st.query_map([game_id], member_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn member_by_token(conn: &Connection, token: &str) -> Result<Option<Member>, StoreError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {MEMBER_COLS} FROM team_members WHERE token = adj_hash('token', ?1)"
        ))?
        .query_row([token.to_ascii_lowercase()], member_row)
        .optional()?)
}

/// The members (beyond seat 0) registered at an address.
pub fn members_of_email(conn: &Connection, email: &str) -> Result<Vec<Member>, StoreError> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT {MEMBER_COLS} FROM team_members WHERE lower(email) = lower(?1) ORDER BY game_id, side, seat_no"
    ))?;
    let rows = st.query_map([email], member_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One member's held part of the side's orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub seat_no: i64,
    pub orders: String,
    pub source: String,
    pub received_at: String,
}

/// Hold (or replace) a member's part. True if it replaced one.
pub fn put_part(
    tx: &Transaction<'_>,
    game_id: i64,
    side: &str,
    part: &Part,
) -> Result<bool, StoreError> {
    let n = tx
        .prepare_cached("DELETE FROM team_parts WHERE game_id = ?1 AND side = ?2 AND seat_no = ?3")?
        .execute(params![game_id, side, part.seat_no])?;
    tx.prepare_cached("INSERT INTO team_parts (game_id, side, seat_no, orders, source, received_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?.execute(params![game_id, side, part.seat_no, part.orders, part.source, part.received_at])?;
    Ok(n > 0)
}

/// A team member's own time zone (his TIMEZONE).
pub fn set_member_tz(
    tx: &Transaction<'_>,
    game_id: i64,
    side: &str,
    seat_no: i64,
    tz: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE team_members SET tz = ?4 WHERE game_id = ?1 AND side = ?2 AND seat_no = ?3",
    )?
    .execute(params![game_id, side, seat_no, tz])?;
    Ok(())
}

/// The held parts of a side, by seat.
pub fn parts(conn: &Connection, game_id: i64, side: &str) -> Result<Vec<Part>, StoreError> {
    let mut st = conn.prepare_cached("SELECT seat_no, orders, source, received_at FROM team_parts WHERE game_id = ?1 AND side = ?2 ORDER BY seat_no")?;
    let rows = st.query_map(params![game_id, side], |r| {
        Ok(Part {
            seat_no: r.get(0)?,
            orders: r.get(1)?,
            source: r.get(2)?,
            received_at: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Drop one member's part (`Some(seat)`) or every part of the game.
pub fn clear_parts(
    tx: &Transaction<'_>,
    game_id: i64,
    member: Option<(&str, i64)>,
) -> Result<bool, StoreError> {
    let n = match member {
        Some((side, seat_no)) => tx
            .prepare_cached(
                "DELETE FROM team_parts WHERE game_id = ?1 AND side = ?2 AND seat_no = ?3",
            )?
            .execute(params![game_id, side, seat_no])?,
        None => tx
            .prepare_cached("DELETE FROM team_parts WHERE game_id = ?1")?
            .execute([game_id])?,
    };
    Ok(n > 0)
}

/// One logged message of a game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Message {
    pub turn: i64,
    pub kind: String,
    pub side: String,
    pub seat_no: i64,
    pub email: String,
    pub text: String,
    pub sent_at: String,
}

pub fn insert_message(tx: &Transaction<'_>, game_id: i64, m: &Message) -> Result<(), StoreError> {
    tx.prepare_cached("INSERT INTO game_messages (game_id, turn, kind, side, seat_no, email, text, sent_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?.execute(params![game_id, m.turn, m.kind, m.side, m.seat_no, m.email, m.text, m.sent_at])?;
    Ok(())
}

/// A game's messages in the order they came.
pub fn messages(conn: &Connection, game_id: i64) -> Result<Vec<Message>, StoreError> {
    let mut st = conn.prepare_cached("SELECT turn, kind, side, seat_no, email, text, sent_at FROM game_messages WHERE game_id = ?1 ORDER BY id")?;
    let rows = st.query_map([game_id], |r| {
        Ok(Message {
            turn: r.get(0)?,
            kind: r.get(1)?,
            side: r.get(2)?,
            seat_no: r.get(3)?,
            email: r.get(4)?,
            text: r.get(5)?,
            sent_at: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
