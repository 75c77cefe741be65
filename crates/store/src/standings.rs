//! What the standings read (docs/standings.md): finished games, their sides'
//! players, orders on time and deadlines missed.

use rusqlite::{params, Connection};

use super::StoreError;

/// The kv keys of seats left before their game's end (`seat-left:...`).
pub fn seat_left_keys(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut st =
        conn.prepare("SELECT k.key FROM kv k WHERE k.key LIKE 'seat-left:%' ORDER BY k.key")?;
    let keys = st.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok(keys)
}

/// A finished game as the standings take it.
#[derive(Debug, Clone)]
pub struct FinishedRow {
    pub id: i64,
    pub ruleset: String,
    pub result: String,
    pub ending: Option<String>,
}

/// The finished games with a result, in the order they ended.
pub fn finished_games(conn: &Connection) -> Result<Vec<FinishedRow>, StoreError> {
    let mut st = conn.prepare(
        "SELECT g.id, g.ruleset, g.result, g.ending FROM games g
         WHERE g.status = 'over' AND g.result IS NOT NULL
         ORDER BY coalesce((SELECT value FROM kv WHERE key = 'game-ended:' || g.id),
                           (SELECT max(received_at) FROM submissions s WHERE s.game_id = g.id),
                           g.created_at), g.id",
    )?;
    let rows = st.query_map([], |r| {
        Ok(FinishedRow {
            id: r.get(0)?,
            ruleset: r.get(1)?,
            result: r.get(2)?,
            ending: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The addresses of a side's team members beyond its seat, in seat order.
pub fn member_emails(conn: &Connection, game: i64, side: &str) -> Result<Vec<String>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT email FROM team_members WHERE game_id = ?1 AND side = ?2 ORDER BY seat_no",
    )?;
    let rows = st.query_map(params![game, side], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Every orders submission (not a pass) of a finished game, as (game,
/// side, late): late when the side had missed the deadline before it.
pub fn orders_sent(conn: &Connection) -> Result<Vec<(i64, String, bool)>, StoreError> {
    let mut st = conn.prepare(
        "SELECT s.game_id, s.side,
                EXISTS (SELECT 1 FROM deadline_marks m WHERE m.game_id = s.game_id
                        AND m.side = s.side AND m.kind = 'miss' AND m.turn = s.turn - 1)
         FROM submissions s JOIN games g ON g.id = s.game_id
         WHERE g.status = 'over' AND s.source != 'nmr'",
    )?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Deadlines missed per (game, side) over finished games.
pub fn deadlines_missed(conn: &Connection) -> Result<Vec<(i64, String, i64)>, StoreError> {
    let mut st = conn.prepare(
        "SELECT m.game_id, m.side, count(*) FROM deadline_marks m JOIN games g ON g.id = m.game_id
         WHERE g.status = 'over' AND m.kind = 'miss' GROUP BY m.game_id, m.side",
    )?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
