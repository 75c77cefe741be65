//! A club's standings across every finished game of the judge (issue 33,
//! docs/standings.md): each player's games, wins, draws and losses by
//! ruleset, a Glicko-2 rating, and a reliability record.
//!
//! Only finished games count, and everything is read from what a finished
//! game keeps (its result, its seats and team members, its submissions and
//! missed-deadline marks): a running game's moves change nothing here, and
//! nothing here tells anything of a running game. A player is an address;
//! in a team game every member of a side counts the side's result and
//! record. A player who asked to be left out (`PRIVATE`, or the host's
//! `[standings] leave_out`) is not listed; their games still count for
//! their opponents.
//!
//! The rating is Glicko-2 (Glickman), computed with the `skillratings`
//! crate: each finished game, in the order the games ended (then by game
//! number), is one rating period for each of its players, against one
//! opponent standing for the other side: the average rating, deviation and
//! volatility of its players (one player in a two-player game).

use super::{Judge, ServiceError};
use crate::store::Connection;
use serde::Serialize;
use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The kv key marking an address left out of the standings (PRIVATE).
fn private_key(email: &str) -> String {
    format!("standings-private:{}", email.to_ascii_lowercase())
}

/// The kv key recording that `email` left its seat (`side`) of `game`
/// (`adjutant replace-seat` handed it to another player).
#[must_use]
pub fn left_key(game: i64, side: &str, email: &str) -> String {
    format!("seat-left:{game}:{side}:{}", email.to_ascii_lowercase())
}

/// The kv key holding when `game` ended (by its rules, a resignation or
/// an agreed draw): the order of the rating periods.
#[must_use]
pub fn ended_key(game: i64) -> String {
    format!("game-ended:{game}")
}

/// The games each address left before their end, among finished games.
fn games_left(conn: &Connection) -> Result<BTreeMap<String, u64>, ServiceError> {
    let keys = crate::store::standings::seat_left_keys(conn)?;
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for key in keys {
        let mut parts = key.splitn(4, ':').skip(1);
        let (Some(game), Some(_side), Some(email)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(game) = game.parse::<i64>() else {
            continue;
        };
        if crate::store::game(conn, game)?.is_some_and(|g| g.status == "over") {
            *out.entry(email.to_string()).or_default() += 1;
        }
    }
    Ok(out)
}

/// Games, wins, draws and losses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub games: u64,
    pub won: u64,
    pub drawn: u64,
    pub lost: u64,
}

impl Tally {
    fn add(&mut self, outcome: Outcomes) {
        self.games += 1;
        match outcome {
            Outcomes::WIN => self.won += 1,
            Outcomes::DRAW => self.drawn += 1,
            Outcomes::LOSS => self.lost += 1,
        }
    }
}

/// How a player kept to the games' clocks, over finished games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Reliability {
    /// Orders the player's side sent (not those the judge entered for a
    /// missed deadline).
    pub orders: u64,
    /// Of those, the ones sent before the turn's deadline passed.
    pub on_time: u64,
    /// Deadlines the player's side missed.
    pub missed_deadlines: u64,
    /// Games the player's side resigned.
    pub resigned: u64,
    /// Games the player left before their end (the host handed the seat to
    /// another player); they count in no result.
    pub abandoned: u64,
}

/// One player's line of the standings.
#[derive(Debug, Clone, Serialize)]
pub struct Player {
    pub player: String,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub total: Tally,
    pub by_ruleset: BTreeMap<String, Tally>,
    pub reliability: Reliability,
}

impl Player {
    /// `address` with its rating after every finished game, and nothing
    /// counted yet.
    fn rated(address: &str, ratings: &BTreeMap<String, Glicko2Rating>) -> Player {
        let r = ratings.get(address).copied().unwrap_or_default();
        Player {
            player: address.to_string(),
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
            total: Tally::default(),
            by_ruleset: BTreeMap::new(),
            reliability: Reliability::default(),
        }
    }
}

/// The whole table.
#[derive(Debug, Clone, Serialize)]
pub struct Standings {
    /// Finished games counted.
    pub games: u64,
    /// Listed players, the highest rating first (then by address).
    pub players: Vec<Player>,
    /// Players who asked to be left out (not listed).
    pub left_out: u64,
}

/// One finished game as the standings read it.
struct Finished {
    id: i64,
    ruleset: String,
    /// Winner side id, "" for a draw.
    result: String,
    /// Sides in seat order, with their players' addresses.
    sides: Vec<(String, Vec<String>)>,
    /// The side that resigned, if it ended so.
    resigned: Option<String>,
}

fn finished_games(conn: &Connection) -> Result<Vec<Finished>, ServiceError> {
    let mut out = Vec::new();
    for row in crate::store::standings::finished_games(conn)? {
        let crate::store::standings::FinishedRow {
            id,
            ruleset,
            result,
            ending,
        } = row;
        let resigned = ending
            .and_then(|e| serde_json::from_str::<super::export::Ending>(&e).ok())
            .filter(|e| e.kind == super::export::RESIGNED)
            .map(|e| e.side);
        out.push(Finished {
            id,
            ruleset,
            result,
            sides: sides_of(conn, id)?,
            resigned,
        });
    }
    Ok(out)
}

/// A game's sides and their players: the seat's address and, in a team
/// game, the other members' (lower case).
fn sides_of(conn: &Connection, game: i64) -> Result<Vec<(String, Vec<String>)>, ServiceError> {
    let mut out = Vec::new();
    for seat in crate::store::seats(conn, game)? {
        let mut members = crate::store::standings::member_emails(conn, game, &seat.side)?;
        members.push(seat.email.clone());
        let mut members: Vec<String> = members.iter().map(|m| m.to_ascii_lowercase()).collect();
        members.sort();
        members.dedup();
        out.push((seat.side, members));
    }
    Ok(out)
}

/// Orders sent and on time, and deadlines missed, per (game, side), over
/// finished games.
fn clock_records(conn: &Connection) -> Result<BTreeMap<(i64, String), Reliability>, ServiceError> {
    let mut out: BTreeMap<(i64, String), Reliability> = BTreeMap::new();
    for (game, side, late) in crate::store::standings::orders_sent(conn)? {
        let rec = out.entry((game, side)).or_default();
        rec.orders += 1;
        rec.on_time += u64::from(!late);
    }
    for (game, side, n) in crate::store::standings::deadlines_missed(conn)? {
        out.entry((game, side)).or_default().missed_deadlines += u64::try_from(n).unwrap_or(0);
    }
    Ok(out)
}

/// The opponent standing for `players`: their average rating, deviation
/// and volatility.
fn composite(ratings: &BTreeMap<String, Glicko2Rating>, players: &[String]) -> Glicko2Rating {
    let of = |p: &String| ratings.get(p).copied().unwrap_or_default();
    let n = players.len().max(1) as f64;
    Glicko2Rating {
        rating: players.iter().map(|p| of(p).rating).sum::<f64>() / n,
        deviation: players.iter().map(|p| of(p).deviation).sum::<f64>() / n,
        volatility: players.iter().map(|p| of(p).volatility).sum::<f64>() / n,
    }
}

/// The ratings after every finished game, in order: each game is a rating
/// period for its players, computed from the ratings before it.
fn ratings(games: &[Finished]) -> BTreeMap<String, Glicko2Rating> {
    let config = Glicko2Config::new();
    let mut ratings: BTreeMap<String, Glicko2Rating> = BTreeMap::new();
    for g in games {
        let mut after = Vec::new();
        for (side, players) in &g.sides {
            let others: Vec<String> = g
                .sides
                .iter()
                .filter(|(s, _)| s != side)
                .flat_map(|(_, p)| p.iter().cloned())
                .collect();
            if others.is_empty() {
                continue;
            }
            let opponent = composite(&ratings, &others);
            let outcome = outcome(&g.result, side);
            for p in players {
                let before = ratings.get(p).copied().unwrap_or_default();
                after.push((
                    p.clone(),
                    glicko2_rating_period(&before, &[(opponent, outcome)], &config),
                ));
            }
        }
        ratings.extend(after);
    }
    ratings
}

fn outcome(result: &str, side: &str) -> Outcomes {
    if result.is_empty() {
        Outcomes::DRAW
    } else if result.eq_ignore_ascii_case(side) {
        Outcomes::WIN
    } else {
        Outcomes::LOSS
    }
}

/// The standings use case (docs/architecture.md, "The service and the
/// binary by use-case"): the judge's database and the host's leave-out
/// list, nothing more. [`Judge::standings`] hands it out.
pub struct Club<'a> {
    conn: &'a Connection,
    leave_out: &'a [String],
}

impl Judge {
    /// The standings use case, on this judge's database and config.
    #[must_use]
    pub fn standings(&self) -> Club<'_> {
        Club {
            conn: &self.conn,
            leave_out: &self.cfg.standings.leave_out,
        }
    }
}

impl Club<'_> {
    /// The standings over every finished game (docs/standings.md).
    pub fn table(&self) -> Result<Standings, ServiceError> {
        let conn = self.conn;
        let games = finished_games(conn)?;
        let clocks = clock_records(conn)?;
        let ratings = ratings(&games);
        let mut players: BTreeMap<String, Player> = BTreeMap::new();
        for g in &games {
            for (side, members) in &g.sides {
                let rec = clocks
                    .get(&(g.id, side.clone()))
                    .copied()
                    .unwrap_or_default();
                let outcome = outcome(&g.result, side);
                for p in members {
                    let e = players
                        .entry(p.clone())
                        .or_insert_with(|| Player::rated(p, &ratings));
                    e.total.add(outcome);
                    e.by_ruleset
                        .entry(g.ruleset.clone())
                        .or_default()
                        .add(outcome);
                    e.reliability.orders += rec.orders;
                    e.reliability.on_time += rec.on_time;
                    e.reliability.missed_deadlines += rec.missed_deadlines;
                    e.reliability.resigned += u64::from(g.resigned.as_deref() == Some(side));
                }
            }
        }
        for (address, n) in games_left(conn)? {
            let e = players
                .entry(address.clone())
                .or_insert_with(|| Player::rated(&address, &ratings));
            e.reliability.abandoned += n;
        }
        let mut listed = Vec::new();
        let mut left_out = 0;
        for (address, p) in players {
            if self.left_out(&address)? {
                left_out += 1;
            } else {
                listed.push(p);
            }
        }
        listed.sort_by(|a, b| {
            b.rating
                .total_cmp(&a.rating)
                .then_with(|| a.player.cmp(&b.player))
        });
        Ok(Standings {
            games: games.len() as u64,
            players: listed,
            left_out,
        })
    }

    /// Whether `address` asked to be left out (PRIVATE) or the host left
    /// it out (`[standings] leave_out`).
    fn left_out(&self, address: &str) -> Result<bool, ServiceError> {
        let host = self
            .leave_out
            .iter()
            .any(|a| a.eq_ignore_ascii_case(address));
        Ok(host || crate::store::kv_get(self.conn, &private_key(address))?.is_some())
    }

    /// PRIVATE (`on`) or PRIVATE OFF: leave `email` out of the standings,
    /// or list it again, in the mail's transaction `conn`.
    pub(super) fn set_private(
        &self,
        conn: &Connection,
        email: &str,
        on: bool,
    ) -> Result<(), ServiceError> {
        if on {
            crate::store::kv_set(conn, &private_key(email), "1")?;
        } else {
            crate::store::kv_delete(conn, &private_key(email))?;
        }
        Ok(())
    }

    /// The standings as the STANDINGS answer and `adjutant standings` print
    /// them (80 columns).
    pub fn text(&self) -> Result<String, ServiceError> {
        Ok(standings_text(&self.table()?))
    }
}

/// A tally in words: "14 games: 9 won, 2 drawn, 3 lost".
fn tally_words(t: &Tally) -> String {
    let games = if t.games == 1 { "game" } else { "games" };
    format!(
        "{} {games}: {} won, {} drawn, {} lost",
        t.games, t.won, t.drawn, t.lost
    )
}

/// The text of the standings.
#[must_use]
pub fn standings_text(s: &Standings) -> String {
    let mut out = format!(
        "Standings over {} finished games (games still running are not counted).\n\
         Rating: Glicko-2, with +/- twice the deviation (95% sure).\n",
        s.games
    );
    if s.players.is_empty() {
        out.push_str("\nNo finished game yet.\n");
    }
    for (i, p) in s.players.iter().enumerate() {
        let _ = writeln!(
            out,
            "\n{:>2}. {}: {:.0} +/- {:.0}",
            i + 1,
            p.player,
            p.rating,
            2.0 * p.deviation
        );
        let _ = writeln!(out, "    {}", tally_words(&p.total));
        for (ruleset, t) in &p.by_ruleset {
            let _ = writeln!(out, "    {ruleset}: {}", tally_words(t));
        }
        let r = &p.reliability;
        let _ = writeln!(
            out,
            "    orders: {} sent, {} on time; deadlines missed: {}; resigned: {}",
            r.orders, r.on_time, r.missed_deadlines, r.resigned
        );
        if r.abandoned > 0 {
            let _ = writeln!(out, "    games left before the end: {}", r.abandoned);
        }
    }
    if s.left_out > 0 {
        let _ = writeln!(
            out,
            "\n{} players asked to be left out; their games count for their opponents.",
            s.left_out
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crate's own reference example (Glickman's paper, "Example of the
    /// Glicko-2 system"): a 1500 / 200 / 0.06 player who beats a 1400 / 30,
    /// loses to a 1550 / 100 and to a 1700 / 300 in one period becomes
    /// 1464.06 / 151.52 / 0.05999.
    #[test]
    fn glicko2_matches_the_reference_example() {
        let r = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = glicko2_rating_period(
            &r(1500.0, 200.0),
            &[
                (r(1400.0, 30.0), Outcomes::WIN),
                (r(1550.0, 100.0), Outcomes::LOSS),
                (r(1700.0, 300.0), Outcomes::LOSS),
            ],
            &Glicko2Config::new(),
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.0001, "{after:?}");
    }

    fn game(id: i64, result: &str, a: &[&str], b: &[&str]) -> Finished {
        let v = |x: &[&str]| x.iter().map(|s| (*s).to_string()).collect();
        Finished {
            id,
            // A registered family's ruleset: the ratings name no family.
            ruleset: (crate::rules::families()[0].scenarios)()
                .into_iter()
                .next()
                .map(|(_, ruleset)| ruleset)
                .expect("a shipped scenario"),
            result: result.into(),
            sides: vec![("allies".into(), v(a)), ("axis".into(), v(b))],
            resigned: None,
        }
    }

    /// One game between two new players is one period each against the
    /// other's 1500 / 350: the winner gains what the loser loses.
    #[test]
    fn a_win_between_new_players_moves_both_ratings_by_the_same_amount() {
        let r = ratings(&[game(1, "allies", &["a"], &["b"])]);
        let (a, b) = (r["a"], r["b"]);
        assert!(a.rating > 1500.0 && b.rating < 1500.0, "{a:?} {b:?}");
        assert!(((a.rating - 1500.0) - (1500.0 - b.rating)).abs() < 1e-9);
        let d = ratings(&[game(1, "", &["a"], &["b"])]);
        assert!(
            (d["a"].rating - 1500.0).abs() < 1e-9,
            "a draw leaves them level"
        );
    }

    /// A team's members each get the side's result against the opponent
    /// standing for the other side.
    #[test]
    fn every_member_of_a_team_counts_the_result() {
        let r = ratings(&[game(1, "axis", &["a"], &["b", "c"])]);
        assert!(r["b"].rating > 1500.0 && r["c"].rating > 1500.0);
        assert!((r["b"].rating - r["c"].rating).abs() < 1e-9);
        assert!(r["a"].rating < 1500.0);
    }
}
