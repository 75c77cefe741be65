//! Rules test vectors for measured tables (docs/testing.md, "Measured
//! tables"): a table, terrain and units placed in inches, one move's orders
//! for each side, the dice forced, and what the rulebook says must follow.

use crate::book::Book;

use super::geometry::Pt;
use super::ruleset::{at, toml_error, Inches, Ruleset};
use super::state::{self, FeatureFile, Forced, Placement, TablePart};
use super::Outcome;
use adjutant_dice::{ChaChaDice, Dice, ForcedDice};
use adjutant_rules::{CaseResult, Chance, DataError, Orders};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "X: state::BookKeys"))]
struct CaseFile<X> {
    name: String,
    ruleset: Spanned<String>,
    #[serde(default)]
    cites: Option<String>,
    #[serde(default)]
    notes: Option<String>,
    #[serde(default)]
    table: Option<Spanned<[Inches; 2]>>,
    #[serde(default)]
    sides: Option<Vec<String>>,
    #[serde(default)]
    terrain: Vec<FeatureFile>,
    #[serde(default)]
    units: Vec<Placement<X>>,
    #[serde(default)]
    turn: Option<u32>,
    /// Seven Years' War: whose player-turn it is (default the first side).
    #[serde(default)]
    active: Option<String>,
    /// Seven Years' War: fog-of-war effects already in force.
    #[serde(default)]
    effects: Vec<CaseEffect>,
    r#move: MovePart,
    #[serde(default)]
    expect: ExpectPart,
}

/// An effect in force in a case (a Seven Years' War key).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseEffect {
    pub id: String,
    pub side: String,
    /// The player-turn before which it ends (turn 1's first player is 0).
    pub until: u32,
    #[serde(default)]
    pub checks: u32,
    #[serde(default)]
    pub units: Vec<String>,
}

/// A case's keys for a book's own part of the position: the active side
/// and the effects in force (the Seven Years' War's).
pub struct CaseSequence<'a> {
    /// The case file's sides, as written.
    pub sides: Option<&'a [String]>,
    pub active: Option<&'a str>,
    pub effects: &'a [CaseEffect],
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MovePart {
    #[serde(default)]
    orders: BTreeMap<String, String>,
    #[serde(default)]
    dice: Vec<Spanned<u32>>,
    /// A referee's correction (AMEND lines) instead of orders.
    #[serde(default)]
    amend: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectPart {
    #[serde(default)]
    dice_rolled: Option<usize>,
    #[serde(default)]
    rejected: Option<String>,
    #[serde(default)]
    accepted: Option<bool>,
    #[serde(default)]
    units: Vec<ExpectUnit>,
    #[serde(default)]
    gone: Vec<String>,
    #[serde(default)]
    events: Vec<String>,
    #[serde(default)]
    no_events: Vec<String>,
    /// Text the move's report must contain.
    #[serde(default)]
    report: Vec<String>,
    #[serde(default)]
    winner: Option<String>,
    /// Seven Years' War: fog-of-war effects in force after the player-turn.
    #[serde(default)]
    effects: Option<Vec<String>>,
    /// Charge!: building sections after the move (houses under fire).
    #[serde(default)]
    sections: Vec<ExpectSection>,
    /// What one recipient's report after the move says and does not say
    /// (a side's name, `referee` or `observer`): every part of it (the
    /// position, the report, the order template, view.json, the SVG).
    #[serde(default)]
    view: BTreeMap<String, ExpectView>,
    /// The odds PREDICT must answer on the case's position, before the
    /// move is played (docs/testing.md).
    #[serde(default)]
    predict: Option<PredictPart>,
}

/// `[expect.predict]` (docs/testing.md): the side defaults to the case's
/// side, the orders to its orders.
type PredictPart = adjutant_rules::odds::ExpectPredict;

/// The problems of `[expect.predict]`: PREDICT's answer on the case's
/// starting position against the texts it must contain.
fn check_predict<B: Book>(
    r: &Ruleset<B>,
    cf: &CaseFile<B::Placement>,
    st: &state::State<B>,
    p: &PredictPart,
) -> Vec<String> {
    let (side, orders) = match p.side_and_orders(&cf.r#move.orders, "[move]") {
        Ok(so) => so,
        Err(problem) => return vec![problem],
    };
    p.problems(adjutant_rules::Family::predict(r, st, &side, &orders))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectView {
    /// Text the recipient's report must contain.
    #[serde(default)]
    told: Vec<String>,
    /// Text it must not contain.
    #[serde(default)]
    not_told: Vec<String>,
}

/// Check `[expect.view.<who>]`: each recipient's whole report after the
/// move, as the judge would mail it.
fn check_views<B: Book>(
    r: &Ruleset<B>,
    st: &state::State<B>,
    ev: &[B::Event],
    views: &BTreeMap<String, ExpectView>,
    problems: &mut Vec<String>,
) {
    for (who, want) in views {
        let key = who.trim().to_ascii_lowercase();
        let viewer = match key.as_str() {
            "referee" => adjutant_rules::Viewer::Referee,
            "observer" => adjutant_rules::Viewer::Observer,
            s if st.side_index(s).is_some() => adjutant_rules::Viewer::Side(s.to_string()),
            _ => {
                problems.push(format!("view: unknown recipient '{who}'"));
                continue;
            }
        };
        let p = super::report::parts(r, st, ev, &viewer);
        let all = [
            p.map.as_str(),
            p.compact.as_str(),
            p.combat.as_str(),
            p.orders.as_deref().unwrap_or(""),
            p.json.as_str(),
            p.svg.as_str(),
            p.board_html.as_str(),
        ]
        .join("\n");
        for w in &want.told {
            if !all.contains(w.as_str()) {
                problems.push(format!("view.{who}: not told \"{w}\""));
            }
        }
        for w in &want.not_told {
            if all.contains(w.as_str()) {
                problems.push(format!("view.{who}: told \"{w}\""));
            }
        }
    }
}

/// A terrain section after the move, by its name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectSection {
    name: String,
    /// "building" or "ruins".
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    damage: Option<u32>,
    #[serde(default)]
    shell: Option<u32>,
    /// Moves burnt so far, or -1 for not on fire.
    #[serde(default)]
    burning: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectUnit {
    id: String,
    #[serde(default)]
    rf: Option<u32>,
    #[serde(default)]
    at: Option<[Inches; 2]>,
    #[serde(default)]
    facing: Option<i32>,
    #[serde(default)]
    formation: Option<String>,
    #[serde(default)]
    officers: Option<usize>,
    #[serde(default)]
    broken: Option<bool>,
    #[serde(default)]
    bad_morale: Option<i32>,
    #[serde(default)]
    good_morale: Option<bool>,
    #[serde(default)]
    forced: Option<String>,
    #[serde(default)]
    melee: Option<String>,
    #[serde(default)]
    gun_damage: Option<Vec<u32>>,
    #[serde(default)]
    guns_destroyed: Option<usize>,
    #[serde(default)]
    crossing: Option<u32>,
    /// Seven Years' War: "red", "orange" or "none".
    #[serde(default)]
    marker: Option<String>,
    /// Exhausted by a drawn melee: [moves of retreat left, moves of rest
    /// left].
    #[serde(default)]
    exhausted: Option<[u32; 2]>,
    /// Rallied by its General: moves still to stand (0: not rallying).
    #[serde(default)]
    rallying: Option<u32>,
}

fn fail(name: &str, detail: impl Into<String>) -> CaseResult {
    CaseResult {
        name: name.to_string(),
        passed: false,
        detail: detail.into(),
    }
}

/// Run a case from its text against the ruleset `load` gives for the
/// case's `ruleset` key (a book's own: [`crate::books`] picks the book).
/// A malformed file is a failing case.
#[must_use]
pub fn run_case_as<B: Book>(text: &str, file: &str, load: Load<B>) -> CaseResult {
    let name_of = || {
        toml::from_str::<toml::Table>(text)
            .ok()
            .and_then(|t| t.get("name").and_then(|n| n.as_str().map(str::to_string)))
            .unwrap_or_else(|| file.to_string())
    };
    match run(text, file, load) {
        Ok(r) => r,
        Err(e) => fail(&name_of(), e.to_string()),
    }
}

fn forced_name(f: &Option<Forced>) -> String {
    match f {
        None => "none".into(),
        Some(Forced::Halt) => "halt".into(),
        Some(Forced::Retire) => "retire".into(),
        Some(Forced::BreakOff) => "break-off".into(),
        Some(Forced::Rout) => "rout".into(),
        Some(Forced::Exhausted { .. }) => "exhausted".into(),
    }
}

/// A book's ruleset by id (an unknown id: an error).
pub type Load<B> = fn(&str) -> Result<Ruleset<B>, DataError>;

fn run<B: Book>(text: &str, file: &str, load: Load<B>) -> Result<CaseResult, DataError> {
    let cf: CaseFile<B::Placement> =
        toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    let _ = (&cf.cites, &cf.notes);
    let unknown = |_| {
        at(
            text,
            file,
            cf.ruleset.span().start,
            format!("unknown ruleset '{}'", cf.ruleset.get_ref()),
        )
    };
    let r = load(cf.ruleset.get_ref()).map_err(unknown)?;
    run_book(&r, text, file, cf)
}

/// A case against its book's ruleset.
fn run_book<B: Book>(
    r: &Ruleset<B>,
    text: &str,
    file: &str,
    mut cf: CaseFile<B::Placement>,
) -> Result<CaseResult, DataError> {
    let terrain = std::mem::take(&mut cf.terrain);
    let st = case_state(r, text, file, &cf, terrain)?;
    let odds = cf
        .expect
        .predict
        .as_ref()
        .map(|p| check_predict(r, &cf, &st, p))
        .unwrap_or_default();
    let mut faces = Vec::new();
    for d in &cf.r#move.dice {
        if !(1..=6).contains(d.get_ref()) {
            return Err(at(text, file, d.span().start, "a die shows 1 to 6"));
        }
        faces.push(*d.get_ref());
    }
    let orders: Vec<Orders> = cf
        .r#move
        .orders
        .iter()
        .map(|(s, t)| Orders {
            side: s.to_ascii_lowercase(),
            text: t.clone(),
        })
        .collect();
    let mut dice = ForcedDice::new(faces.clone());
    let mut deck = ChaChaDice::from_seed([0; 32]);
    let res = {
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        match &cf.r#move.amend {
            Some(fix) => super::amend::amend(r, &st, fix).map(|(st, ev)| Outcome { st, ev }),
            None => r.book().run(r, &st, &orders, Some(&mut chance)),
        }
    };
    let e = &cf.expect;
    let out = match (res, &e.rejected) {
        (Err(rej), Some(want)) => {
            let msg = rej.to_string();
            return Ok(if msg.to_lowercase().contains(&want.to_lowercase()) {
                CaseResult {
                    name: cf.name,
                    passed: true,
                    detail: format!("rejected: {msg}"),
                }
            } else {
                fail(
                    &cf.name,
                    format!("rejected, but \"{msg}\" does not contain \"{want}\""),
                )
            });
        }
        (Err(rej), None) => return Ok(fail(&cf.name, format!("the orders were rejected: {rej}"))),
        (Ok(_), Some(want)) => {
            return Ok(fail(
                &cf.name,
                format!(
                    "the orders were accepted, but a rejection containing \"{want}\" was expected"
                ),
            ))
        }
        (Ok(o), None) => o,
    };
    let _ = e.accepted;
    let mut problems = odds;
    check_dice(e, &dice, faces.len(), &mut problems);
    for eu in &e.units {
        match out.st.unit(&eu.id) {
            Some(u) => check_unit(eu, u, &mut problems),
            None => problems.push(format!("expected unit {} on the table, it is gone", eu.id)),
        }
    }
    check_rest(e, &out.st, &mut problems);
    check_sections(e, &out.st, &mut problems);
    let log: Vec<String> = out.ev.iter().filter_map(B::describe).collect();
    check_events(r.book(), e, &out, &log, &mut problems);
    check_views(r, &out.st, &out.ev, &e.view, &mut problems);
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
    Ok(fail(
        &cf.name,
        format!(
            "{}\n  events:\n    {}",
            problems.join("; "),
            log.join("\n    ")
        ),
    ))
}

/// The case's position: its table and units, turn, and the Seven Years'
/// War's active side and effects in force.
fn case_state<B: Book>(
    r: &Ruleset<B>,
    text: &str,
    file: &str,
    cf: &CaseFile<B::Placement>,
    terrain: Vec<FeatureFile>,
) -> Result<state::State<B>, DataError> {
    let tp = TablePart {
        table: cf.table.clone(),
        sides: cf.sides.clone(),
        terrain,
    };
    let mut st = state::place(r, text, file, &tp, &cf.units)?;
    st.scenario = "case".into();
    st.title = cf.name.clone();
    st.moves = 99;
    if let Some(t) = cf.turn {
        st.turn = t;
    }
    let seq = CaseSequence {
        sides: cf.sides.as_deref(),
        active: cf.active.as_deref(),
        effects: &cf.effects,
    };
    r.book()
        .case_position(r, &mut st, &seq)
        .map_err(|(key, m)| at(text, file, text.find(key).unwrap_or(0), m))?;
    Ok(st)
}

/// The dice the engine rolled against those the case forces.
fn check_dice(e: &ExpectPart, dice: &ForcedDice, forced: usize, problems: &mut Vec<String>) {
    if dice.exhausted() {
        problems.push(format!(
            "the engine rolled {} dice but the case forces only {}",
            dice.rolled(),
            forced
        ));
    } else if dice.unused() > 0 {
        problems.push(format!(
            "the case forces {} dice but the engine rolled only {}",
            forced,
            dice.rolled()
        ));
    }
    if let Some(n) = e.dice_rolled {
        if dice.rolled() != n {
            problems.push(format!("dice rolled: expected {n}, got {}", dice.rolled()));
        }
    }
}

/// One expected unit's position, strength and state.
fn check_unit<B: Book>(eu: &ExpectUnit, u: &state::Unit<B>, problems: &mut Vec<String>) {
    if let Some(n) = eu.rf {
        if u.rf != n {
            problems.push(format!(
                "{}: rank and file expected {n}, got {}",
                u.id, u.rf
            ));
        }
    }
    if let Some([x, y]) = eu.at {
        let want = Pt::new(x.sixteenths().unwrap_or(-1), y.sixteenths().unwrap_or(-1));
        if u.front != want {
            problems.push(format!(
                "{}: front expected ({}, {}) sixteenths, got ({}, {})",
                u.id, want.x, want.y, u.front.x, u.front.y
            ));
        }
    }
    if let Some(f) = eu.facing {
        if u.facing != f {
            problems.push(format!("{}: facing expected {f}, got {}", u.id, u.facing));
        }
    }
    if let Some(f) = &eu.formation {
        if u.formation != *f {
            problems.push(format!(
                "{}: formation expected {f}, got {}",
                u.id, u.formation
            ));
        }
    }
    if let Some(n) = eu.officers {
        let a = u.alive_officers().count();
        if a != n {
            problems.push(format!("{}: officers expected {n}, got {a}", u.id));
        }
    }
    if let Some(b) = eu.broken {
        if u.broken != b {
            problems.push(format!("{}: broken expected {b}, got {}", u.id, u.broken));
        }
    }
    check_unit_morale(eu, u, problems);
    check_unit_kit(eu, u, problems);
}

/// One expected unit's morale, forced move and melee.
fn check_unit_morale<B: Book>(eu: &ExpectUnit, u: &state::Unit<B>, problems: &mut Vec<String>) {
    if let Some(b) = eu.bad_morale {
        if u.bad_morale != Some(b) {
            problems.push(format!(
                "{}: bad morale (rally on {b}) expected, got {:?}",
                u.id, u.bad_morale
            ));
        }
    }
    if eu.good_morale == Some(true) && u.bad_morale.is_some() {
        problems.push(format!(
            "{}: good morale expected, got bad (rally on {:?})",
            u.id, u.bad_morale
        ));
    }
    if let Some(f) = &eu.forced {
        if forced_name(&u.forced) != *f {
            problems.push(format!(
                "{}: forced expected {f}, got {}",
                u.id,
                forced_name(&u.forced)
            ));
        }
    }
    if let Some(m) = &eu.melee {
        let got = u
            .melee
            .as_ref()
            .map_or("none".to_string(), |x| x.with.clone());
        if got != *m {
            problems.push(format!("{}: melee with {m} expected, got {got}", u.id));
        }
    }
}

/// One expected unit's guns, marker and ford crossing.
fn check_unit_kit<B: Book>(eu: &ExpectUnit, u: &state::Unit<B>, problems: &mut Vec<String>) {
    if let Some(d) = &eu.gun_damage {
        let got: Vec<u32> = u.guns.iter().map(|g| g.damage).collect();
        if got != *d {
            problems.push(format!("{}: gun damage expected {d:?}, got {got:?}", u.id));
        }
    }
    if let Some(n) = eu.guns_destroyed {
        let got = u.guns.iter().filter(|g| g.destroyed).count();
        if got != n {
            problems.push(format!("{}: guns destroyed expected {n}, got {got}", u.id));
        }
    }
    if let Some(m) = &eu.marker {
        let got = B::case_fact(u, "marker").unwrap_or_else(|| "none".into());
        if got != *m {
            problems.push(format!("{}: marker expected {m}, got {got}", u.id));
        }
    }
    if let Some(n) = eu.crossing {
        if u.crossing != n {
            problems.push(format!(
                "{}: ford moves expected {n}, got {}",
                u.id, u.crossing
            ));
        }
    }
}

/// The expected units' exhaustion, then their rallying.
fn check_rest<B: Book>(e: &ExpectPart, st: &state::State<B>, problems: &mut Vec<String>) {
    for eu in &e.units {
        let (Some(want), Some(u)) = (eu.exhausted, st.unit(&eu.id)) else {
            continue;
        };
        let got = match u.forced {
            Some(Forced::Exhausted { retire, rest }) => Some([retire, rest]),
            _ => None,
        };
        if got != Some(want) {
            problems.push(format!(
                "{}: exhausted (retire, rest) expected {want:?}, got {got:?}",
                u.id
            ));
        }
    }
    for eu in &e.units {
        let (Some(want), Some(u)) = (eu.rallying, st.unit(&eu.id)) else {
            continue;
        };
        let got: Option<u32> = B::case_fact(u, "rallying").and_then(|n| n.parse().ok());
        if got.unwrap_or(0) != want {
            problems.push(format!("{}: rallying expected {want}, got {got:?}", u.id));
        }
    }
}

/// The expected terrain sections' kind, damage and fire.
fn check_sections<B: Book>(e: &ExpectPart, st: &state::State<B>, problems: &mut Vec<String>) {
    for es in &e.sections {
        let Some(f) = st
            .terrain
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(&es.name))
        else {
            problems.push(format!("no terrain section named {}", es.name));
            continue;
        };
        if es.kind.as_ref().is_some_and(|k| *k != f.kind) {
            problems.push(format!(
                "{}: kind expected {:?}, got {}",
                es.name, es.kind, f.kind
            ));
        }
        if es.damage.is_some_and(|d| d != f.damage) {
            problems.push(format!(
                "{}: damage expected {:?}, got {}",
                es.name, es.damage, f.damage
            ));
        }
        if es.shell.is_some_and(|d| d != f.shell) {
            problems.push(format!(
                "{}: shell damage expected {:?}, got {}",
                es.name, es.shell, f.shell
            ));
        }
        let burn = f.burning.map_or(-1, i64::from);
        if es.burning.is_some_and(|b| b != burn) {
            problems.push(format!(
                "{}: burning expected {:?}, got {burn}",
                es.name, es.burning
            ));
        }
    }
}

/// Units gone, events told and not told, the report's sentences and the
/// effects in force.
fn check_events<B: Book>(
    book: &dyn crate::Procedures<B>,
    e: &ExpectPart,
    out: &Outcome<B>,
    log: &[String],
    problems: &mut Vec<String>,
) {
    for id in &e.gone {
        if out.st.unit(id).is_some() {
            problems.push(format!("expected {id} gone from the table"));
        }
    }
    for k in &e.events {
        if !out.ev.iter().any(|v| B::kind(v) == k.as_str()) {
            problems.push(format!("expected an event '{k}'"));
        }
    }
    for k in &e.no_events {
        if out.ev.iter().any(|v| B::kind(v) == k.as_str()) {
            problems.push(format!("expected no event '{k}'"));
        }
    }
    let joined = log.join("\n");
    for want in &e.report {
        if !joined.contains(want.as_str()) {
            problems.push(format!("the report does not say \"{want}\""));
        }
    }
    if let Some(want) = &e.effects {
        let got = book.effects_in_force(&out.st);
        if got != *want {
            problems.push(format!("effects in force: expected {want:?}, got {got:?}"));
        }
    }
}
