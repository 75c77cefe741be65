//! PREDICT's shared part (docs/orders.md): the exact odds of dice killing
//! on some faces, the answer's percentages and wrapping, and the move's
//! figures sampled from a book's own adjudication with dice of PREDICT's
//! own seeds, never the game's. Each book's PREDICT is its own crate's.

use crate::book::Book;
use crate::ruleset::Ruleset;
use crate::state::{State, Unit};
use adjutant_rules::{Chance, Orders};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Runs of the engine the move's sampled figures are taken over.
pub const SAMPLE_RUNS: u64 = 1_000;

/// The exact chance of each number killed (index) by `dice` dice each
/// killing on `kills` faces of 6, at most `rf`.
#[must_use]
pub fn kill_distribution(dice: u32, kills: u32, rf: u32) -> Vec<f64> {
    let p = f64::from(kills.min(6)) / 6.0;
    let mut d = vec![1.0];
    for _ in 0..dice {
        d = add(&d, &[1.0 - p, p]);
    }
    // Kills beyond the figures there are the last figure's.
    let cap = rf as usize;
    if d.len() > cap + 1 {
        let over: f64 = d[cap..].iter().sum();
        d.truncate(cap + 1);
        d[cap] = over;
    }
    d
}

/// The distribution of the sum of two independent counts.
pub fn add(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, p) in a.iter().enumerate() {
        for (j, q) in b.iter().enumerate() {
            out[i + j] += p * q;
        }
    }
    out
}

/// "0 killed 12.3%, 1 killed 20.0%, ..." (shares under 0.05% left out).
pub fn shares(d: &[f64], one: &str, many: &str) -> String {
    d.iter()
        .enumerate()
        .filter(|(_, p)| **p >= 0.0005)
        .map(|(k, p)| format!("{k} {} {}", if k == 1 { one } else { many }, pc(*p)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A chance as a percentage with one decimal.
#[must_use]
pub fn pc(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// How the sampled figures name a unit's states after the move: (the
/// words and the test) for its morale gone bad, and for its breaking.
pub struct States<B: Book> {
    /// The book's word for what the orders are for: "move", "player-turn".
    pub turn: &'static str,
    pub bad: (&'static str, fn(&Unit<B>) -> bool),
    pub broken: (&'static str, fn(&Unit<B>) -> bool),
}

/// What the sampled runs saw of one unit.
#[derive(Default)]
struct Seen {
    lost: u64,
    bad: u64,
    broken: u64,
    removed: u64,
}

/// The move's figures sampled from the engine's own adjudication of the
/// orders (the enemy sending none, its standing orders unknown and taken
/// as none) over [`SAMPLE_RUNS`] runs.
pub fn sample_move<B: Book>(
    r: &Ruleset<B>,
    st: &State<B>,
    (side, idx): (&str, usize),
    orders: &str,
    watched: &[String],
    states: &States<B>,
) -> String {
    let o = [Orders {
        side: side.to_string(),
        text: orders.to_string(),
    }];
    let mut st = st.clone();
    for u in st.units.iter_mut().filter(|u| u.side != idx) {
        u.standing.clear();
    }
    let st = &st;
    let mut seen: BTreeMap<&str, Seen> = BTreeMap::new();
    let (mut points, mut ends, mut wins) = (0u64, 0u64, 0u64);
    let before = st.removed.get(idx).copied().unwrap_or(0);
    for i in 0..SAMPLE_RUNS {
        let mut seed = [0x5e_u8; 32];
        seed[..8].copy_from_slice(&i.to_le_bytes());
        let mut dice = adjutant_dice::ChaChaDice::from_seed(seed);
        let mut deck = adjutant_dice::ChaChaDice::from_seed([0; 32]);
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let Ok(done) = r.book().run(r, st, &o, Some(&mut chance)) else {
            return String::new();
        };
        for id in watched {
            let Some(was) = st.unit(id) else { continue };
            let s = seen.entry(id.as_str()).or_default();
            match done.st.unit(id) {
                None => {
                    s.removed += 1;
                    s.lost += u64::from(was.rf);
                }
                Some(u) => {
                    s.lost += u64::from(was.rf.saturating_sub(u.rf));
                    s.broken += u64::from((states.broken.1)(u) && !(states.broken.1)(was));
                    s.bad += u64::from((states.bad.1)(u));
                }
            }
        }
        let after = done.st.removed.get(idx).copied().unwrap_or(0);
        points += u64::from(after.saturating_sub(before));
        if done.st.over {
            ends += 1;
            wins += u64::from(done.st.winner.as_deref() == Some(side));
        }
    }
    let runs = SAMPLE_RUNS as f64;
    let margin = 196.0 * (0.25 / runs).sqrt();
    let mut out = "\n".to_string()
        + &wrap(&format!(
            "The whole {}, sampled from the engine's own adjudication of these \
             orders over {SAMPLE_RUNS} runs (95% margin at most +-{margin:.1}%):",
            states.turn
        ));
    for (id, s) in &seen {
        out.push_str(&wrap(&format!(
            "  {id}: loses {:.2} rank and file on average; {} {}, {} {}, \
             removed {}",
            s.lost as f64 / runs,
            states.bad.0,
            pc(s.bad as f64 / runs),
            states.broken.0,
            pc(s.broken as f64 / runs),
            pc(s.removed as f64 / runs)
        )));
    }
    let _ = writeln!(
        out,
        "  Expected victory points this {}: {:.2} (rank and file removed)",
        states.turn,
        points as f64 / runs
    );
    if ends > 0 {
        let _ = writeln!(
            out,
            "  The game ends this {} {}, won by {side} {}",
            states.turn,
            pc(ends as f64 / runs),
            pc(wins as f64 / runs)
        );
    }
    out
}

/// The answer's lines are at most this wide.
const WIDTH: usize = 78;

/// A line wrapped at [`WIDTH`] columns at a space, the rest indented four
/// columns (a case reads the answer with "\n    " joined); ends with a
/// newline.
#[must_use]
pub fn wrap(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    let mut out = String::new();
    let mut cur = " ".repeat(indent);
    let mut empty = true;
    for word in line.split_whitespace() {
        if !empty && cur.len() + 1 + word.len() > WIDTH {
            out.push_str(&cur);
            out.push('\n');
            cur = "    ".to_string();
            empty = true;
        }
        if !empty {
            cur.push(' ');
        }
        cur.push_str(word);
        empty = false;
    }
    out.push_str(&cur);
    out.push('\n');
    out
}
