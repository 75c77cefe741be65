//! Campaign rows: campaigns, their battles, and their players' records.

use super::StoreError;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Campaign {
    pub id: i64,
    pub name: String,
    /// JSON of the options every battle is created with.
    pub options: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Battle {
    pub seq: u32,
    pub scenario: String,
    pub game_id: Option<i64>,
    /// JSON, once the battle is over: winner, points, who played each side.
    pub outcome: Option<String>,
}

pub fn set_outcome(
    tx: &Transaction<'_>,
    id: i64,
    seq: u32,
    outcome: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE campaign_battles SET outcome = ?3 WHERE campaign_id = ?1 AND seq = ?2",
    )?
    .execute(params![id, seq, outcome])?;
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    pub side: String,
    pub email: String,
    pub since: String,
    pub until: Option<String>,
}

pub fn insert(
    tx: &Transaction<'_>,
    name: &str,
    options: &str,
    now: &str,
) -> Result<i64, StoreError> {
    tx.prepare_cached("INSERT INTO campaigns (name, options, created_at) VALUES (?1, ?2, ?3)")?
        .execute(params![name, options, now])?;
    Ok(tx.last_insert_rowid())
}

pub fn insert_battle(
    tx: &Transaction<'_>,
    id: i64,
    seq: u32,
    scenario: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO campaign_battles (campaign_id, seq, scenario) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![id, seq, scenario])?;
    Ok(())
}

pub fn set_battle_game(
    tx: &Transaction<'_>,
    id: i64,
    seq: u32,
    game: i64,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE campaign_battles SET game_id = ?3 WHERE campaign_id = ?1 AND seq = ?2",
    )?
    .execute(params![id, seq, game])?;
    Ok(())
}

pub fn insert_player(
    tx: &Transaction<'_>,
    id: i64,
    side: &str,
    email: &str,
    now: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO campaign_players (campaign_id, side, email, since) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![id, side, email, now])?;
    Ok(())
}

/// End the current record of the player of a side at `email` (he was
/// replaced; a team's other members keep theirs).
pub fn close_player(
    tx: &Transaction<'_>,
    id: i64,
    side: &str,
    email: &str,
    now: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE campaign_players SET until = ?3
         WHERE campaign_id = ?1 AND side = ?2 AND lower(email) = lower(?4) AND until IS NULL",
    )?
    .execute(params![id, side, now, email])?;
    Ok(())
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Campaign> {
    Ok(Campaign {
        id: r.get(0)?,
        name: r.get(1)?,
        options: r.get(2)?,
        created_at: r.get(3)?,
    })
}

pub fn all(conn: &Connection) -> Result<Vec<Campaign>, StoreError> {
    let mut st =
        conn.prepare_cached("SELECT id, name, options, created_at FROM campaigns ORDER BY id")?;
    let rows = st.query_map([], row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn by_name(conn: &Connection, name: &str) -> Result<Option<Campaign>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT id, name, options, created_at FROM campaigns WHERE name = ?1")?
        .query_row([name], row)
        .optional()?)
}

/// The campaign and battle number a game belongs to, if any.
pub fn of_game(conn: &Connection, game: i64) -> Result<Option<(Campaign, u32)>, StoreError> {
    let found: Option<(i64, u32)> = conn
        .prepare_cached("SELECT campaign_id, seq FROM campaign_battles WHERE game_id = ?1")?
        .query_row([game], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((id, seq)) = found else {
        return Ok(None);
    };
    let c = conn
        .prepare_cached("SELECT id, name, options, created_at FROM campaigns WHERE id = ?1")?
        .query_row([id], row)
        .optional()?;
    Ok(c.map(|c| (c, seq)))
}

pub fn battles(conn: &Connection, id: i64) -> Result<Vec<Battle>, StoreError> {
    let mut st = conn.prepare_cached("SELECT seq, scenario, game_id, outcome FROM campaign_battles WHERE campaign_id = ?1 ORDER BY seq")?;
    let rows = st.query_map([id], |r| {
        Ok(Battle {
            seq: r.get(0)?,
            scenario: r.get(1)?,
            game_id: r.get(2)?,
            outcome: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn players(conn: &Connection, id: i64) -> Result<Vec<Player>, StoreError> {
    let mut st = conn.prepare_cached("SELECT side, email, since, until FROM campaign_players WHERE campaign_id = ?1 ORDER BY rowid")?;
    let rows = st.query_map([id], |r| {
        Ok(Player {
            side: r.get(0)?,
            email: r.get(1)?,
            since: r.get(2)?,
            until: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Why a campaign is stopped (its next battle could not be created), or
/// None while it runs.
pub fn stopped(conn: &Connection, id: i64) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT stopped FROM campaigns WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?
        .flatten())
}

/// Mark a campaign stopped with a reason, or running again (None).
pub fn set_stopped(tx: &Transaction<'_>, id: i64, reason: Option<&str>) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE campaigns SET stopped = ?2 WHERE id = ?1")?
        .execute(params![id, reason])?;
    Ok(())
}

/// Who held each side when battle `seq` began (JSON), if recorded.
pub fn starters(conn: &Connection, id: i64, seq: u32) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT starters FROM campaign_battles WHERE campaign_id = ?1 AND seq = ?2",
        )?
        .query_row(params![id, seq], |r| r.get(0))
        .optional()?
        .flatten())
}

pub fn set_starters(
    tx: &Transaction<'_>,
    id: i64,
    seq: u32,
    starters: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE campaign_battles SET starters = ?3 WHERE campaign_id = ?1 AND seq = ?2",
    )?
    .execute(params![id, seq, starters])?;
    Ok(())
}
