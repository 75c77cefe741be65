//! The turn of the grid rulebooks as phases: (1) artillery fire, both sides
//! at once, then (2) initiative, rolled by the judge; (3) and (4) each side
//! moves and fights unit by unit. Orders are checked in full before any is
//! carried out; an order whose unit or target the dice have since removed
//! lapses and the report says so.

use super::board::Area;
use super::events::Event;
use super::ruleset::{Ruleset, UnitSpec};
use super::state::{State, Step, Unit};
use adjutant_rules::{Chance, Orders, Rejection};

/// One order line, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    Fire(Area, Area),
    Move(Vec<Area>),
    RemoveWire(Area),
    Load(Area, Area),
    Unload(Area, Area),
    Limber(Area, Area),
    Unlimber(Area, Area),
    Initiative(bool),
    Pass,
}

impl Cmd {
    #[must_use]
    pub fn canonical(&self) -> String {
        let path = |p: &[Area]| p.iter().map(Area::to_string).collect::<Vec<_>>().join(" ");
        match self {
            Cmd::Fire(a, b) => format!("FIRE {a} {b}"),
            Cmd::Move(p) => format!("MOVE {}", path(p)),
            Cmd::RemoveWire(a) => format!("REMOVE-WIRE {a}"),
            Cmd::Load(a, b) => format!("LOAD {a} {b}"),
            Cmd::Unload(a, b) => format!("UNLOAD {a} {b}"),
            Cmd::Limber(a, b) => format!("LIMBER {a} {b}"),
            Cmd::Unlimber(a, b) => format!("UNLIMBER {a} {b}"),
            Cmd::Initiative(second) => {
                format!("INITIATIVE {}", if *second { "SECOND" } else { "FIRST" })
            }
            Cmd::Pass => "PASS".into(),
        }
    }
}

/// The words grid order lines start with.
pub const ORDER_WORDS: &[&str] = &[
    "FIRE",
    "COMBAT",
    "ATTACK",
    "MOVE",
    "REMOVE-WIRE",
    "LOAD",
    "UNLOAD",
    "LIMBER",
    "UNLIMBER",
    "INITIATIVE",
    "PASS",
];

/// Parsed orders: (line number, the line, the order).
pub type Lines = Vec<(usize, String, Cmd)>;

/// Parse an orders text; every line is numbered as the player wrote it.
pub fn parse(st: &State, text: &str) -> Result<Vec<(usize, String, Cmd)>, Rejection> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let n = i + 1;
        if line.chars().count() > adjutant_rules::ORDER_LINE_CHARS {
            return Err(Rejection::at(
                n,
                &line.chars().take(40).collect::<String>(),
                format!(
                    "an order line is at most {} characters",
                    adjutant_rules::ORDER_LINE_CHARS
                ),
            ));
        }
        let words: Vec<String> = line
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        let area = |w: &str| {
            st.grid
                .parse(w)
                .ok_or_else(|| Rejection::at(n, line, format!("'{w}' is not an area of the board")))
        };
        let two = |what: &str| -> Result<(Area, Area), Rejection> {
            match words.as_slice() {
                [_, a, b] => Ok((area(a)?, area(b)?)),
                _ => Err(Rejection::at(n, line, format!("{what} takes two areas"))),
            }
        };
        let cmd = match words.first().map(String::as_str).unwrap_or("") {
            "FIRE" | "COMBAT" | "ATTACK" => {
                let (a, b) = two("FIRE <from> <target>")?;
                Cmd::Fire(a, b)
            }
            "MOVE" => {
                if words.len() < 3 {
                    return Err(Rejection::at(n, line, "MOVE takes the unit's area and the areas it moves through"));
                }
                if words.len() > 12 {
                    return Err(Rejection::at(n, line, "a move is at most a few areas long"));
                }
                let mut p = Vec::new();
                for w in &words[1..] {
                    p.push(area(w)?);
                }
                Cmd::Move(p)
            }
            "REMOVE-WIRE" => match words.as_slice() {
                [_, a] => Cmd::RemoveWire(area(a)?),
                _ => return Err(Rejection::at(n, line, "REMOVE-WIRE takes the unit's area")),
            },
            "LOAD" => {
                let (a, b) = two("LOAD <transport> <unit>")?;
                Cmd::Load(a, b)
            }
            "UNLOAD" => {
                let (a, b) = two("UNLOAD <transport> <area>")?;
                Cmd::Unload(a, b)
            }
            "LIMBER" => {
                let (a, b) = two("LIMBER <transport> <gun>")?;
                Cmd::Limber(a, b)
            }
            "UNLIMBER" => {
                let (a, b) = two("UNLIMBER <transport> <area>")?;
                Cmd::Unlimber(a, b)
            }
            "INITIATIVE" => match words.get(1).map(String::as_str) {
                Some("FIRST") if words.len() == 2 => Cmd::Initiative(false),
                Some("SECOND") if words.len() == 2 => Cmd::Initiative(true),
                _ => return Err(Rejection::at(n, line, "INITIATIVE FIRST or INITIATIVE SECOND")),
            },
            "PASS" if words.len() == 1 => Cmd::Pass,
            w => {
                return Err(Rejection::at(
                    n,
                    line,
                    format!("'{w}' is not an order (FIRE, MOVE, REMOVE-WIRE, LOAD, UNLOAD, LIMBER, UNLIMBER, INITIATIVE, PASS)"),
                ))
            }
        };
        out.push((n, line.to_string(), cmd));
    }
    Ok(out)
}

/// Who must send orders now.
#[must_use]
pub fn needs(r: &Ruleset, st: &State) -> Vec<usize> {
    if st.over {
        return Vec::new();
    }
    match st.step {
        Step::Artillery => (0..st.sides.len())
            .filter(|&s| st.units.iter().any(|u| u.side == s && is_artillery(r, u)))
            .collect(),
        Step::Move { side, .. } => vec![side],
    }
}

fn spec<'a>(r: &'a Ruleset, u: &Unit) -> &'a UnitSpec {
    // Units are placed only with known types; a missing one would be a
    // corrupt state, read as the first type rather than a panic.
    r.unit(&u.kind)
        .or_else(|| r.units.values().next())
        .expect("a ruleset has unit types")
}

fn is_artillery(r: &Ruleset, u: &Unit) -> bool {
    !spec(r, u).artillery.is_empty()
}

/// What one phase did.
pub struct Outcome {
    pub st: State,
    pub ev: Vec<Event>,
}

struct Turn<'a, 'c, 'd> {
    r: &'a Ruleset,
    st: State,
    ev: Vec<Event>,
    chance: Option<&'c mut Chance<'d>>,
}

impl Turn<'_, '_, '_> {
    fn side_name(&self, s: usize) -> String {
        self.st.sides.get(s).cloned().unwrap_or_default()
    }

    fn roll(&mut self) -> u32 {
        match self.chance.as_mut() {
            Some(c) => c.dice.roll(6),
            // A dice-free check: every die misses (the last face).
            None => 6,
        }
    }
}

/// Check and carry out the phase. `chance` None: check only (no dice; every
/// order is validated against the position as the earlier orders leave it
/// with every die a miss).
pub fn run(
    r: &Ruleset,
    st: &State,
    orders: &[Orders],
    chance: Option<&mut Chance<'_>>,
) -> Result<Outcome, Rejection> {
    if st.over {
        return Err(Rejection::whole("the game is over"));
    }
    if chance.is_some() {
        // Check, then apply: every order is checked without dice before any
        // is carried out (a game that ends half-way must not hide an illegal
        // order further down the mail).
        run(r, st, orders, None)?;
    }
    let need = needs(r, st);
    let mut parsed: Vec<(usize, Lines)> = Vec::new();
    for o in orders {
        let Some(side) = st.side_index(&o.side) else {
            return Err(Rejection::whole(format!(
                "'{}' is not a side of this game",
                o.side
            )));
        };
        if !need.contains(&side) {
            return Err(Rejection::whole(format!(
                "{} has no orders to give in this phase",
                o.side
            )));
        }
        parsed.push((side, parse(st, &o.text)?));
    }
    parsed.sort_by_key(|(s, _)| *s);
    let mut t = Turn {
        r,
        st: st.clone(),
        ev: Vec::new(),
        chance,
    };
    // Standing choices first: INITIATIVE lines in any phase.
    for (side, lines) in &parsed {
        for (_, _, c) in lines {
            if let Cmd::Initiative(second) = c {
                t.st.second[*side] = *second;
            }
        }
    }
    match st.step {
        Step::Artillery => artillery(&mut t, &parsed)?,
        Step::Move { side, second } => {
            let lines = parsed
                .iter()
                .find(|(s, _)| *s == side)
                .map(|(_, l)| l.clone())
                .unwrap_or_default();
            moves(&mut t, side, &lines)?;
            end_of_move(&mut t, side, second);
        }
    }
    Ok(Outcome { st: t.st, ev: t.ev })
}

/// Phase 1 and 2: simultaneous artillery fire, then the initiative roll.
fn artillery(t: &mut Turn<'_, '_, '_>, parsed: &[(usize, Lines)]) -> Result<(), Rejection> {
    let r = t.r;
    let mut shots: Vec<(usize, u32, u32, usize, String)> = Vec::new();
    for (side, lines) in parsed {
        let mut fired: Vec<u32> = Vec::new();
        for (n, line, c) in lines {
            match c {
                Cmd::Fire(from, target) => {
                    let u = t
                        .st
                        .units
                        .iter()
                        .find(|u| u.at == *from && u.side == *side && is_artillery(r, u))
                        .ok_or_else(|| {
                            Rejection::at(*n, line, format!("you have no artillery unit at {from}"))
                        })?;
                    if fired.contains(&u.id) {
                        return Err(Rejection::at(
                            *n,
                            line,
                            format!("the artillery at {from} may fire only once each turn"),
                        ));
                    }
                    let tgt =
                        t.st.unit_at(*target)
                            .filter(|x| x.side != *side)
                            .ok_or_else(|| {
                                Rejection::at(*n, line, format!("no enemy unit at {target}"))
                            })?;
                    artillery_dice(r, &t.st, u, tgt).map_err(|m| Rejection::at(*n, line, m))?;
                    fired.push(u.id);
                    shots.push((*side, u.id, tgt.id, *n, line.clone()));
                }
                Cmd::Initiative(_) | Cmd::Pass => {}
                _ => {
                    return Err(Rejection::at(
                        *n,
                        line,
                        "in the artillery phase the orders are FIRE, INITIATIVE or PASS",
                    ))
                }
            }
        }
    }
    // Fire: losses marked at once; destroyed units removed after every
    // battery has fired; retreats then, in the order of fire.
    let mut retreats: Vec<(u32, u32)> = Vec::new();
    let mut dead: Vec<u32> = Vec::new();
    for (side, gun, target, _, _) in &shots {
        let (Some(g), Some(tg)) = (t.st.unit(*gun).cloned(), t.st.unit(*target).cloned()) else {
            continue;
        };
        let dice = artillery_dice(r, &t.st, &g, &tg).unwrap_or(0);
        let faces: Vec<String> = (0..dice)
            .map(|_| {
                let v = t.roll();
                r.face(v)
            })
            .collect();
        let (losses, flags) = resolve_faces(t, &tg, &faces);
        t.ev.push(Event::Fire {
            phase: "artillery".into(),
            side: t.side_name(*side),
            from: g.at.to_string(),
            at: tg.at.to_string(),
            unit: g.kind.clone(),
            target: tg.kind.clone(),
            dice,
            faces: faces.clone(),
        });
        if !dead.contains(&tg.id) && apply_losses(t, tg.id, losses, *side, false) {
            dead.push(tg.id);
        }
        if flags {
            retreats.push((tg.id, g.id));
        }
        if let Some(m) = t.st.unit_mut(*gun) {
            m.fired = true;
        }
    }
    // Removal after all fired, then the retreats, in the order of fire.
    let sources: Vec<(u32, Option<Area>)> = retreats
        .iter()
        .map(|(u, g)| (*u, t.st.unit(*g).map(|x| x.at)))
        .collect();
    for id in &dead {
        destroy(t, *id);
    }
    for (unit, src) in sources {
        if let (Some(_), Some(src)) = (t.st.unit(unit), src) {
            retreat(t, unit, src);
        }
    }
    check_victory(t);
    if t.st.over {
        return Ok(());
    }
    // 2: initiative. Both sides roll a D6; a tie is rolled again.
    let mut rolls: Vec<u32> = Vec::new();
    let winner = loop {
        let a = t.roll();
        let b = t.roll();
        rolls.push(a);
        rolls.push(b);
        if a != b {
            break usize::from(b > a);
        }
        if t.chance.is_none() || rolls.len() > 40 {
            break 0;
        }
    };
    let first = if t.st.second[winner] {
        1 - winner
    } else {
        winner
    };
    t.ev.push(Event::Initiative {
        rolls,
        winner: t.side_name(winner),
        first: t.side_name(first),
        chose: if first == winner { "first" } else { "second" }.into(),
    });
    t.st.step = Step::Move {
        side: first,
        second: false,
    };
    Ok(())
}

/// One term of a battle's dice: its words (as PREDICT names it) and count.
pub type DiceTerm = (String, i64);

/// Dice an artillery unit throws at a target, or why it cannot fire.
fn artillery_dice(r: &Ruleset, st: &State, g: &Unit, tg: &Unit) -> Result<u32, String> {
    artillery_terms(r, st, g, tg).map(|t| total(&t))
}

/// The sum of a battle's dice terms.
#[must_use]
pub fn total(terms: &[DiceTerm]) -> u32 {
    terms.iter().map(|t| t.1).sum::<i64>().max(0) as u32
}

/// The terms of an artillery unit's dice at a target (the table's dice by
/// range first), or why it cannot fire.
pub fn artillery_terms(
    r: &Ruleset,
    st: &State,
    g: &Unit,
    tg: &Unit,
) -> Result<Vec<DiceTerm>, String> {
    let s = spec(r, g);
    if g.fired {
        return Err(format!(
            "the artillery at {} has already fired this turn",
            g.at
        ));
    }
    // "Units in rivers may not take part in Combat." and "Units on a water
    // grid area may not take part in Combat." (Memoir of Battle and Memoir of Modern Battle): in phase 1
    // too, for the battery and for its target.
    for (who, what) in [(g, "the artillery"), (tg, "the unit")] {
        if in_river_or_water(r, st, who) {
            return Err(format!(
                "{what} at {} is in a river or on water and may not take part in Combat",
                who.at
            ));
        }
    }
    let range = st.grid.distance(g.at, tg.at);
    let ts = spec(r, tg);
    let table_armour = ts.armour && !s.artillery_vs_armour.is_empty();
    let table = if table_armour {
        &s.artillery_vs_armour
    } else {
        &s.artillery
    };
    let base = table
        .get((range as usize).wrapping_sub(1))
        .copied()
        .unwrap_or(0);
    if range < 1 || base == 0 {
        return Err(format!(
            "{} is out of range of the {} at {} (range {range}; it reaches {})",
            tg.at,
            s.name,
            g.at,
            table.iter().take_while(|d| **d > 0).count()
        ));
    }
    match line_of_sight(r, st, g, tg.at) {
        Ok(()) => {}
        Err(why) => {
            // Indirect fire: a friendly unit in direct line of sight of the
            // target lets field, medium, heavy and mountain artillery fire
            // over friendly units (Memoir of Modern Battle).
            if !s.indirect {
                return Err(why);
            }
            if !spotter(r, st, g.side, tg.at) {
                return Err(format!(
                    "no friendly unit sees {} to spot for indirect fire, and the {} at {} has no line of sight of its own ({why})",
                    tg.at, s.name, g.at
                ));
            }
        }
    }
    let mut terms = vec![(
        format!(
            "{} at range {range}{}",
            base,
            if table_armour { " against armour" } else { "" }
        ),
        i64::from(base),
    )];
    if r.general_bonus.contains(&s.class)
        && st
            .units
            .iter()
            .any(|u| u.at == g.at && u.id != g.id && u.side == g.side && spec(r, u).general)
    {
        terms.push(("a general in its area".into(), 1));
    }
    Ok(terms)
}

fn spotter(r: &Ruleset, st: &State, side: usize, target: Area) -> bool {
    st.units
        .iter()
        .filter(|u| u.side == side)
        .any(|u| line_of_sight_plain(r, st, u, target))
}

fn hill(r: &Ruleset, st: &State, a: Area) -> u32 {
    st.features(a)
        .iter()
        .filter_map(|f| r.feature(f))
        .map(|t| t.hill)
        .max()
        .unwrap_or(0)
}

fn blocks(r: &Ruleset, st: &State, a: Area) -> bool {
    st.features(a)
        .iter()
        .filter_map(|f| r.feature(f))
        .any(|t| t.blocks_los)
}

/// The same hill: connected areas of one height (docs/rules).
fn same_hill(r: &Ruleset, st: &State, a: Area, b: Area) -> bool {
    let h = hill(r, st, a);
    if h == 0 || hill(r, st, b) != h {
        return false;
    }
    let mut seen = vec![a];
    let mut i = 0;
    while i < seen.len() {
        let x = seen[i];
        if x == b {
            return true;
        }
        for n in st.grid.neighbours(x) {
            if !seen.contains(&n) && hill(r, st, n) == h {
                seen.push(n);
            }
        }
        i += 1;
    }
    false
}

/// Line of sight without friendly units (for a spotter).
fn line_of_sight_plain(r: &Ruleset, st: &State, u: &Unit, target: Area) -> bool {
    los(r, st, u, target, false).is_ok()
}

/// Line of sight for firing: terrain, hills, and friendly units in front.
fn line_of_sight(r: &Ruleset, st: &State, u: &Unit, target: Area) -> Result<(), String> {
    los(r, st, u, target, !spec(r, u).fires_over)
}

fn los(r: &Ruleset, st: &State, u: &Unit, target: Area, friends_block: bool) -> Result<(), String> {
    let range = st.grid.distance(u.at, target);
    if range <= 1 {
        return Ok(());
    }
    // "all Combat between Units that are in woods, forests, and built-up
    // areas may only take place between Units that are in adjacent grid areas"
    if blocks(r, st, u.at) || blocks(r, st, target) {
        return Err(format!(
            "combat into or out of woods, forest or a built-up area is only between adjacent areas ({} to {target} is {range})",
            u.at
        ));
    }
    let hf = hill(r, st, u.at);
    let ht = hill(r, st, target);
    let hill_to_hill = hf > 0 && hf == ht;
    let blocked = |path: &[Area]| -> Option<String> {
        for a in path {
            if blocks(r, st, *a) {
                return Some(format!(
                    "{a} (woods, forest or built-up) blocks the line of sight"
                ));
            }
            let h = hill(r, st, *a);
            // Hills block, except between units on hills of the same height
            // (looking over lower ground between them).
            if h > 0 && !(hill_to_hill && h <= hf) {
                return Some(format!("the hill at {a} blocks the line of sight"));
            }
            if friends_block
                && st
                    .units
                    .iter()
                    .any(|o| o.at == *a && o.side == u.side && o.id != u.id)
            {
                return Some(format!("the friendly unit at {a} is in the line of fire"));
            }
        }
        None
    };
    let [left, right] = st.grid.between(u.at, target);
    match (blocked(&left), blocked(&right)) {
        // A line along an edge is blocked only if both sides block it.
        (Some(a), Some(_)) => Err(a),
        _ => Ok(()),
    }
}

/// Count a target's losses and whether it must retreat from faces thrown.
fn resolve_faces(t: &Turn<'_, '_, '_>, tg: &Unit, faces: &[String]) -> (u32, bool) {
    let r = t.r;
    if t.chance.is_none() {
        // A dice-free check changes nothing.
        return (0, false);
    }
    let (mut hits, mut flags) = (0, 0);
    for f in faces {
        let (h, g) = face_result(r, tg, f);
        hits += h;
        flags += g;
    }
    settle_counts(r, &t.st, tg, hits, flags)
}

/// What one die's face does to a target: (a hit, a retreat result).
#[must_use]
pub fn face_result(r: &Ruleset, tg: &Unit, face: &str) -> (u32, u32) {
    let class = &spec(r, tg).class;
    (
        u32::from(r.face_hits(face, class)),
        u32::from(face == "retreat"),
    )
}

/// A target's losses and whether it must retreat, from the hits and retreat
/// results its dice showed.
#[must_use]
pub fn settle_counts(r: &Ruleset, st: &State, tg: &Unit, hits: u32, flags: u32) -> (u32, bool) {
    if dug_in(r, st, tg.at) {
        // Fieldworks: the first loss is ignored; two retreat results to retreat.
        return (hits.saturating_sub(1), flags >= 2);
    }
    (hits, flags > 0)
}

/// Whether the target's area is fieldworks (as [`settle_counts`] reads it).
#[must_use]
pub fn dug_in(r: &Ruleset, st: &State, at: Area) -> bool {
    st.features(at)
        .iter()
        .filter_map(|f| r.feature(f))
        .any(|x| x.fieldworks)
}

/// One battle's result carried out by the engine's own code on a copy of
/// the position: `losses` taken by the unit `target` of the enemy of
/// `side`, then its retreat away from `from` if `retreats`, then the
/// victory check. Draws no die.
#[must_use]
pub fn settle(
    r: &Ruleset,
    st: &State,
    side: usize,
    from: Area,
    target: u32,
    losses: u32,
    retreats: bool,
) -> (State, Vec<Event>) {
    let mut none = adjutant_dice::ForcedDice::new(Vec::new());
    let mut deck = adjutant_dice::ForcedDice::new(Vec::new());
    let mut chance = Chance {
        dice: &mut none,
        deck: &mut deck,
    };
    let mut t = Turn {
        r,
        st: st.clone(),
        ev: Vec::new(),
        chance: Some(&mut chance),
    };
    apply_losses(&mut t, target, losses, side, true);
    if retreats && t.st.unit(target).is_some() {
        retreat(&mut t, target, from);
    }
    check_victory(&mut t);
    (t.st, t.ev)
}

/// Take `n` from a unit's strength (marked now; removed later when
/// `remove_now` is false, as the simultaneous artillery phase says).
/// True if the unit is destroyed.
fn apply_losses(t: &mut Turn<'_, '_, '_>, id: u32, n: u32, by: usize, remove_now: bool) -> bool {
    let r = t.r;
    let Some(u) = t.st.unit(id).cloned() else {
        return false;
    };
    let dug_in =
        t.st.features(u.at)
            .iter()
            .filter_map(|f| r.feature(f))
            .any(|x| x.fieldworks);
    if n == 0 {
        return false;
    }
    let left = u.strength.saturating_sub(n);
    let fragile = u.max == 0;
    if let Some(m) = t.st.unit_mut(id) {
        m.strength = left;
    }
    t.ev.push(Event::Loss {
        side: t.side_name(u.side),
        at: u.at.to_string(),
        unit: u.kind.clone(),
        lost: n.min(u.strength.max(1)),
        strength: left,
        fieldworks: dug_in,
    });
    if left == 0 || fragile {
        if let Some(m) = t.st.unit_mut(id) {
            m.strength = 0;
        }
        if let Some(d) = t.st.destroyed.get_mut(by) {
            *d += 1;
        }
        if remove_now {
            destroy(t, id);
        }
        return true;
    }
    false
}

fn destroy(t: &mut Turn<'_, '_, '_>, id: u32) {
    let Some(u) = t.st.unit(id).cloned() else {
        return;
    };
    t.st.units.retain(|x| x.id != id);
    let carried = u.carrying.as_ref().map(|c| c.kind.clone());
    t.ev.push(Event::Destroyed {
        side: t.side_name(u.side),
        at: u.at.to_string(),
        unit: u.kind.clone(),
        carried,
    });
}

/// Retreat a unit one area away from `from` (the unit that caused it), or
/// take a loss if it cannot.
fn retreat(t: &mut Turn<'_, '_, '_>, id: u32, from: Area) {
    let r = t.r;
    let Some(u) = t.st.unit(id).cloned() else {
        return;
    };
    let d0 = t.st.grid.distance(from, u.at);
    let home = t.st.home_row(u.side);
    let mut cands: Vec<Area> =
        t.st.grid
            .neighbours(u.at)
            .into_iter()
            .filter(|a| t.st.grid.distance(from, *a) > d0)
            .filter(|a| t.st.units.iter().all(|o| o.at != *a))
            .filter(|a| may_enter(r, &t.st, &u, *a).is_ok())
            .filter(|a| {
                !t.st
                    .features(*a)
                    .iter()
                    .filter_map(|f| r.feature(f))
                    .any(|x| x.water)
            })
            .collect();
    // Toward the unit's own edge first, then the leftmost (from row 1).
    cands.sort_by_key(|a| ((a.row - home).abs(), a.col));
    match cands.first() {
        Some(to) => {
            let to = *to;
            let river_now = in_river_area(r, &t.st, to);
            if let Some(m) = t.st.unit_mut(id) {
                m.at = to;
                // A retreat is not a move: it leaves wire behind without
                // removing it, and the unit is in the river only if it
                // retreated into one (at a ford).
                m.wire_stuck = false;
                m.in_river = river_now;
                if let Some(c) = m.carrying.as_mut() {
                    c.at = to;
                }
            }
            t.ev.push(Event::Retreat {
                side: t.side_name(u.side),
                unit: u.kind.clone(),
                from: u.at.to_string(),
                to: to.to_string(),
            });
        }
        None => {
            t.ev.push(Event::RetreatBlocked {
                side: t.side_name(u.side),
                unit: u.kind.clone(),
                at: u.at.to_string(),
            });
            let by = 1 - u.side.min(1);
            if t.chance.is_some() {
                apply_losses(t, id, 1, by, true);
            }
        }
    }
}

/// May a unit enter an area (terrain only)?
fn may_enter(r: &Ruleset, st: &State, u: &Unit, a: Area) -> Result<(), String> {
    let s = spec(r, u);
    let feats: Vec<&super::ruleset::TerrainSpec> =
        st.features(a).iter().filter_map(|f| r.feature(f)).collect();
    let river = feats.iter().any(|t| t.river);
    let crossing = feats.iter().any(|t| t.bridge || t.ford);
    if river && !crossing {
        return Err(format!(
            "{a} is a river or stream: cross it only by a bridge or a ford"
        ));
    }
    for t in &feats {
        if !t.only.is_empty()
            && !t
                .only
                .iter()
                .any(|o| *o == s.class || (o == "mountain" && s.mountain))
        {
            return Err(format!("a {} may not enter {} ({a})", s.name, t.name));
        }
    }
    Ok(())
}

/// Phases 3 and 4: one side's units, order by order.
fn moves(
    t: &mut Turn<'_, '_, '_>,
    side: usize,
    lines: &[(usize, String, Cmd)],
) -> Result<(), Rejection> {
    // Per unit this phase: (areas moved, fought, acted otherwise).
    let mut done: Vec<Done> = Vec::new();
    for (n, line, c) in lines {
        // Orders were checked without dice before any was carried out; one
        // that the dice have since made impossible (its path now blocked by
        // a unit that retreated there, say) lapses: the unit does nothing
        // and the report says why. Without dice an error is the mail's.
        let (st, ev, before) = (t.st.clone(), t.ev.len(), done.clone());
        match order(t, side, &mut done, *n, line, c) {
            Ok(Flow::Next) => {}
            Ok(Flow::Stop) => return Ok(()),
            Err(e) if t.chance.is_some() => {
                t.st = st;
                t.ev.truncate(ev);
                done = before;
                t.ev.push(Event::Lapsed {
                    side: t.side_name(side),
                    order: Some(line.trim().to_string()),
                    at: None,
                    why: e.message,
                });
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Per unit this phase: (id, areas moved, fought, acted otherwise).
type Done = (u32, u32, bool, bool);

/// What the phase does after one order.
enum Flow {
    Next,
    /// The game is over.
    Stop,
}

fn entry(done: &mut Vec<Done>, id: u32) -> usize {
    if let Some(p) = done.iter().position(|d| d.0 == id) {
        p
    } else {
        done.push((id, 0, false, false));
        done.len() - 1
    }
}

/// The unit an order names: the non-general in the area, or a general.
pub(crate) fn own(st: &State, side: usize, a: Area) -> Option<Unit> {
    st.units
        .iter()
        .filter(|u| u.at == a && u.side == side)
        .min_by_key(|u| u32::from(u.kind == "general"))
        .cloned()
}

/// Carry out one order line of the moving side.
fn order(
    t: &mut Turn<'_, '_, '_>,
    side: usize,
    done: &mut Vec<Done>,
    n: usize,
    line: &str,
    c: &Cmd,
) -> Result<Flow, Rejection> {
    match c {
        Cmd::Pass | Cmd::Initiative(..) => Ok(Flow::Next),
        Cmd::Fire(..) => fire(t, side, done, n, line, c),
        Cmd::Move(..) => move_units(t, side, done, n, line, c),
        Cmd::RemoveWire(..) => remove_wire(t, side, done, n, line, c),
        Cmd::Load(..) | Cmd::Limber(..) => load(t, side, done, n, line, c),
        Cmd::Unload(..) | Cmd::Unlimber(..) => unload(t, side, done, n, line, c),
    }
}

/// FIRE: a unit battles an area.
fn fire(
    t: &mut Turn<'_, '_, '_>,
    side: usize,
    done: &mut Vec<Done>,
    n: usize,
    line: &str,
    c: &Cmd,
) -> Result<Flow, Rejection> {
    let Cmd::Fire(from, target) = c else {
        return Ok(Flow::Next);
    };
    let r = t.r;
    let here = |m: String| Rejection::at(n, line, m);
    let Some(u) = own(&t.st, side, *from) else {
        if t.chance.is_some() && was_removed(t, *from) {
            return Ok(Flow::Next);
        }
        return Err(here(format!("you have no unit at {from}")));
    };
    let s = spec(r, &u);
    if s.combat.is_empty() {
        return Err(here(format!(
            "a {} conducts no combat in this phase",
            s.name
        )));
    }
    let i = entry(done, u.id);
    if done[i].2 {
        return Err(here(format!(
            "the unit at {from} may conduct a Combat only once each turn"
        )));
    }
    if done[i].3 {
        return Err(here(format!(
            "the unit at {from} has already acted this turn"
        )));
    }
    let allowance = if u.irregular {
        s.irregular_move_fire.or(s.move_fire)
    } else {
        s.move_fire
    };
    match allowance {
        None => {
            return Err(here(format!(
                "a {} may move or conduct a Combat, not both",
                s.name
            )))
        }
        Some(m) if done[i].1 > m => {
            return Err(here(format!(
                "a {} may move {m} area(s) and conduct a Combat; it moved {}",
                s.name, done[i].1
            )))
        }
        _ => {}
    }
    if in_river_or_water(r, &t.st, &u) {
        return Err(here(format!(
            "the unit at {from} is in a river or on water and may not take part in Combat"
        )));
    }
    let Some(tg) = t.st.unit_at(*target).filter(|x| x.side != side).cloned() else {
        if t.chance.is_some() && was_removed(t, *target) {
            done[i].2 = true;
            t.ev.push(Event::Lapsed {
                side: t.side_name(side),
                order: None,
                at: Some(from.to_string()),
                why: format!("no enemy unit at {target} any more"),
            });
            return Ok(Flow::Next);
        }
        return Err(here(format!("no enemy unit at {target}")));
    };
    if in_river_or_water(r, &t.st, &tg) {
        return Err(here(format!(
            "the unit at {target} is in a river or on water and may not take part in Combat"
        )));
    }
    let dice = combat_dice(r, &t.st, &u, &tg).map_err(here)?;
    done[i].2 = true;
    let faces: Vec<String> = (0..dice)
        .map(|_| {
            let v = t.roll();
            r.face(v)
        })
        .collect();
    let (losses, flag) = resolve_faces(t, &tg, &faces);
    t.ev.push(Event::Fire {
        phase: "move".into(),
        side: t.side_name(side),
        from: u.at.to_string(),
        at: tg.at.to_string(),
        unit: u.kind.clone(),
        target: tg.kind.clone(),
        dice,
        faces: faces.clone(),
    });
    apply_losses(t, tg.id, losses, side, true);
    if flag && t.st.unit(tg.id).is_some() {
        retreat(t, tg.id, u.at);
    }
    check_victory(t);
    if t.st.over {
        return Ok(Flow::Stop);
    }
    Ok(Flow::Next)
}

/// MOVE: a unit moves along a path of areas.
fn move_units(
    t: &mut Turn<'_, '_, '_>,
    side: usize,
    done: &mut Vec<Done>,
    n: usize,
    line: &str,
    c: &Cmd,
) -> Result<Flow, Rejection> {
    let Cmd::Move(path) = c else {
        return Ok(Flow::Next);
    };
    let r = t.r;
    let here = |m: String| Rejection::at(n, line, m);
    let from = path[0];
    let Some(u) = own(&t.st, side, from) else {
        if t.chance.is_some() && was_removed(t, from) {
            return Ok(Flow::Next);
        }
        return Err(here(format!("you have no unit at {from}")));
    };
    let i = entry(done, u.id);
    if done[i].1 > 0 || done[i].2 || done[i].3 {
        return Err(here(format!(
            "the unit at {from} has already moved or acted this turn"
        )));
    }
    let steps = &path[1..];
    check_move(r, &t.st, &u, steps).map_err(here)?;
    let to = *steps.last().unwrap_or(&from);
    done[i].1 = steps.len() as u32;
    // In the river: a river area crossed at a ford, not on a bridge
    // ("When using a ford in a river a Unit moves into the river on
    // turn A and stops, then moves 1 grid area out of the river on
    // turn B"). A bridge is not in the river.
    let river_now = in_river_area(r, &t.st, to);
    let wire_now =
        t.st.features(to)
            .iter()
            .filter_map(|f| r.feature(f))
            .any(|x| x.wire);
    if let Some(m) = t.st.unit_mut(u.id) {
        m.at = to;
        m.in_river = river_now;
        m.wire_stuck = wire_now && !spec(r, &u).ignores_wire;
        if let Some(c) = m.carrying.as_mut() {
            c.at = to;
        }
    }
    t.ev.push(Event::Move {
        side: t.side_name(side),
        unit: u.kind.clone(),
        path: path.iter().map(Area::to_string).collect(),
    });
    let stop = stop_reason(r, &t.st, to);
    if let Some(why) = stop {
        t.ev.push(Event::Stop {
            side: t.side_name(side),
            at: to.to_string(),
            why,
        });
    }
    let mines =
        t.st.features(to)
            .iter()
            .filter_map(|f| r.feature(f))
            .map(|x| x.mines)
            .max()
            .unwrap_or(0);
    if mines > 0 {
        let moved = t.st.unit(u.id).cloned().unwrap_or(u.clone());
        let faces: Vec<String> = (0..mines)
            .map(|_| {
                let v = t.roll();
                r.face(v)
            })
            .collect();
        let class = spec(r, &moved).class.clone();
        let losses = if t.chance.is_some() {
            faces.iter().filter(|f| r.face_hits(f, &class)).count() as u32
        } else {
            0
        };
        t.ev.push(Event::Minefield {
            side: t.side_name(side),
            at: to.to_string(),
            unit: moved.kind.clone(),
            faces,
        });
        apply_losses(t, moved.id, losses, 1 - side.min(1), true);
        check_victory(t);
        if t.st.over {
            return Ok(Flow::Stop);
        }
    }
    Ok(Flow::Next)
}

/// REMOVE-WIRE: a unit clears the wire where it stands.
fn remove_wire(
    t: &mut Turn<'_, '_, '_>,
    side: usize,
    done: &mut Vec<Done>,
    n: usize,
    line: &str,
    c: &Cmd,
) -> Result<Flow, Rejection> {
    let Cmd::RemoveWire(a) = c else {
        return Ok(Flow::Next);
    };
    let here = |m: String| Rejection::at(n, line, m);
    let Some(u) = own(&t.st, side, *a) else {
        return Err(here(format!("you have no unit at {a}")));
    };
    if !t.st.has(*a, "wire") {
        return Err(here(format!("there is no barbed wire at {a}")));
    }
    let i = entry(done, u.id);
    if done[i].1 > 0 || done[i].2 || done[i].3 {
        return Err(here(format!(
            "the unit at {a} has already moved or acted this turn"
        )));
    }
    done[i].3 = true;
    if let Some(v) = t.st.terrain.get_mut(a) {
        v.retain(|f| f != "wire");
    }
    if t.st.terrain.get(a).is_some_and(Vec::is_empty) {
        t.st.terrain.remove(a);
    }
    // The wire is gone for everyone: a general that entered it with
    // the unit is free too.
    for m in t.st.units.iter_mut().filter(|m| m.at == *a) {
        m.wire_stuck = false;
    }
    t.ev.push(Event::WireRemoved {
        side: t.side_name(side),
        at: a.to_string(),
    });
    Ok(Flow::Next)
}

/// LOAD and LIMBER: a transport takes a unit (a gun) aboard.
fn load(
    t: &mut Turn<'_, '_, '_>,
    side: usize,
    done: &mut Vec<Done>,
    n: usize,
    line: &str,
    c: &Cmd,
) -> Result<Flow, Rejection> {
    let (Cmd::Load(ta, ua) | Cmd::Limber(ta, ua)) = c else {
        return Ok(Flow::Next);
    };
    let r = t.r;
    let here = |m: String| Rejection::at(n, line, m);
    let limber = matches!(c, Cmd::Limber(..));
    let Some(tr) = own(&t.st, side, *ta).filter(|x| spec(r, x).transport) else {
        return Err(here(format!("you have no transport at {ta}")));
    };
    let Some(cu) = own(&t.st, side, *ua).filter(|x| x.id != tr.id) else {
        return Err(here(format!("you have no unit at {ua}")));
    };
    let cs = spec(r, &cu);
    if limber && !cs.towed || !limber && !cs.carried {
        return Err(here(format!(
            "a {} cannot be {} (loaded: infantry, machine guns, mortars; limbered: artillery)",
            cs.name,
            if limber { "limbered" } else { "loaded" }
        )));
    }
    if tr.carrying.is_some() {
        return Err(here(format!(
            "the transport at {ta} already carries a unit"
        )));
    }
    if cu.wire_stuck && !cs.ignores_wire {
        // "Units must remove the barbed wire next turn before they
        // can move again": being loaded moves the unit.
        return Err(here(format!(
                "the unit at {ua} must remove the barbed wire (REMOVE-WIRE {ua}) before it can move again"
            )));
    }
    if t.st.grid.distance(*ta, *ua) > 1 {
        return Err(here(format!("{ua} is not next to the transport at {ta}")));
    }
    let i = entry(done, tr.id);
    let j = entry(done, cu.id);
    if done[i] != (tr.id, 0, false, false) || done[j] != (cu.id, 0, false, false) {
        return Err(here(
            "the transport and the unit must not have moved or acted this turn".into(),
        ));
    }
    done[i].3 = true;
    done[j].3 = true;
    t.st.units.retain(|x| x.id != cu.id);
    let mut carried = cu.clone();
    carried.at = *ta;
    if let Some(m) = t.st.unit_mut(tr.id) {
        m.carrying = Some(Box::new(carried));
    }
    t.ev.push({
        let (side, at, unit) = (t.side_name(side), ta.to_string(), cu.kind.clone());
        if limber {
            Event::Limber { side, at, unit }
        } else {
            Event::Load { side, at, unit }
        }
    });
    Ok(Flow::Next)
}

/// UNLOAD and UNLIMBER: a transport sets a unit (a gun) down.
fn unload(
    t: &mut Turn<'_, '_, '_>,
    side: usize,
    done: &mut Vec<Done>,
    n: usize,
    line: &str,
    c: &Cmd,
) -> Result<Flow, Rejection> {
    let (Cmd::Unload(ta, to) | Cmd::Unlimber(ta, to)) = c else {
        return Ok(Flow::Next);
    };
    let r = t.r;
    let here = |m: String| Rejection::at(n, line, m);
    let limber = matches!(c, Cmd::Unlimber(..));
    let Some(tr) = own(&t.st, side, *ta).filter(|x| spec(r, x).transport) else {
        return Err(here(format!("you have no transport at {ta}")));
    };
    let Some(cu) = tr.carrying.as_deref().cloned() else {
        return Err(here(format!("the transport at {ta} carries nothing")));
    };
    if limber != spec(r, &cu).towed {
        return Err(here(format!(
            "use {} for a {}",
            if spec(r, &cu).towed {
                "UNLIMBER"
            } else {
                "UNLOAD"
            },
            spec(r, &cu).name
        )));
    }
    if *to == *ta {
        // "only one Unit may occupy a grid area at a time": the
        // transport's exception covers loading and unloading, not
        // staying; the unit goes to an area next to it.
        return Err(here(format!(
                "{to} is the transport's own area: a unit is {} into a free area next to the transport (one unit per area)",
                if limber { "unlimbered" } else { "unloaded" }
            )));
    }
    if t.st.grid.distance(*ta, *to) > 1 || t.st.units.iter().any(|x| x.at == *to && x.id != tr.id) {
        return Err(here(format!(
            "{to} is not a free area next to the transport"
        )));
    }
    may_enter(r, &t.st, &cu, *to).map_err(here)?;
    let i = entry(done, tr.id);
    if done[i].1 > 0 || done[i].2 || done[i].3 {
        return Err(here(format!(
            "the transport at {ta} has already moved or acted this turn"
        )));
    }
    done[i].3 = true;
    let mut placed = cu.clone();
    placed.at = *to;
    placed.in_river = in_river_area(r, &t.st, *to);
    placed.wire_stuck = false;
    if let Some(m) = t.st.unit_mut(tr.id) {
        m.carrying = None;
    }
    done.push((placed.id, 0, false, true));
    t.st.units.push(placed);
    let (side, at, unit) = (t.side_name(side), to.to_string(), cu.kind.clone());
    t.ev.push(if limber {
        Event::Unlimber { side, at, unit }
    } else {
        Event::Unload { side, at, unit }
    });
    Ok(Flow::Next)
}

/// Did an earlier order's dice empty this area (so a later order lapses)?
fn was_removed(t: &Turn<'_, '_, '_>, a: Area) -> bool {
    let at = a.to_string();
    t.ev.iter().any(|e| match e {
        Event::Destroyed { at: a, .. } | Event::Retreat { from: a, .. } => *a == at,
        _ => false,
    })
}

fn in_river_or_water(r: &Ruleset, st: &State, u: &Unit) -> bool {
    in_river_area(r, st, u.at)
        || st
            .features(u.at)
            .iter()
            .filter_map(|f| r.feature(f))
            .any(|t| t.water)
}

/// A river or stream area without a bridge: a unit there is in the river.
fn in_river_area(r: &Ruleset, st: &State, a: Area) -> bool {
    let feats: Vec<&super::ruleset::TerrainSpec> =
        st.features(a).iter().filter_map(|f| r.feature(f)).collect();
    feats.iter().any(|t| t.river) && !feats.iter().any(|t| t.bridge)
}

/// Why entering an area ends a move, if it does.
fn stop_reason(r: &Ruleset, st: &State, a: Area) -> Option<String> {
    let feats: Vec<&super::ruleset::TerrainSpec> =
        st.features(a).iter().filter_map(|f| r.feature(f)).collect();
    let bridge = feats.iter().any(|t| t.bridge);
    feats
        .iter()
        .find(|t| t.stop && !(t.river && bridge))
        .map(|t| t.name.clone())
}

/// Check a move's steps for a unit.
fn check_move(r: &Ruleset, st: &State, u: &Unit, steps: &[Area]) -> Result<(), String> {
    let s = spec(r, u);
    if s.r#move == 0 {
        return Err(format!("a {} does not move", s.name));
    }
    if u.fired {
        return Err(format!(
            "the artillery at {} fired this turn and may not move",
            u.at
        ));
    }
    if u.wire_stuck && !s.ignores_wire {
        return Err(format!(
            "the unit at {} must remove the barbed wire (REMOVE-WIRE {}) before it can move again",
            u.at, u.at
        ));
    }
    let feats = |a: Area| -> Vec<&super::ruleset::TerrainSpec> {
        st.features(a).iter().filter_map(|f| r.feature(f)).collect()
    };
    let on_road = |a: Area| feats(a).iter().any(|t| t.road);
    let all_road = on_road(u.at) && steps.iter().all(|a| on_road(*a));
    let mut max = s.r#move + u32::from(all_road);
    let landing = feats(u.at).iter().any(|t| t.water);
    if landing {
        max = max.min(1);
    }
    if u.in_river || in_river_area(r, st, u.at) {
        // Ford, turn B: one area out of the river.
        max = max.min(1);
    }
    let sand = std::iter::once(u.at)
        .chain(steps.iter().copied())
        .any(|a| feats(a).iter().any(|t| t.max_move.is_some()));
    if sand {
        let m = std::iter::once(u.at)
            .chain(steps.iter().copied())
            .flat_map(|a| feats(a).into_iter().filter_map(|t| t.max_move))
            .min()
            .unwrap_or(max);
        max = max.min(m);
    }
    if steps.len() as u32 > max {
        return Err(format!(
            "a {} may move {max} area(s) here; this move is {}",
            s.name,
            steps.len()
        ));
    }
    let mut prev = u.at;
    for (i, a) in steps.iter().enumerate() {
        if st.grid.distance(prev, *a) != 1 {
            return Err(format!(
                "{a} is not next to {prev} (moves go through edges, not corners)"
            ));
        }
        may_enter(r, st, u, *a)?;
        // "With the exception of Generals, only one Unit may occupy a grid
        // area"; "Units may not move through grid areas that are already
        // occupied by other Units unless the other Units are Generals."
        let others: Vec<&Unit> = st
            .units
            .iter()
            .filter(|o| o.at == *a && o.id != u.id)
            .collect();
        // A general stacks only with its own side: an area holding an
        // enemy unit, general or not, is never entered nor passed through.
        if let Some(e) = others.iter().find(|o| o.side != u.side) {
            return Err(format!("{a} is occupied by an enemy {}", spec(r, e).name));
        }
        // A General is a Unit too: he may end his move with one of his own
        // side's units, but passes only through areas that are empty or hold
        // generals ("unless the other Units are Generals").
        let last = i + 1 == steps.len();
        let ok = if s.general && last {
            others.iter().all(|o| !spec(r, o).general)
        } else {
            others.iter().all(|o| spec(r, o).general)
        };
        if !ok {
            return Err(format!("{a} is occupied"));
        }
        if !last {
            if let Some(why) = stop_reason(r, st, *a) {
                return Err(format!("a unit must stop when it enters {why} ({a})"));
            }
            if feats(*a).iter().any(|t| t.mines > 0) {
                return Err(format!("a unit must stop when it enters a minefield ({a})"));
            }
        }
        prev = *a;
    }
    Ok(())
}

/// Dice a unit throws at a target in the move phase's combat, or why not.
fn combat_dice(r: &Ruleset, st: &State, u: &Unit, tg: &Unit) -> Result<u32, String> {
    combat_terms(r, st, u, tg).map(|t| total(&t))
}

/// The terms of a unit's dice at a target in the move phase's combat (the
/// table's dice by range first, then each modifier), or why it cannot fire.
pub fn combat_terms(r: &Ruleset, st: &State, u: &Unit, tg: &Unit) -> Result<Vec<DiceTerm>, String> {
    let s = spec(r, u);
    let ts = spec(r, tg);
    let range = st.grid.distance(u.at, tg.at);
    if let Some(m) = s.min_range {
        if range < m as i32 {
            return Err(format!(
                "a {} may not fire at a range less than {m} ({} is {range})",
                s.name, tg.at
            ));
        }
    }
    let base = s
        .combat
        .get((range as usize).wrapping_sub(1))
        .copied()
        .unwrap_or(0);
    if range < 1 || base == 0 {
        return Err(format!(
            "{} is out of range of the {} at {} (range {range}; it reaches {})",
            tg.at,
            s.name,
            u.at,
            s.combat.len()
        ));
    }
    line_of_sight(r, st, u, tg.at)?;
    let mut terms = vec![(format!("{base} at range {range}"), i64::from(base))];
    // The best cover of the target's area (hills count below, once).
    let cover = st
        .features(tg.at)
        .iter()
        .filter_map(|f| r.feature(f))
        .filter(|t| t.hill == 0)
        .max_by_key(|t| t.cover)
        .filter(|t| t.cover > 0);
    if let Some(t) = cover {
        terms.push((format!("target in {}", t.name), -i64::from(t.cover)));
    }
    if hill(r, st, tg.at) > 0 && !same_hill(r, st, u.at, tg.at) {
        terms.push(("target on a hill".into(), -1));
    }
    if r.general_bonus.contains(&s.class)
        && st
            .units
            .iter()
            .any(|o| o.at == u.at && o.id != u.id && o.side == u.side && spec(r, o).general)
    {
        terms.push(("a general in its area".into(), 1));
    }
    if let Some(p) = &r.armour_penalty {
        let n = p.against.get(&ts.class).copied().unwrap_or(0);
        if p.firers.contains(&s.class) && !s.no_penalty && n > 0 {
            terms.push((format!("small arms against the {}", ts.name), -i64::from(n)));
        }
    }
    if terms.iter().map(|t| t.1).sum::<i64>() <= 0 {
        return Err(format!(
            "the {} at {} would throw no dice at {}",
            s.name, u.at, tg.at
        ));
    }
    Ok(terms)
}

/// After a side's move phase: the other side's, or the next turn.
fn end_of_move(t: &mut Turn<'_, '_, '_>, side: usize, second: bool) {
    check_victory(t);
    if t.st.over {
        return;
    }
    if second {
        t.st.turn += 1;
        for u in &mut t.st.units {
            u.fired = false;
        }
        if let Some(limit) = t.st.turns {
            if t.st.turn > limit {
                let (a, b) = (t.st.destroyed[0], t.st.destroyed[1]);
                t.st.over = true;
                t.st.winner = Some(match a.cmp(&b) {
                    std::cmp::Ordering::Greater => t.side_name(0),
                    std::cmp::Ordering::Less => t.side_name(1),
                    std::cmp::Ordering::Equal => String::new(),
                });
                t.ev.push(Event::GameOver {
                    winner: t.st.winner.clone(),
                    reason: "the last turn is over".into(),
                    destroyed: t.st.destroyed.clone(),
                });
                return;
            }
        }
        t.st.step = Step::Artillery;
    } else {
        t.st.step = Step::Move {
            side: 1 - side.min(1),
            second: true,
        };
    }
}

fn check_victory(t: &mut Turn<'_, '_, '_>) {
    if t.st.over {
        return;
    }
    for s in 0..2 {
        let none_left = !t.st.units.iter().any(|u| u.side == 1 - s);
        if t.st.destroyed[s] >= t.st.victory || none_left {
            t.st.over = true;
            t.st.winner = Some(t.side_name(s));
            t.ev.push(Event::GameOver {
                winner: Some(t.side_name(s)),
                reason: "enemy units destroyed".into(),
                destroyed: t.st.destroyed.clone(),
            });
            return;
        }
    }
}
