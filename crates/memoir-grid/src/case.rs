//! Rules test vectors for the grid family (docs/testing.md, "The grid
//! family's case format"): a board, units, one phase's orders for each side,
//! the dice forced, and what the rulebook says must follow.

use super::board::Area;
use super::engine;
use super::events::Event;
use super::ruleset::{at, toml_error, Ruleset};
use super::state::{self, BoardPart, Placement, Step};
use adjutant_dice::{ChaChaDice, Dice, ForcedDice};
use adjutant_rules::{CaseResult, Chance, DataError, Orders};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    name: String,
    ruleset: Spanned<String>,
    #[serde(default)]
    cites: Option<String>,
    #[serde(default)]
    notes: Option<String>,
    #[serde(default)]
    board: BoardPart,
    #[serde(default)]
    units: Vec<Placement>,
    phase: PhasePart,
    /// Further phases, played one after another from where the one before
    /// left the game (a unit's next turn: the ford's turn B, wire, victory).
    #[serde(default)]
    next: Vec<NextPart>,
    /// Enemy units to destroy to win (default 99: no case ends that way
    /// unless it says so).
    #[serde(default)]
    victory: Option<u32>,
    /// The scenario's turn limit (default none).
    #[serde(default)]
    turns: Option<u32>,
    #[serde(default)]
    expect: ExpectPart,
}

/// A later phase: its kind follows from the game; `name` and `side`, when
/// given, must match it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NextPart {
    #[serde(default)]
    name: Option<Spanned<String>>,
    #[serde(default)]
    side: Option<Spanned<String>>,
    #[serde(default)]
    orders: BTreeMap<String, String>,
    #[serde(default)]
    dice: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PhasePart {
    name: Spanned<String>,
    #[serde(default)]
    side: Option<Spanned<String>>,
    #[serde(default)]
    orders: BTreeMap<String, String>,
    #[serde(default)]
    standing: BTreeMap<String, String>,
    #[serde(default)]
    dice: Vec<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectPart {
    #[serde(default)]
    dice_rolled: Option<usize>,
    #[serde(default)]
    units: Vec<ExpectUnit>,
    #[serde(default)]
    empty: Vec<String>,
    #[serde(default)]
    rejected: Option<String>,
    #[serde(default)]
    events: Vec<String>,
    #[serde(default)]
    first: Option<String>,
    #[serde(default)]
    winner: Option<String>,
    /// PREDICT's odds on the case's position, before the phase is played.
    #[serde(default)]
    predict: Option<PredictPart>,
}

/// `[expect.predict]` (docs/testing.md): the side defaults to the case's
/// side, the orders to its orders.
type PredictPart = adjutant_rules::odds::ExpectPredict;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectUnit {
    at: String,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    r#type: Option<String>,
    #[serde(default)]
    strength: Option<u32>,
}

fn fail(name: &str, detail: impl Into<String>) -> CaseResult {
    CaseResult {
        name: name.to_string(),
        passed: false,
        detail: detail.into(),
    }
}

/// Run a case from its text. A malformed file is a failing case.
#[must_use]
pub fn run_case_text(text: &str, file: &str) -> CaseResult {
    let name_of = || {
        toml::from_str::<toml::Table>(text)
            .ok()
            .and_then(|t| t.get("name").and_then(|n| n.as_str().map(str::to_string)))
            .unwrap_or_else(|| file.to_string())
    };
    match run(text, file) {
        Ok(r) => r,
        Err(e) => fail(&name_of(), e.to_string()),
    }
}

fn run(text: &str, file: &str) -> Result<CaseResult, DataError> {
    let cf: CaseFile = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    let _ = (&cf.cites, &cf.notes);
    let r = Ruleset::builtin(cf.ruleset.get_ref()).map_err(|_| {
        at(
            text,
            file,
            cf.ruleset.span().start,
            format!("unknown ruleset '{}'", cf.ruleset.get_ref()),
        )
    })?;
    let st = setup(&r, &cf, text, file)?;
    let phases = phases(&r, &cf, text, file)?;
    let odds = cf
        .expect
        .predict
        .as_ref()
        .map(|p| check_predict(&r, &cf, &st, p))
        .unwrap_or_default();
    let (out, rolled, mut problems) = match play(&r, &cf, &st, &phases) {
        Ok(played) => played,
        Err(verdict) if odds.is_empty() => return Ok(verdict),
        Err(verdict) => {
            return Ok(fail(
                &cf.name,
                format!("{}; {}", odds.join("; "), verdict.detail),
            ))
        }
    };
    problems.extend(odds);
    let e = &cf.expect;
    if let Some(n) = e.dice_rolled {
        if rolled != n {
            problems.push(format!("dice rolled: expected {n}, got {rolled}"));
        }
    }
    check_units(e, &st, &out, &mut problems);
    for x in &e.empty {
        if let Some(a) = st.grid.parse(x) {
            if let Some(u) = out.st.unit_at(a) {
                problems.push(format!(
                    "expected {a} empty, found {} {}",
                    out.st.sides[u.side], u.kind
                ));
            }
        }
    }
    for k in &e.events {
        if !out.ev.iter().any(|v| v.kind() == k.as_str()) {
            problems.push(format!("expected an event '{k}'"));
        }
    }
    if let Some(f) = &e.first {
        match out.st.step {
            Step::Move { side, .. } if out.st.sides[side] == f.to_ascii_lowercase() => {}
            other => problems.push(format!("expected {f} to move first, got {other:?}")),
        }
    }
    if let Some(w) = &e.winner {
        if out.st.winner.as_deref() != Some(w.as_str()) {
            problems.push(format!("winner: expected {w:?}, got {:?}", out.st.winner));
        }
    }
    if problems.is_empty() {
        return Ok(CaseResult {
            name: cf.name,
            passed: true,
            detail: String::new(),
        });
    }
    let log: Vec<String> = out.ev.iter().filter_map(super::report::describe).collect();
    Ok(fail(
        &cf.name,
        format!(
            "{}\n  events:\n    {}",
            problems.join("; "),
            log.join("\n    ")
        ),
    ))
}

/// The case's position: the board and units, the phase, the standing orders.
fn setup(r: &Ruleset, cf: &CaseFile, text: &str, file: &str) -> Result<state::State, DataError> {
    let mut st = state::place(r, text, file, &cf.board, &cf.units)?;
    st.scenario = "case".into();
    st.title = cf.name.clone();
    st.victory = cf.victory.unwrap_or(99).max(1);
    st.turns = cf.turns;
    let side_of = |s: &str, span: std::ops::Range<usize>| {
        st.side_index(s)
            .ok_or_else(|| at(text, file, span.start, format!("unknown side '{s}'")))
    };
    st.step = match cf.phase.name.get_ref().as_str() {
        "artillery" => Step::Artillery,
        "move" => {
            let s = cf.phase.side.as_ref().ok_or_else(|| {
                at(
                    text,
                    file,
                    cf.phase.name.span().start,
                    "a move phase names the side that moves",
                )
            })?;
            Step::Move {
                side: side_of(s.get_ref(), s.span())?,
                second: false,
            }
        }
        other => {
            return Err(at(
                text,
                file,
                cf.phase.name.span().start,
                format!("the phase is artillery or move, not '{other}'"),
            ))
        }
    };
    for (s, o) in &cf.phase.standing {
        let i = st
            .side_index(s)
            .ok_or_else(|| at(text, file, 0, format!("standing: unknown side '{s}'")))?;
        for l in o.lines() {
            match l.trim().to_ascii_uppercase().as_str() {
                "INITIATIVE SECOND" => st.second[i] = true,
                "INITIATIVE FIRST" => st.second[i] = false,
                "" => {}
                other => {
                    return Err(at(
                        text,
                        file,
                        0,
                        format!("standing: '{other}' is not a standing order"),
                    ))
                }
            }
        }
    }
    Ok(st)
}

/// The phases in order, each with its forced dice and orders: the first,
/// then each [[next]].
type Phase = (Vec<u32>, Vec<Orders>);

fn phases(r: &Ruleset, cf: &CaseFile, text: &str, file: &str) -> Result<Vec<Phase>, DataError> {
    let parse_dice = |list: &[Spanned<String>]| -> Result<Vec<u32>, DataError> {
        let mut faces = Vec::new();
        for d in list {
            let w = d.get_ref().trim();
            let v = match w.parse::<u32>() {
                Ok(n) if (1..=6).contains(&n) => Some(n),
                _ => r.face_value(w),
            };
            faces.push(v.ok_or_else(|| {
                at(
                    text,
                    file,
                    d.span().start,
                    format!("'{w}' is not a die face ({}) nor 1-6", r.faces.join(", ")),
                )
            })?);
        }
        Ok(faces)
    };
    let orders_of = |m: &BTreeMap<String, String>| -> Vec<Orders> {
        m.iter()
            .map(|(s, t)| Orders {
                side: s.to_ascii_lowercase(),
                text: t.clone(),
            })
            .collect()
    };
    let mut phases = vec![(parse_dice(&cf.phase.dice)?, orders_of(&cf.phase.orders))];
    for nx in &cf.next {
        phases.push((parse_dice(&nx.dice)?, orders_of(&nx.orders)));
    }
    Ok(phases)
}

/// Play the phases: the outcome, the dice rolled and the problems found on
/// the way; or the case's verdict, when a phase decides it (a rejection).
fn play(
    r: &Ruleset,
    cf: &CaseFile,
    st: &state::State,
    phases: &[Phase],
) -> Result<(engine::Outcome, usize, Vec<String>), CaseResult> {
    let e = &cf.expect;
    let last = phases.len() - 1;
    let mut problems = Vec::new();
    let mut rolled = 0;
    let mut events: Vec<Event> = Vec::new();
    let mut now = st.clone();
    for (i, (faces, orders)) in phases.iter().enumerate() {
        let label = if last == 0 {
            String::new()
        } else {
            format!("phase {}: ", i + 1)
        };
        if i > 0 {
            if let Some(why) = phase_mismatch(&cf.next[i - 1], &now) {
                return Err(fail(&cf.name, format!("{label}{why}")));
            }
        }
        let mut dice = ForcedDice::new(faces.clone());
        let mut deck = ChaChaDice::from_seed([0; 32]);
        let res = {
            let mut chance = Chance {
                dice: &mut dice,
                deck: &mut deck,
            };
            engine::run(r, &now, orders, Some(&mut chance))
        };
        let out = match (res, &e.rejected) {
            (Err(rej), Some(want)) if i == last => {
                let msg = rej.to_string();
                return Err(if msg.to_lowercase().contains(&want.to_lowercase()) {
                    CaseResult {
                        name: cf.name.clone(),
                        passed: true,
                        detail: format!("rejected: {msg}"),
                    }
                } else {
                    fail(
                        &cf.name,
                        format!("{label}rejected, but \"{msg}\" does not contain \"{want}\""),
                    )
                });
            }
            (Err(rej), _) => {
                return Err(fail(
                    &cf.name,
                    format!("{label}the orders were rejected: {rej}"),
                ))
            }
            (Ok(_), Some(want)) if i == last => {
                return Err(fail(
                    &cf.name,
                    format!(
                        "{label}the orders were accepted, but a rejection containing \"{want}\" was expected"
                    ),
                ))
            }
            (Ok(o), _) => o,
        };
        if dice.exhausted() {
            problems.push(format!(
                "{label}the engine rolled {} dice but the case forces only {}",
                dice.rolled(),
                faces.len()
            ));
        } else if dice.unused() > 0 {
            problems.push(format!(
                "{label}the case forces {} dice but the engine rolled only {}",
                faces.len(),
                dice.rolled()
            ));
        }
        rolled += dice.rolled();
        events.extend(out.ev);
        now = out.st;
    }
    let out = engine::Outcome {
        st: now,
        ev: events,
    };
    Ok((out, rolled, problems))
}

/// Why a [[next]] phase is not the one the game is at, if it is not.
fn phase_mismatch(nx: &NextPart, now: &state::State) -> Option<String> {
    if now.over {
        return Some("the game ended before this phase".to_string());
    }
    let (kind, side) = match now.step {
        Step::Artillery => ("artillery", None),
        Step::Move { side, .. } => ("move", Some(now.sides[side].clone())),
    };
    if let Some(n) = &nx.name {
        if n.get_ref() != kind {
            return Some(format!(
                "expected a {} phase, the game is at a {kind} phase",
                n.get_ref()
            ));
        }
    }
    if let Some(s) = &nx.side {
        if side.as_deref() != Some(s.get_ref().to_ascii_lowercase().as_str()) {
            return Some(format!(
                "expected {} to move, the game is at {kind}{}",
                s.get_ref(),
                side.map(|x| format!(" for {x}")).unwrap_or_default()
            ));
        }
    }
    None
}

/// The units the case expects, each where it says.
fn check_units(
    e: &ExpectPart,
    st: &state::State,
    out: &engine::Outcome,
    problems: &mut Vec<String>,
) {
    for eu in &e.units {
        let Some(a) = st.grid.parse(&eu.at) else {
            problems.push(format!("expected unit at '{}': not an area", eu.at));
            continue;
        };
        let here: Vec<&state::Unit> = out.st.units.iter().filter(|u| u.at == a).collect();
        let want_kind = eu.r#type.as_deref().map(str::to_ascii_lowercase);
        let Some(u) = here
            .iter()
            .find(|u| want_kind.as_deref().is_none_or(|k| u.kind == k))
            .or_else(|| here.first())
        else {
            problems.push(format!("expected a unit at {a}, found none"));
            continue;
        };
        if let Some(sd) = &eu.side {
            if out.st.sides[u.side] != sd.to_ascii_lowercase() {
                problems.push(format!(
                    "unit at {a}: expected side {sd}, got {}",
                    out.st.sides[u.side]
                ));
            }
        }
        if let Some(k) = &want_kind {
            if u.kind != *k {
                problems.push(format!("unit at {a}: expected {k}, got {}", u.kind));
            }
        }
        if let Some(sv) = eu.strength {
            if u.strength != sv {
                problems.push(format!(
                    "unit at {a}: expected strength {sv}, got {}",
                    u.strength
                ));
            }
        }
    }
    let listed: Vec<Area> = e
        .units
        .iter()
        .filter_map(|u| st.grid.parse(&u.at))
        .collect();
    if !e.units.is_empty() {
        for u in &out.st.units {
            if !listed.contains(&u.at) {
                problems.push(format!(
                    "an unexpected {} {} at {}",
                    out.st.sides[u.side], u.kind, u.at
                ));
            }
        }
    }
}

/// The problems of `[expect.predict]`: PREDICT's answer on the case's
/// position against the lines the case expects.
fn check_predict(r: &Ruleset, cf: &CaseFile, st: &state::State, p: &PredictPart) -> Vec<String> {
    let (side, orders) = match p.side_and_orders(&cf.phase.orders, "[phase]") {
        Ok(so) => so,
        Err(problem) => return vec![problem],
    };
    p.problems(super::predict::predict(r, st, &side, &orders))
}
