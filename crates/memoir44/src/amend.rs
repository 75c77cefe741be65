//! A referee's corrections (`AMEND`), for review mode and for mistakes found
//! later: each line changes one thing, and the whole set is one audit event.
//! The language (docs/referee.md):
//!
//! ```text
//! UNIT <hex> FIGURES <n>        a unit's figures (1 up to its starting strength)
//! UNIT <hex> REMOVE             take a unit off the board (no medal: see MEDALS)
//! UNIT <hex> TO <hex>           move a unit to an empty hex
//! MEDALS <side> <n>             the medals a side has won by eliminating units
//!                               (objectives held count besides)
//! CARD <side> <card> FOR <card> swap a card in a side's hand with one in the deck
//! ```

use super::battle::Ctx;
use super::events::Event;
use super::state::State;
use super::Ruleset;
use adjutant_rules::Rejection;

/// Apply a referee's corrections; every line is checked before any applies.
pub fn amend(r: &Ruleset, s: &State, text: &str) -> Result<(State, Vec<Event>), Rejection> {
    let ctx = Ctx::new(r);
    let mut st = s.clone();
    let mut done = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let n = i + 1;
        let w: Vec<String> = line
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        let words: Vec<&str> = w.iter().map(String::as_str).collect();
        let hex = |t: &str| {
            ctx.board
                .parse(t)
                .ok_or_else(|| Rejection::at(n, line, format!("'{t}' is not a hex of the board")))
        };
        match words.as_slice() {
            ["UNIT", at, rest @ ..] => {
                let h = hex(at)?;
                let idx = st
                    .units
                    .iter()
                    .position(|u| u.at == h)
                    .ok_or_else(|| Rejection::at(n, line, format!("no unit at {at}")))?;
                match rest {
                    ["FIGURES", k] => {
                        let k: u32 = k.parse().map_err(|_| {
                            Rejection::at(n, line, "FIGURES takes a number")
                        })?;
                        let start = st.units[idx].start;
                        if k == 0 || k > start {
                            return Err(Rejection::at(
                                n,
                                line,
                                format!("a unit of {start} figures can have 1 to {start}; use UNIT {at} REMOVE to take it off"),
                            ));
                        }
                        st.units[idx].figures = k;
                    }
                    ["REMOVE"] => {
                        st.units.remove(idx);
                    }
                    ["TO", to] => {
                        let t = hex(to)?;
                        if st.unit_at(t).is_some() {
                            return Err(Rejection::at(n, line, format!("{to} is not empty")));
                        }
                        st.units[idx].at = t;
                    }
                    _ => {
                        return Err(Rejection::at(
                            n,
                            line,
                            "UNIT <hex> takes FIGURES <n>, REMOVE or TO <hex>",
                        ))
                    }
                }
            }
            ["MEDALS", side, k] => {
                let si = st
                    .side_index(&side.to_ascii_lowercase())
                    .ok_or_else(|| Rejection::at(n, line, format!("no side '{side}'")))?;
                let k: u32 = k
                    .parse()
                    .map_err(|_| Rejection::at(n, line, "MEDALS takes a side and a number"))?;
                if let Some(m) = st.medal_units.get_mut(si) {
                    *m = k;
                }
            }
            ["CARD", side, old, "FOR", new] => {
                let si = st
                    .side_index(&side.to_ascii_lowercase())
                    .ok_or_else(|| Rejection::at(n, line, format!("no side '{side}'")))?;
                let (old, new) = (old.to_ascii_lowercase(), new.to_ascii_lowercase());
                let hi = st.hands[si]
                    .iter()
                    .position(|c| *c == old)
                    .ok_or_else(|| Rejection::at(n, line, format!("{side} holds no {old}")))?;
                let di = st
                    .deck
                    .iter()
                    .position(|c| *c == new)
                    .ok_or_else(|| Rejection::at(n, line, format!("no {new} in the deck")))?;
                std::mem::swap(&mut st.hands[si][hi], &mut st.deck[di]);
            }
            _ => {
                return Err(Rejection::at(
                    n,
                    line,
                    "a correction is UNIT <hex> FIGURES <n> | REMOVE | TO <hex>, MEDALS <side> <n>, or CARD <side> <card> FOR <card>",
                ))
            }
        }
        done.push(line.to_string());
    }
    if done.is_empty() {
        return Err(Rejection::whole("the correction is empty"));
    }
    // A correction does not end the game by itself: victory is checked at
    // the end of the next turn, as always (docs/referee.md).
    Ok((st, vec![Event::Amended { lines: done }]))
}
