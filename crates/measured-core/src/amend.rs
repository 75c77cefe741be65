//! A referee's corrections (`AMEND`) for a measured game: the umpire of
//! the Seven Years' War set ("Off table movement via umpire") rules and
//! amends, and every correction is a turn of its own with an audit event
//! (`amended`, the lines as applied), replayed by `verify`. Each line
//! changes one thing; every line is checked before any applies. The
//! language (docs/referee.md, "Measured tables"):
//!
//! ```text
//! UNIT <id> FIGURES <n>              its figures (rank and file), 1 up to its start
//! UNIT <id> REMOVE                   take it out of the game
//! UNIT <id> TO <x> <y> [FACING <d>]  put it elsewhere (inches from the bottom-left corner)
//! UNIT <id> MARKER RED|ORANGE|NONE   its reform / disorder marker (Seven Years' War)
//! UNIT <id> OFF                      take it off the table (off-table movement)
//! UNIT <id> ENTER [AT <x> <y> [FACING <d>]]  bring an off-table unit on now
//! REMOVED <side> <n>                 the figures a side has removed from the enemy
//! ```

use crate::book::Book;

use crate::geometry::{fmt_len, parse_len, Pt};
use crate::ruleset::Ruleset;
use crate::state::{ground_taken, State};
use adjutant_rules::Rejection;

const HELP: &str = "a correction is UNIT <id> FIGURES <n> | REMOVE | TO <x> <y> [FACING <deg>] | MARKER RED|ORANGE|NONE | OFF | ENTER [AT <x> <y> [FACING <deg>]], or REMOVED <side> <n>";

/// Apply a referee's corrections to a measured game.
pub fn amend<B: Book>(
    r: &Ruleset<B>,
    s: &State<B>,
    text: &str,
) -> Result<(State<B>, Vec<B::Event>), Rejection> {
    let mut st = s.clone();
    let mut done = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let n = i + 1;
        if line.len() > 200 {
            return Err(Rejection::at(
                n,
                "",
                "a correction line is at most 200 characters",
            ));
        }
        let w: Vec<String> = line
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        let words: Vec<&str> = w.iter().map(String::as_str).collect();
        let bad = |m: String| Rejection::at(n, line, m);
        let place = |xs: &[&str]| parse_place(xs, n, line);
        match words.as_slice() {
            ["UNIT", id, rest @ ..] => {
                let on = st.units.iter().position(|u| u.id.eq_ignore_ascii_case(id));
                let off = r
                    .book()
                    .off_table(&st)
                    .iter()
                    .position(|u| u.id.eq_ignore_ascii_case(id));
                match (rest, on, off) {
                    (_, None, None) => return Err(bad(format!("no unit {id}"))),
                    (["ENTER", more @ ..], _, Some(k)) => {
                        let mut u = r.book().off_table(&st)[k].clone();
                        match more {
                            [] => {}
                            ["AT", xs @ ..] => {
                                let (p, f) = place(xs)?;
                                u.front = p;
                                if let Some(f) = f {
                                    u.facing = f;
                                }
                            }
                            _ => {
                                return Err(bad(
                                    "UNIT <id> ENTER [AT <x> <y> [FACING <deg>]]".into()
                                ))
                            }
                        }
                        if let Some(why) = ground_taken(r, &st, &u) {
                            return Err(bad(format!("{id} cannot come on there: {why}")));
                        }
                        r.book().bring_on(&mut st, k);
                        st.units.push(u);
                    }
                    (["ENTER", ..], Some(_), _) => {
                        return Err(bad(format!("{id} is on the table already")))
                    }
                    (_, None, Some(_)) => {
                        return Err(bad(format!(
                            "{id} is off the table: UNIT {id} ENTER brings it on"
                        )))
                    }
                    (rest, Some(k), _) => match rest {
                        ["FIGURES", v] => {
                            let start = st.units[k].start_rf;
                            let v: u32 = v
                                .parse()
                                .ok()
                                .filter(|v| (1..=start).contains(v))
                                .ok_or_else(|| {
                                    bad(format!("{id} can have 1 to {start} figures; UNIT {id} REMOVE takes it off"))
                                })?;
                            st.units[k].rf = v;
                        }
                        ["REMOVE"] => {
                            let u = st.units.remove(k);
                            out_of_melee(&mut st, &u.id);
                        }
                        ["TO", xs @ ..] => {
                            let (p, f) = place(xs)?;
                            let mut u = st.units[k].clone();
                            u.front = p;
                            if let Some(f) = f {
                                u.facing = f;
                            }
                            if let Some(why) = ground_taken(r, &st, &u) {
                                return Err(bad(format!(
                                    "{id} cannot stand at ({}, {}): {why}",
                                    fmt_len(p.x),
                                    fmt_len(p.y)
                                )));
                            }
                            st.units[k] = u;
                        }
                        rest => match r.book().amend_unit(&mut st, k, rest) {
                            Some(done) => done.map_err(bad)?,
                            None => return Err(bad(HELP.into())),
                        },
                    },
                }
            }
            ["REMOVED", side, v] => {
                let si = st
                    .side_index(side)
                    .ok_or_else(|| bad(format!("no side '{}'", side.to_ascii_lowercase())))?;
                let v: u32 = v
                    .parse()
                    .map_err(|_| bad("REMOVED takes a side and a number of figures".into()))?;
                if let Some(m) = st.removed.get_mut(si) {
                    *m = v;
                }
            }
            _ => return Err(bad(HELP.into())),
        }
        done.push(line.to_string());
    }
    if done.is_empty() {
        return Err(Rejection::whole("the correction is empty"));
    }
    let text = format!("The referee corrects the position: {}", done.join("; "));
    Ok((st, vec![B::amended(text, done)]))
}

/// A place on the table: `<x> <y>` in inches, optionally `FACING <deg>`.
fn parse_place(xs: &[&str], n: usize, line: &str) -> Result<(Pt, Option<i32>), Rejection> {
    let bad = |m: String| Rejection::at(n, line, m);
    let (xy, facing) = match xs {
        [x, y] => ((*x, *y), None),
        [x, y, "FACING", d] => ((*x, *y), Some(*d)),
        _ => {
            return Err(bad(
                "a place is <x> <y> in inches, optionally FACING <degrees>".into(),
            ))
        }
    };
    let coord = |v: &str| {
        parse_len(v).filter(|d| *d >= 0).ok_or_else(|| {
            bad(format!(
                "'{v}' is not a distance in inches (whole or in sixteenths)"
            ))
        })
    };
    let p = Pt::new(coord(xy.0)?, coord(xy.1)?);
    let f = match facing {
        None => None,
        Some(d) => Some(
            d.parse::<i32>()
                .ok()
                .filter(|d| (0..360).contains(d))
                .ok_or_else(|| bad(format!("'{d}' is not a facing: 0 to 359 degrees")))?,
        ),
    };
    Ok((p, f))
}

/// No unit stays in melee with one that left the table.
pub fn out_of_melee<B: Book>(st: &mut State<B>, id: &str) {
    for o in &mut st.units {
        if o.melee.as_ref().is_some_and(|m| m.with == id) {
            o.melee = None;
        }
    }
}
