//! One move of a measured game. Both sides write orders; the judge checks
//! them all (no dice) and then carries out the move in this order
//! (docs/rules/charge.md, "The sequence of a move"):
//!
//! 1. forced moves (retire, break off, rout, exhaustion) and charges, with
//!    the firing-at-chargers die in the move contact is made;
//! 2. every other unit's movement, at once (a unit whose ground would
//!    overlap another's stays where it was);
//! 3. artillery, all batteries at once;
//! 4. musketry, with the who-fires-first dice between units firing at each
//!    other;
//! 5. melee, one move of it for every pair in contact;
//! 6. morale: the 50% rule, then a test for every unit that lost figures
//!    or whose morale is bad.

use super::events::{Charge, Combat, CounterBattery, Event, FireAtChargers, VolleyDie};
use super::geometry::{self as g, fmt_len, Dist2, Footprint, Pt, PER_INCH};
use super::ruleset::{band_of, Band, Ruleset, Troop};
use super::state::{self, figures, footprint, gun_points, shape, Forced, Melee, State, Unit};
use adjutant_rules::{Chance, Orders, Rejection};
use orders::{parse, Line, Step};
use std::collections::{BTreeMap, BTreeSet};

// Procedures added to the move: the General's rally, houses under fire,
// barges on the water, heavy cavalry riding down infantry, the second move
// of melee (their own files beside this one); the order language; the
// procedures' impl.
mod general;
mod houses;
pub mod orders;
mod pinning;
pub mod procedures;
mod ride_down;
mod water;

pub use crate::Outcome;

/// What a unit fires or charges this move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Fire(String),
    Canister(String),
    PickOff(String),
    Charge {
        target: String,
        /// Where the charger ends, in contact.
        front: Pt,
        facing: i32,
        /// Charge distance covered (sixteenths).
        dist: i64,
        /// The face of the target struck: front, right, rear, left.
        face: usize,
        impetus: bool,
    },
}

/// A unit's checked orders for this move.
#[derive(Debug, Clone)]
pub struct Plan {
    pub line: usize,
    pub text: String,
    pub unit: String,
    pub steps: Vec<Step>,
    /// The unit as it stands after its movement steps.
    pub end: Unit,
    /// Ground it passes over (the swept rectangles of its steps).
    pub sweep: Vec<Footprint>,
    pub advanced: bool,
    pub moved: bool,
    /// Distances of its steps, for the report.
    pub measured: Vec<String>,
    pub action: Option<Action>,
    pub battle_move: bool,
    pub enters_ford: Option<u32>,
    pub limber: Option<String>,
}

/// Who must send orders: each side with a unit free to take them.
#[must_use]
pub fn needs(st: &State) -> Vec<usize> {
    if st.over {
        return Vec::new();
    }
    (0..st.sides.len())
        .filter(|s| {
            st.units
                .iter()
                .any(|u| u.side == *s && orderable(u).is_ok())
        })
        .collect()
}

/// Can the unit be given orders this move, or why not.
pub fn orderable(u: &Unit) -> Result<(), String> {
    if u.broken {
        return Err(format!(
            "{} is broken (the 50% rule) and plays no further part",
            u.id
        ));
    }
    if let Some(m) = &u.melee {
        return Err(format!("{} is in melee with {}", u.id, m.with));
    }
    if let Some(n) = u.rallying {
        return Err(format!(
            "{} is being rallied by its General: fit for action in {n} more move{}",
            u.id,
            if n == 1 { "" } else { "s" }
        ));
    }
    match &u.forced {
        Some(Forced::Halt) => {}
        Some(Forced::Retire) => {
            return Err(format!(
                "{} must retire this move (bad morale or a lost melee)",
                u.id
            ))
        }
        Some(Forced::BreakOff) => {
            return Err(format!(
                "{} breaks off to the rear this move (bad morale in melee)",
                u.id
            ))
        }
        Some(Forced::Rout) => {
            return Err(format!(
                "{} moves directly to the rear (the 50% rule)",
                u.id
            ))
        }
        Some(Forced::Exhausted { retire, .. }) if *retire > 0 => {
            return Err(format!(
                "{} retires after a drawn melee ({retire} more moves)",
                u.id
            ))
        }
        Some(Forced::Exhausted { .. }) | None => {}
    }
    if u.crossing > 0 {
        return Err(format!(
            "{} is crossing a ford ({} more moves)",
            u.id, u.crossing
        ));
    }
    Ok(())
}

pub(crate) fn troop<'a>(r: &'a Ruleset, u: &Unit) -> &'a Troop {
    r.troop(&u.troop)
        .or_else(|| r.troops.values().next())
        .expect("a ruleset has troop types")
}

/// A fraction of a move used, exact.
#[derive(Debug, Clone, Copy)]
struct Frac {
    n: i128,
    d: i128,
}

impl Frac {
    fn zero() -> Frac {
        Frac { n: 0, d: 1 }
    }
    fn add(self, n: i128, d: i128) -> Frac {
        if d <= 0 {
            return self;
        }
        let (nn, dd) = (self.n * d + n * self.d, self.d * d);
        let g = gcd(nn.abs(), dd).max(1);
        Frac {
            n: nn / g,
            d: dd / g,
        }
    }
    fn at_most(self, n: i128, d: i128) -> bool {
        self.n * d <= n * self.d
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The normal move of a unit in its formation (sixteenths).
fn allowance(t: &Troop, formation: &str, firing: bool) -> i64 {
    if firing && formation == "line" {
        if let Some(m) = t.moves.get("firing") {
            return *m;
        }
    }
    t.moves.get(formation).copied().unwrap_or(0)
}

/// Percent of the move allowed over this ground, and what set it.
fn ground_percent(
    r: &Ruleset,
    st: &State,
    t: &Troop,
    sweep: &Footprint,
    from: Pt,
    to: Pt,
) -> (u32, String) {
    if let Some(p) = water::percent(st, t, sweep, from, to) {
        return p;
    }
    let mut pct = 100;
    let mut why = String::new();
    let poly = sweep.polygon();
    for f in &st.terrain {
        let Some(spec) = r.terrain.get(&f.kind) else {
            continue;
        };
        if spec.line
            || f.kind == "road"
            || f.kind == "river"
            || f.kind == "ford"
            || f.kind == "hill"
        {
            continue;
        }
        if geo::Intersects::intersects(&poly, &f.polygon()) {
            let p = spec.move_percent(t);
            if p < pct {
                pct = p;
                why = spec.name.to_lowercase();
            }
        }
    }
    let (a, b) = (st.level(from), st.level(to));
    if b > a {
        if let Some(u) = r.terrain.get("hill").and_then(|h| h.uphill) {
            if u < pct {
                pct = u;
                why = "uphill".into();
            }
        }
    }
    (pct, why)
}

/// Why a unit's ground may not be here (terrain it may not enter, lines it
/// may not cross, the table's edge), checked for the swept ground.
fn ground_refusal(
    r: &Ruleset,
    st: &State,
    t: &Troop,
    sweep: &Footprint,
    from: Pt,
    to: Pt,
) -> Option<String> {
    if let Some(decided) = water::refusal(st, t, sweep) {
        return decided;
    }
    let poly = sweep.polygon();
    if !st
        .terrain
        .iter()
        .any(|f| f.burning.is_some() && g::in_polygon(&f.polygon(), from))
    {
        if let Some(why) = houses::ground_refusal(st, &poly) {
            return Some(why);
        }
    }
    for f in &st.terrain {
        let Some(spec) = r.terrain.get(&f.kind) else {
            continue;
        };
        if spec.line {
            if spec.move_percent(t) == 0 && geo::Intersects::intersects(&poly, &f.polyline()) {
                return Some(format!(
                    "a {} may not cross the {}",
                    t.name.to_lowercase(),
                    spec.name.to_lowercase()
                ));
            }
            continue;
        }
        if f.kind == "road" {
            continue;
        }
        if f.kind == "river" {
            if geo::Intersects::intersects(&poly, &f.polygon()) {
                let at_ford = st.terrain.iter().any(|fd| {
                    fd.kind == "ford"
                        && (g::crosses(from, to, &fd.polygon())
                            || g::in_polygon(&fd.polygon(), from))
                });
                if !at_ford {
                    return Some("the river may be crossed only at a ford".into());
                }
            }
            continue;
        }
        if spec.move_percent(t) == 0 && geo::Intersects::intersects(&poly, &f.polygon()) {
            let name = if f.name.is_empty() {
                spec.name.to_lowercase()
            } else {
                f.name.clone()
            };
            return Some(format!("a {} may not enter {name}", t.name.to_lowercase()));
        }
    }
    if !st.on_table(sweep) {
        return Some("that would take it off the table".into());
    }
    None
}

/// Check one side's orders against the position: the plans, or the first
/// refusal.
pub fn check(r: &Ruleset, st: &State, side: usize, text: &str) -> Result<Vec<Plan>, Rejection> {
    let parsed = parse(text)?;
    let mut plans: Vec<Plan> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (n, line, l) in &parsed {
        let (n, line) = (*n, line.as_str());
        match l {
            Line::Pass => {}
            Line::Standing { id, .. } => {
                let u = st
                    .unit(id)
                    .ok_or_else(|| Rejection::at(n, line, format!("there is no unit {id}")))?;
                if u.side != side {
                    return Err(Rejection::at(n, line, format!("{id} is not yours")));
                }
            }
            Line::Unit { id, steps } => {
                let u = st.unit(id).ok_or_else(|| {
                    Rejection::at(
                        n,
                        line,
                        format!(
                            "there is no unit {id} (yours: {})",
                            st.units
                                .iter()
                                .filter(|u| u.side == side)
                                .map(|u| u.id.clone())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
                if u.side != side {
                    return Err(Rejection::at(n, line, format!("{} is not yours", u.id)));
                }
                if !seen.insert(u.id.clone()) {
                    return Err(Rejection::at(
                        n,
                        line,
                        format!("{} has orders on an earlier line", u.id),
                    ));
                }
                orderable(u).map_err(|m| Rejection::at(n, line, m))?;
                let p = plan(r, st, u, steps, &plans).map_err(|m| Rejection::at(n, line, m))?;
                plans.push(Plan {
                    line: n,
                    text: line.to_string(),
                    ..p
                });
            }
        }
    }
    // One charge per target from one side (a judgement: two units would
    // need the melee pairings of both at once).
    let mut charged: BTreeMap<String, &Plan> = BTreeMap::new();
    for p in &plans {
        if let Some(Action::Charge { target, .. }) = &p.action {
            if let Some(o) = charged.get(target) {
                return Err(Rejection::at(
                    p.line,
                    &p.text,
                    format!(
                        "{target} is already charged by {} this move (one charge per target)",
                        o.unit
                    ),
                ));
            }
            charged.insert(target.clone(), p);
        }
    }
    Ok(plans)
}

/// What a unit's steps have done so far, as `plan` walks them.
struct Draft {
    cur: Unit,
    used: Frac,
    sweep: Vec<Footprint>,
    measured: Vec<String>,
    action: Option<Action>,
    advanced: bool,
    moved: bool,
    enters_ford: Option<u32>,
    limber: Option<String>,
}

/// What every step of a unit's orders shares: the position, the unit, its
/// troop type and all its steps.
struct Ctx<'a> {
    r: &'a Ruleset,
    st: &'a State,
    u: &'a Unit,
    t: &'a Troop,
    steps: &'a [Step],
    firing: bool,
}

fn plan(
    r: &Ruleset,
    st: &State,
    u: &Unit,
    steps: &[Step],
    earlier: &[Plan],
) -> Result<Plan, String> {
    let t = troop(r, u);
    let firing = steps
        .iter()
        .any(|s| matches!(s, Step::FireAt(_) | Step::PickOff(_)));
    let c = Ctx {
        r,
        st,
        u,
        t,
        steps,
        firing,
    };
    let mut d = Draft {
        cur: u.clone(),
        used: Frac::zero(),
        sweep: Vec::new(),
        measured: Vec::new(),
        action: None,
        advanced: false,
        moved: false,
        enters_ford: None,
        limber: None,
    };
    for (k, s) in steps.iter().enumerate() {
        step_refusal(&c, &d, k, s)?;
        plan_step(&c, &mut d, s)?;
    }
    let battle_move = !d.used.at_most(1, 1);
    if battle_move {
        battle_move_check(&c, &mut d)?;
    }
    finish(
        r,
        st,
        u,
        d.cur,
        steps,
        d.sweep,
        d.measured,
        d.action,
        d.advanced,
        d.moved,
        battle_move,
        d.enters_ford,
        d.limber,
        earlier,
    )
}

/// A step the unit may not take at all, whatever the ground.
fn step_refusal(c: &Ctx<'_>, d: &Draft, k: usize, s: &Step) -> Result<(), String> {
    let u = c.u;
    let bad = u.bad_morale.is_some() || u.forced == Some(Forced::Halt);
    let exhausted_rest = matches!(u.forced, Some(Forced::Exhausted { .. }));
    if s.is_action() && k + 1 != c.steps.len() {
        return Err(format!("{} must be the last step", s.canonical()));
    }
    if d.enters_ford.is_some() {
        return Err("the move ends in the ford (a ford takes moves to cross)".into());
    }
    if u.forced == Some(Forced::Halt) && !matches!(s, Step::Hold) {
        return Err(format!(
            "{} must halt this move, with no firing (bad morale)",
            u.id
        ));
    }
    if bad
        && matches!(
            s,
            Step::Forward(_)
                | Step::FireAt(_)
                | Step::Canister(_)
                | Step::PickOff(_)
                | Step::Charge(_)
        )
    {
        return Err(format!(
            "{} has bad morale: it may not advance, fire or charge until it rallies",
            u.id
        ));
    }
    if exhausted_rest && matches!(s, Step::Charge(_)) {
        return Err(format!(
            "{} is resting after a drawn melee and may take no offensive action",
            u.id
        ));
    }
    if let Some(why) = general::step_refusal(c.r, c.st, u, s, c.steps) {
        return Err(why);
    }
    Ok(())
}

/// One step of a unit's orders, measured and checked against the ground.
fn plan_step(c: &Ctx<'_>, d: &mut Draft, s: &Step) -> Result<(), String> {
    match s {
        Step::Rally(x) => {
            d.measured.push(general::rally_check(c.r, c.st, c.u, x)?);
            d.moved = true;
        }
        Step::Hold => {
            if c.steps.len() != 1 {
                return Err("HOLD is the whole order for the move".into());
            }
        }
        Step::Forward(n) | Step::Back(n) => step_straight(c, d, *n, matches!(s, Step::Forward(_)))?,
        Step::Wheel(a) => step_wheel(c, d, *a)?,
        Step::About => {
            let shp = shape(c.t, &d.cur);
            d.cur.front = g::offset(d.cur.front, i64::from(d.cur.facing), -shp.depth, 0);
            d.cur.facing = g::norm_deg(i64::from(d.cur.facing) + 180);
            d.used = d.used.add(1, 2);
            d.measured.push("about face (half a move)".into());
            d.sweep.push(footprint(c.r, &d.cur));
            d.moved = true;
        }
        Step::Form(f) => step_form(c, d, f)?,
        Step::Limber | Step::Unlimber => step_limber(c, d, matches!(s, Step::Limber))?,
        Step::FireAt(x) | Step::Canister(x) | Step::PickOff(x) => step_fire(c, d, s, x)?,
        Step::Charge(x) => {
            let tg =
                c.st.unit(x)
                    .ok_or_else(|| format!("there is no unit {x}"))?;
            if tg.side == c.u.side {
                return Err(format!("{} is on your side", tg.id));
            }
            let (ch, _) = charge_plan(c.r, c.u, &d.cur, tg, c.steps)?;
            // The ground the charge crosses and the ground it ends on
            // (the target itself excepted, in `finish`).
            d.sweep.extend(charge_ground(c.r, &d.cur, &ch));
            d.action = Some(ch);
            d.advanced = true;
            d.moved = true;
        }
    }
    Ok(())
}

/// FORWARD or BACK: the ground swept, its going, and a ford entered.
fn step_straight(c: &Ctx<'_>, d: &mut Draft, n: i64, fwd: bool) -> Result<(), String> {
    let (r, st, t) = (c.r, c.st, c.t);
    let is_gun = t.is("artillery");
    if is_gun && d.cur.formation == "deployed" && n > t.moves.get("deployed").copied().unwrap_or(0)
    {
        return Err(format!(
            "deployed guns are manhandled {} a move at most",
            fmt_len(t.moves.get("deployed").copied().unwrap_or(0))
        ));
    }
    let shp = shape(t, &d.cur);
    let end = g::offset(
        d.cur.front,
        i64::from(d.cur.facing),
        if fwd { n } else { -n },
        0,
    );
    let sw = Footprint {
        front: if fwd { end } else { d.cur.front },
        facing: d.cur.facing,
        width: shp.width,
        depth: shp.depth + n,
    };
    if let Some(why) = ground_refusal(r, st, t, &sw, d.cur.front, end) {
        return Err(why);
    }
    let (pct, why) = ground_percent(r, st, t, &sw, d.cur.front, end);
    let a = allowance(t, &d.cur.formation, c.firing);
    if pct == 0 || a == 0 {
        return Err(format!("a {} cannot move there", t.name.to_lowercase()));
    }
    d.used = d
        .used
        .add(i128::from(n) * 100, i128::from(a) * i128::from(pct));
    d.measured.push(format!(
        "{} {}{}",
        if fwd { "forward" } else { "back" },
        fmt_len(n),
        if pct < 100 {
            format!(" ({why}: {pct}% of the move)")
        } else {
            String::new()
        }
    ));
    // A barge goes along the river: a ford does not stop it.
    if !t.is("barge")
        && st
            .terrain
            .iter()
            .any(|f| f.kind == "ford" && g::crosses(d.cur.front, end, &f.polygon()))
        && st
            .terrain
            .iter()
            .any(|f| f.kind == "river" && geo::Intersects::intersects(&sw.polygon(), &f.polygon()))
    {
        let n = r
            .terrain
            .get("ford")
            .and_then(|f| f.crossing_moves(t))
            .unwrap_or(1);
        d.enters_ford = Some(n);
    }
    d.sweep.push(sw);
    d.cur.front = end;
    d.advanced |= fwd;
    d.moved = true;
    Ok(())
}

/// WHEEL: the pivot on the inner flank, the ground swept every 5 degrees.
fn step_wheel(c: &Ctx<'_>, d: &mut Draft, a: i64) -> Result<(), String> {
    let (r, st, t) = (c.r, c.st, c.t);
    let shp = shape(t, &d.cur);
    let f = i64::from(d.cur.facing);
    // Pivot on the inner flank's front corner.
    let (pivot, newf, back) = if a < 0 {
        let p = g::offset(d.cur.front, f, 0, -shp.width / 2);
        (p, f + a, shp.width / 2)
    } else {
        let p = g::offset(d.cur.front, f, 0, shp.width - shp.width / 2);
        (p, f + a, -(shp.width - shp.width / 2))
    };
    let newfront = g::offset(pivot, newf, 0, back);
    let dist = g::arc(shp.width, a);
    // The ground swept: the footprint every 5 degrees of the turn.
    let stepdeg = if a < 0 { -5 } else { 5 };
    let mut k: i64 = stepdeg;
    while k.abs() < a.abs() {
        let nf = f + k;
        d.sweep.push(Footprint {
            front: g::offset(pivot, nf, 0, back),
            facing: g::norm_deg(nf),
            width: shp.width,
            depth: shp.depth,
        });
        k += stepdeg;
    }
    let endfp = Footprint {
        front: newfront,
        facing: g::norm_deg(newf),
        width: shp.width,
        depth: shp.depth,
    };
    for sw in d.sweep.iter().rev().take(40).chain(std::iter::once(&endfp)) {
        if let Some(why) = ground_refusal(r, st, t, sw, d.cur.front, newfront) {
            return Err(why);
        }
    }
    let (pct, why) = ground_percent(r, st, t, &endfp, d.cur.front, newfront);
    let al = allowance(t, &d.cur.formation, c.firing);
    if pct == 0 || al == 0 {
        return Err(format!("a {} cannot wheel there", t.name.to_lowercase()));
    }
    d.used = d
        .used
        .add(i128::from(dist) * 100, i128::from(al) * i128::from(pct));
    d.measured.push(format!(
        "wheel {} {}° (outer flank {}){}",
        if a < 0 { "left" } else { "right" },
        a.abs(),
        fmt_len(dist),
        if pct < 100 {
            format!(" ({why}: {pct}%)")
        } else {
            String::new()
        }
    ));
    d.sweep.push(endfp);
    d.cur.front = newfront;
    d.cur.facing = g::norm_deg(newf);
    d.moved = true;
    Ok(())
}

/// FORM: half a move, on ground the new formation may stand on.
fn step_form(c: &Ctx<'_>, d: &mut Draft, f: &String) -> Result<(), String> {
    let t = c.t;
    if !t.formations.contains(f) {
        return Err(format!(
            "a {} forms {}, not {f}",
            t.name.to_lowercase(),
            t.formations.join(" or ")
        ));
    }
    if d.cur.formation == *f {
        return Err(format!("{} is already in {f}", c.u.id));
    }
    d.cur.formation = f.clone();
    d.used = d.used.add(1, 2);
    d.measured.push(format!("form {f} (half a move)"));
    let fp = footprint(c.r, &d.cur);
    if let Some(why) = ground_refusal(c.r, c.st, t, &fp, d.cur.front, d.cur.front) {
        return Err(why);
    }
    d.sweep.push(fp);
    d.moved = true;
    Ok(())
}

/// LIMBER or UNLIMBER: guns only, the whole move.
fn step_limber(c: &Ctx<'_>, d: &mut Draft, limber: bool) -> Result<(), String> {
    if !c.t.is("artillery") {
        return Err(format!("{} has no guns to limber", c.u.id));
    }
    if c.steps.len() != 1 {
        return Err("limbering or unlimbering takes the whole move".into());
    }
    let want = if limber { "limbered" } else { "deployed" };
    if d.cur.formation == want {
        return Err(format!("{} is already {want}", c.u.id));
    }
    d.cur.formation = want.into();
    let fp = footprint(c.r, &d.cur);
    if let Some(why) = ground_refusal(c.r, c.st, c.t, &fp, d.cur.front, d.cur.front) {
        return Err(why);
    }
    d.sweep.push(fp);
    d.limber = Some(want.to_string());
    d.measured.push(format!(
        "{} (the whole move)",
        if want == "limbered" {
            "limber"
        } else {
            "unlimber"
        }
    ));
    Ok(())
}

/// FIRE AT, FIRE CANISTER AT, PICK OFF: a target in sight and range.
fn step_fire(c: &Ctx<'_>, d: &mut Draft, s: &Step, x: &str) -> Result<(), String> {
    let (r, st, t) = (c.r, c.st, c.t);
    let is_gun = t.is("artillery");
    let tg = st.unit(x).ok_or_else(|| format!("there is no unit {x}"))?;
    if tg.side == c.u.side {
        return Err(format!("{} is on your side", tg.id));
    }
    match s {
        Step::FireAt(_) if is_gun => {
            gun_fire_check(r, st, &d.cur, tg, false)?;
        }
        Step::FireAt(_) => {
            musket_check(r, st, &d.cur, tg)?;
        }
        Step::Canister(_) => {
            if !is_gun || t.howitzer {
                return Err("only cannon fire canister".into());
            }
            gun_fire_check(r, st, &d.cur, tg, true)?;
        }
        _ => {
            if t.musket != "light" {
                return Err("only light infantry pick off officers".into());
            }
            musket_check(r, st, &d.cur, tg)?;
        }
    }
    if is_gun && d.moved {
        return Err("guns that moved may not fire this move".into());
    }
    d.action = Some(match s {
        Step::FireAt(_) => Action::Fire(tg.id.clone()),
        Step::Canister(_) => Action::Canister(tg.id.clone()),
        _ => Action::PickOff(tg.id.clone()),
    });
    Ok(())
}

/// Steps over a whole move: heavy cavalry's 'battle' move, one for each
/// move of rest, or too far.
fn battle_move_check(c: &Ctx<'_>, d: &mut Draft) -> Result<(), String> {
    let (t, u, firing, used) = (c.t, c.u, c.firing, d.used);
    let battle = t.moves.get("battle").copied();
    let normal = allowance(t, &u.formation, firing);
    let ok = match battle {
        Some(b) if u.rest > 0 && normal > 0 => used.at_most(i128::from(b), i128::from(normal)),
        _ => false,
    };
    if !ok {
        return Err(format!(
            "too far: the steps use {} of a {} move of {} for a {} in {}{}",
            pct_text(used),
            if firing { "firing" } else { "normal" },
            fmt_len(allowance(t, &u.formation, firing)),
            t.name.to_lowercase(),
            u.formation,
            if battle.is_some() {
                if u.rest > 0 {
                    " (or its 'battle' move)"
                } else {
                    " (no move of rest banked for a 'battle' move)"
                }
            } else {
                ""
            },
        ) + &format!("; measured: {}", d.measured.join(", ")));
    }
    d.measured
        .push("the 'battle' move (one move of rest spent)".into());
    Ok(())
}

fn pct_text(f: Frac) -> String {
    let p = f.n * 100 / f.d.max(1);
    format!("{p}%")
}

#[allow(clippy::too_many_arguments)]
fn finish(
    r: &Ruleset,
    st: &State,
    u: &Unit,
    cur: Unit,
    steps: &[Step],
    sweep: Vec<Footprint>,
    measured: Vec<String>,
    action: Option<Action>,
    advanced: bool,
    moved: bool,
    battle_move: bool,
    enters_ford: Option<u32>,
    limber: Option<String>,
    earlier: &[Plan],
) -> Result<Plan, String> {
    // Through or onto another unit: its ground at the start of the move,
    // and for our own side, where our earlier orders put it.
    let charge_target = match &action {
        Some(Action::Charge { target, .. }) => Some(target.clone()),
        _ => None,
    };
    for o in &st.units {
        if o.id == u.id || Some(&o.id) == charge_target.as_ref() {
            continue;
        }
        let ofp = match earlier.iter().find(|p| p.unit == o.id) {
            Some(p) => footprint(r, &p.end),
            None => footprint(r, o),
        };
        // The end's corners are rounded apart from the swept ground's: a
        // whole sixteenth inside another unit is onto it.
        if sweep.iter().any(|sw| g::overlap(sw, &ofp))
            || (!sweep.is_empty() && g::overlap_deeply(&footprint(r, &cur), &ofp))
        {
            return Err(format!("the move would pass through or onto {}", o.id));
        }
    }
    // The end ground itself on the table: its corners are rounded from
    // the rounded front, and may lie a sixteenth beyond the swept ground's.
    if !st.on_table(&footprint(r, &cur)) {
        return Err("that would take it off the table".into());
    }
    // Building sections hold a limited number of figures.
    for f in &st.terrain {
        if f.capacity > 0
            && g::in_polygon(&f.polygon(), footprint(r, &cur).centre())
            && cur.rf > f.capacity
        {
            return Err(format!(
                "a building section holds at most {} figures ({} has {})",
                f.capacity, u.id, cur.rf
            ));
        }
    }
    Ok(Plan {
        line: 0,
        text: String::new(),
        unit: u.id.clone(),
        steps: steps.to_vec(),
        end: cur,
        sweep,
        advanced,
        moved,
        measured,
        action,
        battle_move,
        enters_ford,
        limber,
    })
}

/// The charge: straight ahead (light cavalry may wheel first, up to the
/// limit, within the first 6"), to strike the target within the charge move.
pub(super) fn charge_plan(
    r: &Ruleset,
    u: &Unit,
    cur: &Unit,
    tg: &Unit,
    steps: &[Step],
) -> Result<(Action, i64), String> {
    let t = troop(r, u);
    let mut wheel_used = 0;
    for s in steps {
        match s {
            Step::Charge(_) => {}
            Step::Wheel(a) if t.is("cavalry") && !t.heavy => {
                if a.abs() > r.lc_wheel {
                    return Err(format!(
                        "light cavalry may wheel through {}° only in a charge, not {}°",
                        r.lc_wheel,
                        a.abs()
                    ));
                }
                let sh = shape(t, u);
                wheel_used = g::arc(sh.width, *a);
                if wheel_used > r.lc_wheel_within {
                    return Err(format!(
                        "the wheel takes the outer flank {} and may use only the first {} of the charge",
                        fmt_len(wheel_used),
                        fmt_len(r.lc_wheel_within)
                    ));
                }
            }
            Step::Wheel(_) if t.heavy => {
                return Err(
                    "heavy cavalry must complete the charge in a straight line: no wheeling".into(),
                )
            }
            _ => {
                return Err(
                    "a charge is the unit's whole move (light cavalry may wheel first)".into(),
                )
            }
        }
    }
    if t.is("artillery") || t.is("wagon") {
        return Err(format!("a {} does not charge", t.name.to_lowercase()));
    }
    let (reach, impetus) = if t.is("cavalry") || cur.formation == "column" {
        (t.moves.get("charge").copied().unwrap_or(0), true)
    } else {
        // "May only charge in column, but can make a normal move to contact
        // (no impetus)."
        (allowance(t, &cur.formation, false), false)
    };
    let tfp = footprint(r, tg);
    let hit = g::ray_hit(cur.front, i64::from(cur.facing), &tfp).ok_or_else(|| {
        format!(
            "{} is not straight ahead of {}: a charge goes directly forward",
            tg.id, u.id
        )
    })?;
    let left = reach - wheel_used;
    // hit = num/den sixteenths; reach it?
    if hit.0 > i128::from(left) * hit.1 {
        return Err(format!(
            "{} is {} away, beyond the charge move of {}{}",
            tg.id,
            fmt_len((hit.0 / hit.1.max(1)) as i64),
            fmt_len(left),
            if impetus {
                ""
            } else {
                " (infantry not in column move at their normal rate)"
            }
        ));
    }
    let dist = (hit.0 / hit.1.max(1)) as i64;
    let hp = g::offset(cur.front, i64::from(cur.facing), dist, 0);
    // Which face: the edge nearest the hit point.
    let edges = tfp.edges();
    let face = (0..4)
        .min_by_key(|k| g::dist2_point_segment(hp, edges[*k].0, edges[*k].1))
        .unwrap_or(0);
    let outward = i64::from(tg.facing) + 90 * face as i64;
    let facing = g::norm_deg(outward + 180);
    // The charger squares up to the face it struck, its front on the face.
    let (a, b) = edges[face];
    let mut front = project_on_segment(hp, a, b);
    // Rounded to the sixteenth, a slanted face can leave the charger's
    // corner a sixteenth inside the target: stand back until the two only
    // touch.
    let own = footprint(r, cur);
    for _ in 0..8 {
        let fp = Footprint {
            front,
            facing,
            ..own
        };
        if !g::overlap(&fp, &tfp) {
            break;
        }
        front = g::offset(front, i64::from(facing), -1, 0);
    }
    Ok((
        Action::Charge {
            target: tg.id.clone(),
            front,
            facing,
            dist,
            face,
            impetus,
        },
        wheel_used,
    ))
}

/// The ground a charge passes over (straight ahead to the point it
/// strikes) and the ground it ends on, squared up to the face it struck.
fn charge_ground(r: &Ruleset, cur: &Unit, ch: &Action) -> Vec<Footprint> {
    let Action::Charge {
        front,
        facing,
        dist,
        ..
    } = ch
    else {
        return Vec::new();
    };
    let fp = footprint(r, cur);
    vec![
        Footprint {
            front: g::offset(cur.front, i64::from(cur.facing), *dist, 0),
            depth: fp.depth + dist,
            ..fp
        },
        Footprint {
            front: *front,
            facing: *facing,
            ..fp
        },
    ]
}

fn project_on_segment(p: Pt, a: Pt, b: Pt) -> Pt {
    let abx = i128::from(b.x - a.x);
    let aby = i128::from(b.y - a.y);
    let len2 = abx * abx + aby * aby;
    if len2 == 0 {
        return a;
    }
    let t = (i128::from(p.x - a.x) * abx + i128::from(p.y - a.y) * aby).clamp(0, len2);
    Pt::new(
        a.x + g::div_round(t * abx, len2),
        a.y + g::div_round(t * aby, len2),
    )
}

/// The facts of a line of fire.
#[derive(Debug, Clone)]
pub struct Sight {
    pub dist: Dist2,
    pub cover: bool,
}

/// Is the line from `a` to `b` clear of woods, buildings, higher hills and
/// other units? `ignore` are the firer and target.
fn clear(
    r: &Ruleset,
    st: &State,
    a: Pt,
    b: Pt,
    ignore: &[&str],
    moved: &BTreeMap<String, Unit>,
) -> Result<(), String> {
    let (la, lb) = (st.level(a), st.level(b));
    for f in &st.terrain {
        let Some(spec) = r.terrain.get(&f.kind) else {
            continue;
        };
        if f.kind == "hill" {
            if f.level > la.max(lb) && g::crosses(a, b, &f.polygon()) {
                return Err(format!(
                    "the line of fire is blocked by the hill{}",
                    named(f)
                ));
            }
            continue;
        }
        if spec.blocks_sight && f.points.len() >= 3 {
            let poly = f.polygon();
            if g::crosses(a, b, &poly) && !g::in_polygon(&poly, a) && !g::in_polygon(&poly, b) {
                return Err(format!(
                    "the line of fire is blocked by {}{}",
                    spec.name.to_lowercase(),
                    named(f)
                ));
            }
        }
    }
    for o in &st.units {
        if ignore.contains(&o.id.as_str()) {
            continue;
        }
        let o = moved.get(&o.id).unwrap_or(o);
        if geo::Intersects::intersects(&g::line(a, b), &footprint(r, o).polygon()) {
            return Err(format!("the line of fire is blocked by {}", o.id));
        }
    }
    Ok(())
}

fn named(f: &state::Feature) -> String {
    if f.name.is_empty() {
        String::new()
    } else {
        format!(" ({})", f.name)
    }
}

/// Cover for a target seen from `a`: inside woods or a building, or behind
/// a wall the line crosses.
fn in_cover(r: &Ruleset, st: &State, a: Pt, tg_centre: Pt) -> bool {
    st.terrain.iter().any(|f| {
        let Some(spec) = r.terrain.get(&f.kind) else {
            return false;
        };
        if !spec.cover {
            return false;
        }
        if spec.line {
            g::crosses_line(a, tg_centre, &f.polyline())
        } else {
            g::in_polygon(&f.polygon(), tg_centre)
        }
    })
}

/// Musketry: range, arc, line of fire and cover, or why not.
pub fn musket_sight(
    r: &Ruleset,
    st: &State,
    sh: &Unit,
    tg: &Unit,
    moved: &BTreeMap<String, Unit>,
) -> Result<Sight, String> {
    let t = troop(r, sh);
    if t.musket == "none" {
        return Err(format!("a {} has no muskets", t.name.to_lowercase()));
    }
    let tfp = footprint(r, tg);
    let d = tfp.dist2_from(sh.front);
    let max = r.normal.last().map_or(18 * PER_INCH, |b| b.to);
    let max = if t.musket == "light" {
        r.brown.last().map_or(max, |b| b.to)
    } else {
        max
    };
    if !d.within(max) {
        return Err(format!(
            "{} is {} away, beyond musket range ({})",
            tg.id,
            fmt_len(d.floor()),
            fmt_len(max)
        ));
    }
    if t.musket == "line" {
        let mut pts = tfp.corners().to_vec();
        pts.push(tfp.centre());
        pts.push(tfp.front);
        if !pts
            .iter()
            .any(|p| g::in_arc(sh.front, i64::from(sh.facing), r.arc, *p))
        {
            return Err(format!(
                "{} is outside the arc of fire ({}° either side of the front)",
                tg.id, r.arc
            ));
        }
    }
    let aim = nearest_point(&tfp, sh.front);
    clear(r, st, sh.front, aim, &[&sh.id, &tg.id], moved)?;
    Ok(Sight {
        dist: d,
        cover: in_cover(r, st, sh.front, tfp.centre()),
    })
}

fn musket_check(r: &Ruleset, st: &State, sh: &Unit, tg: &Unit) -> Result<(), String> {
    musket_sight(r, st, sh, tg, &BTreeMap::new()).map(|_| ())
}

/// The nearest point of a footprint to `p`, rounded to the sixteenth.
fn nearest_point(fp: &Footprint, p: Pt) -> Pt {
    if fp.covers(p) {
        return p;
    }
    let e = fp.edges();
    let k = (0..4)
        .min_by_key(|k| g::dist2_point_segment(p, e[*k].0, e[*k].1))
        .unwrap_or(0);
    project_on_segment(p, e[k].0, e[k].1)
}

/// Artillery: the range to the point of aim and a clear line, or why not.
fn gun_fire_check(
    r: &Ruleset,
    st: &State,
    gun: &Unit,
    tg: &Unit,
    canister: bool,
) -> Result<(), String> {
    gun_sight(r, st, gun, tg, canister, &BTreeMap::new()).map(|_| ())
}

pub(crate) fn gun_sight(
    r: &Ruleset,
    st: &State,
    gun: &Unit,
    tg: &Unit,
    canister: bool,
    moved: &BTreeMap<String, Unit>,
) -> Result<Dist2, String> {
    let t = troop(r, gun);
    if gun.formation != "deployed" {
        return Err(format!(
            "{}'s guns are limbered: unlimber first (it takes a move)",
            gun.id
        ));
    }
    if gun.guns.iter().all(|x| x.destroyed) {
        return Err(format!("{} has no guns left", gun.id));
    }
    let tfp = footprint(r, tg);
    let aim = tfp.centre();
    let d = if canister {
        tfp.dist2_from(gun.front)
    } else {
        Dist2::of(gun.front.dist2(aim))
    };
    if canister {
        if !d.within(r.canister_range) {
            return Err(format!(
                "{} is {} away, beyond canister range ({})",
                tg.id,
                fmt_len(d.floor()),
                fmt_len(r.canister_range)
            ));
        }
    } else if t.howitzer {
        if !d.at_least(r.how_min) || !d.within(r.how_max) {
            return Err(format!(
                "{} is {} away: howitzers fire from {} to {}",
                tg.id,
                fmt_len(d.floor()),
                fmt_len(r.how_min),
                fmt_len(r.how_max)
            ));
        }
    } else {
        let max = r.roundshot.last().map_or(0, |b| b.to);
        if !d.within(max) {
            return Err(format!(
                "{} is {} away, beyond roundshot range ({})",
                tg.id,
                fmt_len(d.floor()),
                fmt_len(max)
            ));
        }
    }
    if !t.howitzer {
        let to = if canister {
            nearest_point(&tfp, gun.front)
        } else {
            aim
        };
        clear(r, st, gun.front, to, &[&gun.id, &tg.id], moved)?;
    }
    Ok(d)
}

// ------------------------------------------------------------------ the move

struct Turn<'a, 'c, 'd> {
    r: &'a Ruleset,
    st: State,
    ev: Vec<Event>,
    chance: Option<&'c mut Chance<'d>>,
    /// Rank and file lost this move, by unit (for morale and melee).
    lost: BTreeMap<String, u32>,
    /// Casualties a defender's fire at chargers gave its charger.
    melee_credit: BTreeMap<String, u32>,
    /// Exhausted units that retired or fought this move (not a move of rest).
    not_rested: BTreeSet<String>,
}

impl Turn<'_, '_, '_> {
    fn roll(&mut self) -> u32 {
        match self.chance.as_mut() {
            Some(c) => c.dice.roll(6),
            None => 1,
        }
    }
    fn rolls(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.roll()).collect()
    }
    fn kill(&mut self, id: &str, n: u32, by: usize) -> u32 {
        let Some(u) = self.st.unit_mut(id) else {
            return 0;
        };
        let k = n.min(u.rf);
        u.rf -= k;
        *self.lost.entry(id.to_string()).or_default() += k;
        if let Some(s) = self.st.removed.get_mut(by) {
            *s += k;
        }
        k
    }
}

/// Check and carry out the move. `chance` None: check only.
pub fn run(
    r: &Ruleset,
    st: &State,
    orders: &[Orders],
    chance: Option<&mut Chance<'_>>,
) -> Result<Outcome, Rejection> {
    if st.over {
        return Err(Rejection::whole("the game is over"));
    }
    let need = needs(st);
    let mut plans: Vec<(usize, Vec<Plan>)> = Vec::new();
    let mut standing: Vec<(String, Vec<String>)> = Vec::new();
    for o in orders {
        let Some(side) = st.side_index(&o.side) else {
            return Err(Rejection::whole(format!(
                "'{}' is not a side of this game",
                o.side
            )));
        };
        if !need.contains(&side) {
            return Err(Rejection::whole(format!(
                "{} has no orders to give this move",
                o.side
            )));
        }
        if plans.iter().any(|(s, _)| *s == side) {
            return Err(Rejection::whole(format!(
                "two sets of orders for {}",
                o.side
            )));
        }
        plans.push((side, check(r, st, side, &o.text)?));
        for (_, _, l) in parse(&o.text)? {
            if let Line::Standing { id, orders } = l {
                standing.push((id, orders));
            }
        }
    }
    plans.sort_by_key(|(s, _)| *s);
    let Some(chance) = chance else {
        return Ok(Outcome {
            st: st.clone(),
            ev: Vec::new(),
        });
    };
    let mut t = Turn {
        r,
        st: st.clone(),
        ev: Vec::new(),
        chance: Some(chance),
        lost: BTreeMap::new(),
        melee_credit: BTreeMap::new(),
        not_rested: BTreeSet::new(),
    };
    t.ev.push(Charge::Move { turn: st.turn }.into());
    for (id, o) in standing {
        if let Some(u) = t.st.unit_mut(&id) {
            if o.iter().any(|x| x == "NONE") {
                u.standing.clear();
            }
            for x in o.into_iter().filter(|x| x != "NONE") {
                if !u.standing.contains(&x) {
                    u.standing.push(x);
                }
            }
        }
    }
    let all: Vec<Plan> = plans.into_iter().flat_map(|(_, p)| p).collect();
    // A halt (bad morale) governed this move's orders, already checked.
    for u in t.st.units.iter_mut() {
        if u.forced == Some(Forced::Halt) {
            u.forced = None;
        }
    }
    let burning = houses::burning_now(&t.st);
    forced_moves(&mut t);
    charges(&mut t, &all);
    let moved_ids = movement(&mut t, &all);
    let rallied = general::rallies(&mut t, &all);
    artillery(&mut t, &all);
    houses::leave_fires(&mut t);
    musketry(&mut t, &all);
    general::fallen(&mut t);
    let contact = in_contact(&t.st);
    melee(&mut t);
    morale(&mut t, &all, &moved_ids);
    keep_contact_apart(&mut t, &contact);
    houses::end_of_move(&mut t, &burning);
    general::end_of_move(&mut t, &rallied);
    end_of_move(&mut t, &all, &moved_ids);
    Ok(Outcome { st: t.st, ev: t.ev })
}

/// Move a unit straight back (or, if `about`, turned to the rear) up to `d`,
/// as far as it goes without overlapping anything; off the table if `flee`.
fn move_rear(t: &mut Turn<'_, '_, '_>, id: &str, d: i64, why: &str, flee: bool) {
    let r = t.r;
    let Some(u) = t.st.unit(id).cloned() else {
        return;
    };
    let mut best = None;
    let mut k = d;
    while k > 0 {
        let end = g::offset(u.front, i64::from(u.facing), -k, 0);
        let mut v = u.clone();
        v.front = end;
        let fp = footprint(r, &v);
        let sw = Footprint {
            front: u.front,
            depth: fp.depth + k,
            ..fp
        };
        let blocked = t.st.units.iter().any(|o| {
            let ofp = footprint(r, o);
            // The end's corners are rounded apart from the sweep's.
            o.id != u.id && (g::overlap(&sw, &ofp) || g::overlap_deeply(&fp, &ofp))
        });
        if !blocked && (t.st.on_table(&fp) || flee) {
            best = Some((end, k, !t.st.on_table(&fp)));
            break;
        }
        k -= PER_INCH.min(k);
    }
    match best {
        Some((_, _, true)) => {
            t.ev.push(
                Charge::Fled {
                    unit: id.to_string(),
                    why: why.to_string(),
                }
                .into(),
            );
            t.st.units.retain(|x| x.id != id);
        }
        Some((end, k, false)) => {
            if let Some(m) = t.st.unit_mut(id) {
                m.front = end;
            }
            t.ev.push(
                Charge::Retire {
                    unit: id.to_string(),
                    dist: k,
                    text: fmt_len(k),
                    why: why.to_string(),
                }
                .into(),
            );
        }
        None => t.ev.push(
            Charge::Retire {
                unit: id.to_string(),
                dist: 0,
                text: "0\"".into(),
                why: format!("{why}; blocked"),
            }
            .into(),
        ),
    }
}

fn forced_moves(t: &mut Turn<'_, '_, '_>) {
    let ids: Vec<String> = t.st.units.iter().map(|u| u.id.clone()).collect();
    for id in ids {
        let Some(u) = t.st.unit(&id).cloned() else {
            continue;
        };
        let tr = troop(t.r, &u);
        let normal = allowance(tr, &u.formation, false);
        match u.forced.clone() {
            Some(Forced::Retire) => {
                move_rear(t, &id, normal, "retires a normal move", false);
                if let Some(m) = t.st.unit_mut(&id) {
                    m.forced = None;
                }
            }
            Some(Forced::BreakOff) => {
                move_rear(
                    t,
                    &id,
                    normal,
                    "breaks off: a complete move to the rear",
                    false,
                );
                if let Some(m) = t.st.unit_mut(&id) {
                    m.forced = None;
                }
            }
            Some(Forced::Rout) => move_rear(
                t,
                &id,
                normal,
                "moves directly to the rear (50% rule)",
                true,
            ),
            // "They may defend themselves if attacked": a unit fighting
            // again does not retire out of its new melee.
            Some(Forced::Exhausted { retire, rest }) if retire > 0 && u.melee.is_none() => {
                move_rear(t, &id, normal, "retires after a drawn melee", false);
                t.not_rested.insert(id.clone());
                if let Some(m) = t.st.unit_mut(&id) {
                    m.forced = Some(Forced::Exhausted {
                        retire: retire - 1,
                        rest,
                    });
                }
            }
            _ => {}
        }
    }
}

fn charges(t: &mut Turn<'_, '_, '_>, all: &[Plan]) {
    let r = t.r;
    for p in all {
        let Some(Action::Charge {
            target,
            front,
            facing,
            dist,
            face,
            impetus,
        }) = &p.action
        else {
            continue;
        };
        let (Some(ch), Some(tg)) = (t.st.unit(&p.unit).cloned(), t.st.unit(target).cloned()) else {
            continue;
        };
        if ch.melee.is_some() {
            t.ev.push(
                Charge::Lapse {
                    unit: ch.id.to_string(),
                    why: format!("already in melee; its charge at {target} lapses"),
                }
                .into(),
            );
            continue;
        }
        // Another charge or a forced move may have put a unit in the way
        // since the orders were checked: the charge is stopped, not made.
        let ground = p
            .action
            .as_ref()
            .map(|a| charge_ground(r, &ch, a))
            .unwrap_or_default();
        if let Some(o) = t.st.units.iter().find(|o| {
            o.id != ch.id && o.id != tg.id && ground.iter().any(|s| g::overlap(s, &footprint(r, o)))
        }) {
            t.ev.push(
                Charge::Lapse {
                    unit: ch.id.to_string(),
                    why: format!("{} is in the way: its charge at {target} is not made", o.id),
                }
                .into(),
            );
            continue;
        }
        // Firing at chargers, in the move contact is made.
        let tt = troop(r, &tg);
        let mut fired = None;
        if tg.standing.iter().any(|s| s == "FIRE AT CHARGERS")
            && tt.musket == "line"
            && tg.melee.is_none()
            && !tg.broken
            && tg.bad_morale.is_none()
        {
            let a = t.roll();
            let d = t.roll();
            if d > a {
                let first = r.first_volley.first().cloned();
                let band = if tg.volleyed {
                    r.normal.first().cloned()
                } else {
                    first
                };
                let killed = band.map_or(0, |b| line_volley(t, &tg.id, &ch.id, &b, false));
                if let Some(m) = t.st.unit_mut(&tg.id) {
                    m.volleyed = true;
                }
                *t.melee_credit.entry(ch.id.clone()).or_default() += killed;
                fired = Some(FireAtChargers {
                    attacker: a,
                    defender: d,
                    fired: true,
                    killed: Some(killed),
                });
            } else {
                fired = Some(FireAtChargers {
                    attacker: a,
                    defender: d,
                    fired: false,
                    killed: None,
                });
            }
        }
        if let Some(m) = t.st.unit_mut(&ch.id) {
            m.front = *front;
            m.facing = *facing;
            m.melee = Some(Melee {
                with: tg.id.clone(),
                moves: 0,
                attacker: *impetus,
            });
        }
        if let Some(m) = t.st.unit_mut(&tg.id) {
            if m.melee.is_none() {
                m.melee = Some(Melee {
                    with: ch.id.clone(),
                    moves: 0,
                    attacker: false,
                });
            }
        }
        // An attacker without impetus is still the attacker of the melee.
        if !*impetus {
            if let Some(m) = t.st.unit_mut(&ch.id) {
                if let Some(ml) = m.melee.as_mut() {
                    ml.attacker = true;
                }
            }
        }
        let face_name = ["front", "right flank", "rear", "left flank"][*face];
        t.ev.push(
            Charge::Charge {
                unit: ch.id.to_string(),
                target: tg.id.to_string(),
                dist: *dist,
                text: fmt_len(*dist),
                face: face_name.to_string(),
                impetus: *impetus,
                fire_at_chargers: fired,
                side: t.st.sides[ch.side].to_string(),
            }
            .into(),
        );
        if !*impetus {
            t.ev.push(
                Charge::Note {
                    text: format!(
                        "{} moves to contact at its normal rate: no charge impetus",
                        ch.id
                    ),
                }
                .into(),
            );
        }
        t.melee_impetus(&ch.id, *impetus);
        if *impetus {
            ride_down(t, &ch.id, target, *face, *dist);
        }
    }
}

/// Heavy cavalry riding down infantry less than 4 ranks deep, once the
/// charge has struck (src/rules/measured/ride_down.rs).
fn ride_down(t: &mut Turn<'_, '_, '_>, ch: &str, target: &str, face: usize, dist: i64) {
    let r = t.r;
    let (Some(cu), Some(tu)) = (t.st.unit(ch).cloned(), t.st.unit(target).cloned()) else {
        return;
    };
    let st = t.st.clone();
    let Some(o) = ride_down::attempt(r, &st, &cu, &tu, face, dist, &mut || t.roll()) else {
        return;
    };
    t.ev.push(o.event.into());
    let k = t.kill(target, o.killed, cu.side);
    match o.through {
        None => {
            // Ridden down in the first move of the melee: they count
            // towards its result.
            *t.melee_credit.entry(format!("ridden:{ch}")).or_default() += k;
        }
        Some((end, next)) => {
            if let Some(m) = t.st.unit_mut(target) {
                if m.melee.as_ref().is_some_and(|x| x.with == ch) {
                    m.melee = None;
                }
            }
            if let Some(m) = t.st.unit_mut(ch) {
                m.front = end.front;
                m.facing = end.facing;
                m.melee = None;
            }
            if let Some((
                Action::Charge {
                    target: n,
                    front,
                    facing,
                    ..
                },
                _,
            )) = next
            {
                if let Some(m) = t.st.unit_mut(ch) {
                    m.front = front;
                    m.facing = facing;
                    m.melee = Some(Melee {
                        with: n.clone(),
                        moves: 0,
                        attacker: true,
                    });
                }
                if let Some(m) = t.st.unit_mut(&n) {
                    if m.melee.is_none() {
                        m.melee = Some(Melee {
                            with: ch.to_string(),
                            moves: 0,
                            attacker: false,
                        });
                    }
                }
            }
        }
    }
}

impl Turn<'_, '_, '_> {
    fn melee_impetus(&mut self, id: &str, impetus: bool) {
        if impetus {
            self.melee_credit
                .entry(format!("impetus:{id}"))
                .or_default();
        }
    }
}

fn movement(t: &mut Turn<'_, '_, '_>, all: &[Plan]) -> BTreeSet<String> {
    let r = t.r;
    // Units engaged by a charge this move do not carry out their orders.
    let mut going: Vec<&Plan> = Vec::new();
    for p in all {
        if matches!(p.action, Some(Action::Charge { .. })) {
            continue;
        }
        if t.st.unit(&p.unit).is_some_and(|u| u.melee.is_some()) {
            t.ev.push(
                Charge::Lapse {
                    unit: p.unit.to_string(),
                    why: "charged: its orders lapse".into(),
                }
                .into(),
            );
            continue;
        }
        going.push(p);
    }
    // Simultaneous: a unit whose path or ground meets another unit's final
    // ground stays where it was; repeat until nothing changes.
    let mut halted: BTreeSet<String> = BTreeSet::new();
    loop {
        let finals: BTreeMap<String, Footprint> =
            t.st.units
                .iter()
                .map(|u| {
                    let p = going
                        .iter()
                        .find(|p| p.unit == u.id && !halted.contains(&u.id));
                    (
                        u.id.clone(),
                        p.map_or_else(|| footprint(r, u), |p| footprint(r, &p.end)),
                    )
                })
                .collect();
        let mut changed = false;
        for p in &going {
            // Any change of ground counts, limbering and forming included.
            if halted.contains(&p.unit) || p.sweep.is_empty() {
                continue;
            }
            let end = footprint(r, &p.end);
            let hit = finals.iter().find(|(id, fp)| {
                **id != p.unit
                    && (p.sweep.iter().any(|s| g::overlap(s, fp)) || g::overlap_deeply(&end, fp))
            });
            if let Some((other, _)) = hit {
                t.ev.push(
                    Charge::Blocked {
                        unit: p.unit.to_string(),
                        by: other.to_string(),
                    }
                    .into(),
                );
                halted.insert(p.unit.clone());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut moved = BTreeSet::new();
    for p in &going {
        let steps: Vec<String> = p.steps.iter().map(|s| s.canonical()).collect();
        if halted.contains(&p.unit) {
            continue;
        }
        if let Some(u) = t.st.unit_mut(&p.unit) {
            let from = u.front;
            u.front = p.end.front;
            u.facing = p.end.facing;
            u.formation = p.end.formation.clone();
            if p.battle_move {
                u.rest = u.rest.saturating_sub(1);
            }
            if let Some(n) = p.enters_ford {
                u.crossing = n.saturating_sub(1);
            }
            if p.moved {
                moved.insert(p.unit.clone());
                t.ev.push(
                    Charge::Moved {
                        unit: p.unit.to_string(),
                        orders: steps,
                        measured: p.measured.clone(),
                        from: [from.x, from.y],
                        to: [p.end.front.x, p.end.front.y],
                        facing: p.end.facing,
                        formation: p.end.formation.to_string(),
                    }
                    .into(),
                );
            } else if p.limber.is_some() {
                t.ev.push(
                    Charge::Limber {
                        unit: p.unit.to_string(),
                        formation: p.end.formation.to_string(),
                    }
                    .into(),
                );
            }
        }
    }
    moved
}

fn positions(t: &Turn<'_, '_, '_>) -> BTreeMap<String, Unit> {
    t.st.units
        .iter()
        .map(|u| (u.id.clone(), u.clone()))
        .collect()
}

// ------------------------------------------------------------ artillery

/// Figures or guns under a template: (unit id, index).
type Covered = Vec<(String, usize)>;

/// Is `s` >= a * sqrt(v) (v >= 0)? Exact.
fn ge_mul_sqrt(s: i128, a: i128, v: i128) -> bool {
    match (s >= 0, a >= 0) {
        (true, false) => true,
        (false, true) => a == 0 && s >= 0,
        (true, true) => s * s >= a * a * v,
        (false, false) => s * s <= a * a * v,
    }
}

/// Figures (unit id, figure index) and guns (unit id, gun index) covered by
/// the sleeve: a strip `len` long and `w` wide on the line from `gun`
/// through `aim`, its centre `off` beyond the aim point (negative: short).
fn under_sleeve(
    t: &Turn<'_, '_, '_>,
    shooter: &str,
    gun: Pt,
    aim: Pt,
    off: i64,
) -> (Covered, Covered) {
    let r = t.r;
    let vx = i128::from(aim.x - gun.x);
    let vy = i128::from(aim.y - gun.y);
    let v2 = vx * vx + vy * vy;
    let lo = i128::from(off - r.sleeve_length / 2);
    let hi = i128::from(off + r.sleeve_length - r.sleeve_length / 2);
    let hw = i128::from(r.sleeve_width / 2);
    let mut figs = Vec::new();
    let mut guns = Vec::new();
    for u in &t.st.units {
        if u.id == shooter {
            continue;
        }
        for (i, p) in figures(r, u).into_iter().enumerate() {
            if in_strip(p, gun, vx, vy, v2, lo, hi, hw) {
                figs.push((u.id.clone(), i));
            }
        }
        for (i, p) in gun_points(r, u).into_iter().enumerate() {
            if !u.guns.get(i).is_some_and(|x| x.destroyed)
                && in_strip(p, gun, vx, vy, v2, lo, hi, hw)
            {
                guns.push((u.id.clone(), i));
            }
        }
    }
    (figs, guns)
}

#[allow(clippy::too_many_arguments)]
fn in_strip(p: Pt, gun: Pt, vx: i128, vy: i128, v2: i128, lo: i128, hi: i128, hw: i128) -> bool {
    let px = i128::from(p.x - gun.x);
    let py = i128::from(p.y - gun.y);
    let s = px * vx + py * vy - v2;
    let c = px * vy - py * vx;
    // lo*|v| <= s <= hi*|v|, and |c| <= hw*|v|.
    let ge_lo = ge_mul_sqrt(s, lo, v2);
    let le_hi = !ge_mul_sqrt(s, hi, v2) || s * s == hi * hi * v2 && (s >= 0) == (hi >= 0);
    ge_lo && le_hi && c * c <= hw * hw * v2
}

/// One gun's shot this move: the battery and its target as they stood.
struct Shot<'a> {
    gu: &'a Unit,
    tg: &'a Unit,
    gi: usize,
    gp: Pt,
    before: &'a BTreeMap<String, Unit>,
}

/// Figures killed (unit, figures, by side) and gun damage (unit, gun,
/// points), applied once every battery has fired.
#[derive(Default)]
struct Losses {
    kills: Vec<(String, u32, usize)>,
    damage: Vec<(String, usize, u32)>,
}

fn artillery(t: &mut Turn<'_, '_, '_>, all: &[Plan]) {
    let r = t.r;
    let before = positions(t);
    let mut losses = Losses::default();
    for p in all {
        let (target, canister) = match &p.action {
            Some(Action::Fire(x)) if troop(r, &p.end).is("artillery") => (x.clone(), false),
            Some(Action::Canister(x)) => (x.clone(), true),
            _ => continue,
        };
        let Some(gu) = before.get(&p.unit).cloned() else {
            continue;
        };
        let Some(tg) = before.get(&target).cloned() else {
            t.ev.push(
                Charge::Lapse {
                    unit: p.unit.to_string(),
                    why: format!("{target} is gone"),
                }
                .into(),
            );
            continue;
        };
        match gun_sight(r, &t.st, &gu, &tg, canister, &before) {
            Ok(_) => {}
            Err(why) => {
                t.ev.push(
                    Charge::Lapse {
                        unit: p.unit.to_string(),
                        why: why.to_string(),
                    }
                    .into(),
                );
                continue;
            }
        }
        for (gi, gp) in gun_points(r, &gu).into_iter().enumerate() {
            let Some(gs) = gu.guns.get(gi) else { continue };
            if gs.destroyed || gun_rests(t, &gu, gi) {
                continue;
            }
            let shot = Shot {
                gu: &gu,
                tg: &tg,
                gi,
                gp,
                before: &before,
            };
            if canister {
                canister_shot(t, &shot, &mut losses);
            } else if troop(r, &gu).howitzer {
                shell_shot(t, &shot, &mut losses);
            } else {
                roundshot_shot(t, &shot, &mut losses);
            }
        }
    }
    for (u, k, side) in losses.kills {
        t.kill(&u, k, side);
    }
    damage_guns(t, losses.damage);
}

/// A damaged gun fires alternate moves: whether it rests this one (and
/// which it fires next).
fn gun_rests(t: &mut Turn<'_, '_, '_>, gu: &Unit, gi: usize) -> bool {
    let Some(gs) = gu.guns.get(gi) else {
        return true;
    };
    if gs.damage >= t.r.cb_alternate && gs.fired_last {
        t.ev.push(
            Charge::GunRests {
                unit: gu.id.to_string(),
                gun: gi + 1,
                why: "damaged: fires alternate moves".into(),
            }
            .into(),
        );
        // It rested this move, so it fires the next.
        if let Some(m) = t.st.unit_mut(&gu.id) {
            if let Some(x) = m.guns.get_mut(gi) {
                x.fired_last = false;
            }
        }
        return true;
    }
    if let Some(m) = t.st.unit_mut(&gu.id) {
        if let Some(x) = m.guns.get_mut(gi) {
            x.fired_last = true;
        }
    }
    false
}

/// Canister: every figure within range in the cone toward the target.
fn canister_shot(t: &mut Turn<'_, '_, '_>, s: &Shot<'_>, losses: &mut Losses) {
    let r = t.r;
    let (gu, tg, gp) = (s.gu, s.tg, s.gp);
    let aim = footprint(r, tg).centre();
    let dd = Dist2::of(gp.dist2(aim));
    let dir = g::bearing(gp, aim);
    let mut hits = Vec::new();
    for u in s.before.values() {
        if u.id == gu.id {
            continue;
        }
        for (i, fp) in figures(r, u).into_iter().enumerate() {
            if Dist2::of(gp.dist2(fp)).within(r.canister_range)
                && g::in_arc(gp, i64::from(dir), r.canister_half_angle, fp)
            {
                hits.push((u.id.clone(), i));
            }
        }
    }
    let dice = t.rolls(hits.len());
    let mut per: BTreeMap<String, u32> = BTreeMap::new();
    for ((u, _), d) in hits.iter().zip(&dice) {
        if r.canister_kill.contains(d) {
            *per.entry(u.clone()).or_default() += 1;
        }
    }
    t.ev.push(
        Charge::Canister {
            unit: gu.id.to_string(),
            gun: s.gi + 1,
            target: tg.id.to_string(),
            range: dd.floor(),
            text: fmt_len(dd.floor()),
            figures: hits.len(),
            dice: dice.clone(),
            kill: r.canister_kill.clone(),
            killed: per.clone(),
        }
        .into(),
    );
    for (u, k) in per {
        losses.kills.push((u, k, gu.side));
    }
}

/// A howitzer's shell: the die gives the sector (1 a misfire), then the
/// burst's figures, houses and guns.
fn shell_shot(t: &mut Turn<'_, '_, '_>, s: &Shot<'_>, losses: &mut Losses) {
    let r = t.r;
    let (gu, tg, gp, gi, side) = (s.gu, s.tg, s.gp, s.gi, s.gu.side);
    let aim = footprint(r, tg).centre();
    let dd = Dist2::of(gp.dist2(aim));
    let face = t.roll();
    if face == 1 {
        t.ev.push(
            Charge::Shell {
                unit: gu.id.to_string(),
                gun: gi + 1,
                target: tg.id.to_string(),
                range: dd.floor(),
                text: fmt_len(dd.floor()),
                sector: 1,
                misfire: Some(true),
                figures: None,
                dice: None,
                kill: None,
                killed: None,
                counter_battery: None,
                houses: None,
                aim: None,
                from: None,
            }
            .into(),
        );
        return;
    }
    let (figs, guns) = under_sbi(t, &gu.id, gp, aim, face, s.before);
    let (figs, house_ev) = houses::shell(t, gp, aim, face, figs, side, &mut losses.kills);
    let dice = t.rolls(figs.len());
    let mut per: BTreeMap<String, u32> = BTreeMap::new();
    for ((u, _), d) in figs.iter().zip(&dice) {
        if r.how_kill.contains(d) {
            *per.entry(u.clone()).or_default() += 1;
        }
    }
    let cb = counter_battery(t, &guns, dd, &mut losses.damage);
    t.ev.push(
        Charge::Shell {
            unit: gu.id.to_string(),
            gun: gi + 1,
            target: tg.id.to_string(),
            range: dd.floor(),
            text: fmt_len(dd.floor()),
            sector: face,
            figures: Some(figs.len()),
            dice: Some(dice.clone()),
            kill: Some(r.how_kill.clone()),
            killed: Some(per.clone()),
            counter_battery: Some(cb),
            houses: Some(house_ev),
            aim: Some([aim.x, aim.y]),
            from: Some([gp.x, gp.y]),
            misfire: None,
        }
        .into(),
    );
    for (u, k) in per {
        losses.kills.push((u, k, side));
    }
}

/// Roundshot: the sleeve thrown off by the two dice, its figures, houses
/// and guns.
fn roundshot_shot(t: &mut Turn<'_, '_, '_>, s: &Shot<'_>, losses: &mut Losses) {
    let r = t.r;
    let (gu, tg, gp, gi, side) = (s.gu, s.tg, s.gp, s.gi, s.gu.side);
    let aim = footprint(r, tg).centre();
    let dd = Dist2::of(gp.dist2(aim));
    let Some((_, band)) = band_of(&r.roundshot, dd) else {
        return;
    };
    let band = band.clone();
    let plus = t.roll();
    let minus = t.roll();
    let off = (i64::from(plus) - i64::from(minus)) * PER_INCH;
    let (figs, guns) = under_sleeve(t, &gu.id, gp, aim, off);
    let (figs, house_ev) = houses::roundshot(t, gp, aim, off, dd, figs, side, &mut losses.kills);
    let dice = t.rolls(figs.len());
    let mut per: BTreeMap<String, u32> = BTreeMap::new();
    for ((u, _), d) in figs.iter().zip(&dice) {
        if band.kill.contains(d) {
            *per.entry(u.clone()).or_default() += 1;
        }
    }
    let cb = counter_battery(t, &guns, dd, &mut losses.damage);
    t.ev.push(
        Charge::Roundshot {
            unit: gu.id.to_string(),
            gun: gi + 1,
            target: tg.id.to_string(),
            range: dd.floor(),
            text: fmt_len(dd.floor()),
            kill: band.kill.clone(),
            plus,
            minus,
            sleeve: off,
            sleeve_text: fmt_len(off),
            figures: figs.len(),
            dice: dice.clone(),
            killed: per.clone(),
            counter_battery: cb,
            houses: house_ev,
            aim: [aim.x, aim.y],
            from: [gp.x, gp.y],
        }
        .into(),
    );
    for (u, k) in per {
        losses.kills.push((u, k, side));
    }
}

/// Counter-battery damage, once every battery has fired: a gun with
/// enough is destroyed.
fn damage_guns(t: &mut Turn<'_, '_, '_>, damage: Vec<(String, usize, u32)>) {
    let r = t.r;
    for (u, gi, pts) in damage {
        if let Some(m) = t.st.unit_mut(&u) {
            if let Some(x) = m.guns.get_mut(gi) {
                x.damage += pts;
                if x.damage >= r.cb_destroyed && !x.destroyed {
                    x.destroyed = true;
                    t.ev.push(
                        Charge::GunDestroyed {
                            unit: u.to_string(),
                            gun: gi + 1,
                            damage: x.damage,
                        }
                        .into(),
                    );
                }
            }
        }
    }
}

fn counter_battery(
    t: &mut Turn<'_, '_, '_>,
    guns: &[(String, usize)],
    d: Dist2,
    out: &mut Vec<(String, usize, u32)>,
) -> Vec<CounterBattery> {
    let r = t.r;
    let reduce = r
        .cb_reduce
        .iter()
        .filter(|(from, _)| d.at_least(*from))
        .map(|(_, b)| *b)
        .max()
        .unwrap_or(0);
    let mut ev = Vec::new();
    for (u, gi) in guns {
        let die = t.roll();
        let pts = die.saturating_sub(reduce);
        out.push((u.clone(), *gi, pts));
        ev.push(CounterBattery {
            unit: u.clone(),
            gun: gi + 1,
            die,
            less: reduce,
            damage: pts,
        });
    }
    ev
}

/// Figures and guns in one sector of the shell-burst indicator centred on
/// `aim`: 6 the centre disc, 5 the quarter furthest from the gun, 2 the
/// nearest, 3 the left and 4 the right as the gun sees it.
fn under_sbi(
    t: &Turn<'_, '_, '_>,
    shooter: &str,
    gun: Pt,
    aim: Pt,
    sector: u32,
    before: &BTreeMap<String, Unit>,
) -> (Covered, Covered) {
    let r = t.r;
    let vx = i128::from(aim.x - gun.x);
    let vy = i128::from(aim.y - gun.y);
    let inside = |p: Pt| -> bool {
        let d2 = aim.dist2(p);
        let rr = i128::from(r.sbi_radius);
        if d2 > rr * rr {
            return false;
        }
        let rc = i128::from(r.sbi_centre);
        let s = if d2 <= rc * rc {
            6
        } else {
            let dx = i128::from(p.x - aim.x);
            let dy = i128::from(p.y - aim.y);
            let dot = dx * vx + dy * vy;
            let cr = vx * dy - vy * dx; // > 0: left of the line of fire
            if dot >= cr.abs() {
                5
            } else if -dot >= cr.abs() {
                2
            } else if cr > 0 {
                3
            } else {
                4
            }
        };
        s == sector
    };
    let mut figs = Vec::new();
    let mut guns = Vec::new();
    for u in before.values() {
        if u.id == shooter {
            continue;
        }
        for (i, p) in figures(r, u).into_iter().enumerate() {
            if inside(p) {
                figs.push((u.id.clone(), i));
            }
        }
        for (i, p) in gun_points(r, u).into_iter().enumerate() {
            if !u.guns.get(i).is_some_and(|x| x.destroyed) && inside(p) {
                guns.push((u.id.clone(), i));
            }
        }
    }
    (figs, guns)
}

// ------------------------------------------------------------ musketry

/// One line-infantry volley at close range or any band: returns figures
/// killed (applied at once).
fn line_volley(
    t: &mut Turn<'_, '_, '_>,
    shooter: &str,
    target: &str,
    band: &Band,
    cover: bool,
) -> u32 {
    let (Some(sh), Some(tg)) = (t.st.unit(shooter).cloned(), t.st.unit(target).cloned()) else {
        return 0;
    };
    let (killed, ev) = volley_dice(t, &sh, &tg, band, cover, None);
    t.ev.push(ev.into());
    t.kill(target, killed, sh.side)
}

pub(crate) fn firers(r: &Ruleset, u: &Unit) -> u32 {
    let tr = troop(r, u);
    match u.formation.as_str() {
        "column" => shape(tr, u).files.min(u.rf),
        _ => u.rf,
    }
}

/// The dice of a volley: a die per `fire_per` firers, less the deduction;
/// each hit a die for the figure of the target group of 6 it strikes.
fn volley_dice(
    t: &mut Turn<'_, '_, '_>,
    sh: &Unit,
    tg: &Unit,
    band: &Band,
    cover: bool,
    d: Option<Dist2>,
) -> (u32, Charge) {
    let r = t.r;
    let tr = troop(r, sh);
    let n = firers(r, sh) / tr.fire_per;
    let ded = if cover { band.cover } else { band.open };
    let groups = tg.rf.div_ceil(r.group).max(1);
    let mut struck: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut dice = Vec::new();
    for k in 0..n {
        let die = t.roll();
        let hits = die.saturating_sub(ded);
        let grp = k % groups;
        let size = (tg.rf - grp * r.group).min(r.group);
        let faces = t.rolls(hits as usize);
        for f in &faces {
            if *f <= size {
                struck.insert((grp, *f));
            }
        }
        dice.push(VolleyDie {
            die,
            hits,
            group: grp + 1,
            size,
            figures: faces,
        });
    }
    let killed = struck.len() as u32;
    let ev = Charge::Volley {
        unit: sh.id.to_string(),
        target: tg.id.to_string(),
        firers: firers(r, sh),
        per: tr.fire_per,
        range: d.map(Dist2::floor),
        text: d.map(|d| fmt_len(d.floor())),
        band_to: band.to,
        first: !sh.volleyed,
        cover,
        deduct: ded,
        dice,
        killed,
    };
    (killed, ev)
}

fn musketry(t: &mut Turn<'_, '_, '_>, all: &[Plan]) {
    let r = t.r;
    let shooters: Vec<(String, String, bool)> = all
        .iter()
        .filter_map(|p| match &p.action {
            Some(Action::Fire(x)) if !troop(r, &p.end).is("artillery") => {
                Some((p.unit.clone(), x.clone(), false))
            }
            Some(Action::PickOff(x)) => Some((p.unit.clone(), x.clone(), true)),
            _ => None,
        })
        .collect();
    let second = fires_first(t, &shooters);
    for wave in 0..2 {
        let snapshot = positions(t);
        let mut hits = Volleys::default();
        for (sid, tid, pick) in &shooters {
            if (wave == 1) != second.contains(sid) {
                continue;
            }
            musket_shot(t, sid, tid, *pick, &snapshot, &mut hits);
        }
        for (u, k, side) in hits.kills {
            t.kill(&u, k, side);
        }
        for (u, i, _) in hits.officers {
            officer_hit(t, &u, i);
        }
    }
}

/// Who fires first between two units firing at each other: the units that
/// fire second.
fn fires_first(t: &mut Turn<'_, '_, '_>, shooters: &[(String, String, bool)]) -> BTreeSet<String> {
    let mut second: BTreeSet<String> = BTreeSet::new();
    let mut done_pairs: BTreeSet<(String, String)> = BTreeSet::new();
    for (a, b, _) in shooters {
        if shooters.iter().any(|(x, y, _)| x == b && y == a) {
            let key = if a < b {
                (a.clone(), b.clone())
            } else {
                (b.clone(), a.clone())
            };
            if !done_pairs.insert(key) {
                continue;
            }
            let da = t.roll();
            let db = t.roll();
            let first = match da.cmp(&db) {
                std::cmp::Ordering::Greater => Some(a.clone()),
                std::cmp::Ordering::Less => Some(b.clone()),
                std::cmp::Ordering::Equal => None,
            };
            t.ev.push(
                Charge::FiresFirst {
                    a: a.to_string(),
                    b: b.to_string(),
                    dice: [da, db],
                    first: first.clone(),
                }
                .into(),
            );
            match first {
                Some(f) if f == *a => {
                    second.insert(b.clone());
                }
                Some(_) => {
                    second.insert(a.clone());
                }
                None => {}
            }
        }
    }
    second
}

/// A wave's figures killed (unit, figures, by side) and officers hit
/// (unit, officer, picked off), applied once the wave has fired.
#[derive(Default)]
struct Volleys {
    kills: Vec<(String, u32, usize)>,
    officers: Vec<(String, usize, bool)>,
}

/// One unit's musketry: the line's volley, light infantry's picking off
/// or skirmishing fire.
fn musket_shot(
    t: &mut Turn<'_, '_, '_>,
    sid: &str,
    tid: &str,
    pick: bool,
    snapshot: &BTreeMap<String, Unit>,
    hits: &mut Volleys,
) {
    let r = t.r;
    let lapse = |t: &mut Turn<'_, '_, '_>, why: String| {
        t.ev.push(
            Charge::Lapse {
                unit: sid.to_string(),
                why,
            }
            .into(),
        );
    };
    let (Some(sh), Some(tg)) = (snapshot.get(sid).cloned(), snapshot.get(tid).cloned()) else {
        lapse(t, format!("{tid} is gone"));
        return;
    };
    if sh.rf == 0 || sh.melee.is_some() {
        lapse(t, "in melee or without men: no musketry".into());
        return;
    }
    let sight = match musket_sight(r, &t.st, &sh, &tg, snapshot) {
        Ok(s) => s,
        Err(why) => {
            lapse(t, why.to_string());
            return;
        }
    };
    let tr = troop(r, &sh);
    if tr.musket == "line" {
        let table = if sh.volleyed {
            &r.normal
        } else {
            &r.first_volley
        };
        let Some((_, band)) = band_of(table, sight.dist) else {
            return;
        };
        let band = band.clone();
        let (k, ev) = volley_dice(t, &sh, &tg, &band, sight.cover, Some(sight.dist));
        t.ev.push(ev.into());
        hits.kills.push((tid.to_string(), k, sh.side));
        if let Some(m) = t.st.unit_mut(sid) {
            m.volleyed = true;
        }
    } else if pick {
        pick_off_shot(t, &sh, &tg, &sight, hits);
    } else {
        skirmish_shot(t, &sh, &tg, &sight, hits);
    }
}

/// Light infantry picking off officers.
fn pick_off_shot(
    t: &mut Turn<'_, '_, '_>,
    sh: &Unit,
    tg: &Unit,
    sight: &Sight,
    hits: &mut Volleys,
) {
    let r = t.r;
    let (sid, tid) = (&sh.id, &tg.id);
    let bands = &r.pick_off;
    let target_light = troop(r, tg).light;
    let _ = target_light;
    let Some((_, band)) = band_of(bands, sight.dist) else {
        return;
    };
    let band = band.clone();
    let line_cover = sight.cover && !troop(r, tg).light;
    if line_cover {
        t.ev.push(
            Charge::Lapse {
                unit: sid.to_string(),
                why: "no picking off at line infantry in cover".into(),
            }
            .into(),
        );
        return;
    }
    let dice = t.rolls(sh.rf as usize);
    let n = dice.iter().filter(|d| band.kill.contains(d)).count();
    let mut taken: BTreeSet<usize> = BTreeSet::new();
    let mut shot = Vec::new();
    for _ in 0..n {
        // The highest-ranking officer still standing (mounted
        // only beyond the near band).
        let cand = tg
            .officers
            .iter()
            .enumerate()
            .filter(|(i, o)| o.alive && !taken.contains(i) && (!band.mounted_only || o.mounted))
            .max_by_key(|(i, o)| (o.points, std::cmp::Reverse(*i)));
        if let Some((i, o)) = cand {
            taken.insert(i);
            shot.push(o.rank.clone());
            hits.officers.push((tid.clone(), i, true));
        }
    }
    t.ev.push(
        Charge::PickOff {
            unit: sid.to_string(),
            target: tid.to_string(),
            range: sight.dist.floor(),
            text: fmt_len(sight.dist.floor()),
            kill: band.kill.clone(),
            dice: dice.clone(),
            officers_hit: shot,
        }
        .into(),
    );
}

/// Light infantry's skirmishing band: the table by the target's kind and
/// cover, the band by the range (None: no effect at that range).
pub(crate) fn skirmish_band(r: &Ruleset, tg: &Unit, sight: &Sight) -> Option<Band> {
    let bands = match (troop(r, tg).light, sight.cover) {
        (true, false) => &r.at_light_open,
        (true, true) => &r.at_light_cover,
        (false, true) => &r.at_line_cover,
        (false, false) => &r.brown,
    };
    band_of(bands, sight.dist).map(|(_, b)| b.clone())
}

/// Light infantry's skirmishing fire: the table by the target's kind and
/// cover.
fn skirmish_shot(
    t: &mut Turn<'_, '_, '_>,
    sh: &Unit,
    tg: &Unit,
    sight: &Sight,
    hits: &mut Volleys,
) {
    let r = t.r;
    let (sid, tid) = (&sh.id, &tg.id);
    let Some(band) = skirmish_band(r, tg, sight) else {
        t.ev.push(
            Charge::Lapse {
                unit: sid.to_string(),
                why: format!(
                    "no effect at {} against that target",
                    fmt_len(sight.dist.floor())
                ),
            }
            .into(),
        );
        return;
    };
    let dice = t.rolls(sh.rf as usize);
    // No more killed than the target has (the report said more before).
    let k = (dice.iter().filter(|d| band.kill.contains(d)).count() as u32).min(tg.rf);
    t.ev.push(
        Charge::Skirmish {
            unit: sid.to_string(),
            target: tid.to_string(),
            range: sight.dist.floor(),
            text: fmt_len(sight.dist.floor()),
            cover: sight.cover,
            kill: band.kill.clone(),
            dice: dice.clone(),
            killed: k,
        }
        .into(),
    );
    hits.kills.push((tid.clone(), k, sh.side));
}

/// An officer hit: the saving throw (5 or 6 saves him).
fn officer_hit(t: &mut Turn<'_, '_, '_>, unit: &str, i: usize) {
    let die = t.roll();
    let saved = t.r.morale.officer_save.contains(&die);
    let mut rank = String::new();
    if let Some(u) = t.st.unit_mut(unit) {
        if let Some(o) = u.officers.get_mut(i) {
            rank = o.rank.clone();
            if !saved {
                o.alive = false;
            }
        }
    }
    if !saved {
        *t.lost.entry(unit.to_string()).or_default() += 0;
        t.melee_credit.entry(format!("officer:{unit}")).or_default();
    }
    t.ev.push(
        Charge::Officer {
            unit: unit.to_string(),
            rank: rank.to_string(),
            save: die,
            saved,
        }
        .into(),
    );
}

// ------------------------------------------------------------ melee

/// The combats of one move of melee: (a's figures, b's figures) each.
fn pairings(r: &Ruleset, a_class: &str, a: u32, b_class: &str, b: u32) -> Vec<(u32, u32)> {
    if a == 0 || b == 0 {
        return Vec::new();
    }
    // The largest group the table allows against one figure of the other
    // class.
    let max_vs = |one: &str, many: &str| -> u32 {
        r.combats
            .iter()
            .filter(|c| c.a_n == 1 && c.a_class == one && c.b_class == many)
            .map(|c| c.b_n)
            .max()
            .unwrap_or(0)
    };
    let one_a = max_vs(a_class, b_class).max(u32::from(a_class == b_class));
    let one_b = max_vs(b_class, a_class).max(u32::from(a_class == b_class));
    // Same troop types: up to 2 to 1 either way; cavalry against infantry:
    // one horseman against up to three foot.
    let same = a_class == b_class;
    let (ma, mb) = if same {
        (2, 2)
    } else {
        (one_a.max(1), one_b.max(1))
    };
    // Singles on the side with fewer figures; the other side's extras
    // double (or triple) up, within the table's limits.
    if a <= b || (!same && one_a > 1) {
        let singles = a.min(b);
        let mut groups = vec![1u32; singles as usize];
        let mut extra = b - singles.min(b);
        let cap = if same { 2 } else { ma };
        let mut level = 2;
        while extra > 0 && level <= cap {
            for gsz in groups.iter_mut() {
                if extra == 0 {
                    break;
                }
                if *gsz < level {
                    *gsz += 1;
                    extra -= 1;
                }
            }
            level += 1;
        }
        groups.into_iter().map(|k| (1, k)).collect()
    } else {
        let singles = b.min(a);
        let mut groups = vec![1u32; singles as usize];
        let mut extra = a - singles;
        let cap = if same { 2 } else { mb };
        let mut level = 2;
        while extra > 0 && level <= cap {
            for gsz in groups.iter_mut() {
                if extra == 0 {
                    break;
                }
                if *gsz < level {
                    *gsz += 1;
                    extra -= 1;
                }
            }
            level += 1;
        }
        groups.into_iter().map(|k| (k, 1)).collect()
    }
}

/// Each side's die in halves for a combat of `na` against `nb`.
fn multipliers(r: &Ruleset, a_class: &str, na: u32, b_class: &str, nb: u32) -> (i32, i32) {
    for c in &r.combats {
        if c.a_class == a_class && c.a_n == na && c.b_class == b_class && c.b_n == nb {
            return (c.a_halves, c.b_halves);
        }
        if c.a_class == b_class && c.a_n == nb && c.b_class == a_class && c.b_n == na {
            return (c.b_halves, c.a_halves);
        }
    }
    (2, 2)
}

fn engaged(r: &Ruleset, u: &Unit, attacker: bool, first: bool, other_width: i64) -> u32 {
    let tr = troop(r, u);
    let sh = shape(tr, u);
    if !first {
        return u.rf;
    }
    if attacker {
        if tr.is("infantry") && u.formation == "column" {
            // Front rank, two from each flank of the second rank, one from
            // each flank of the third and fourth.
            return (sh.files + 8).min(u.rf);
        }
        return sh.files.min(u.rf);
    }
    // Defenders: the figures along the struck face within the attackers'
    // frontage.
    let n = (other_width + sh.pitch - 1) / sh.pitch.max(1);
    (n as u32).min(sh.files).min(u.rf).max(1)
}

fn melee(t: &mut Turn<'_, '_, '_>) {
    let pairs: Vec<(String, String)> =
        t.st.units
            .iter()
            .filter_map(|u| {
                u.melee
                    .as_ref()
                    .filter(|m| m.attacker)
                    .map(|m| (u.id.clone(), m.with.clone()))
            })
            .collect();
    for (aid, did) in pairs {
        let (Some(a), Some(d)) = (t.st.unit(&aid).cloned(), t.st.unit(&did).cloned()) else {
            for id in [&aid, &did] {
                if let Some(u) = t.st.unit_mut(id) {
                    u.melee = None;
                }
            }
            continue;
        };
        melee_move(t, (&aid, &did), &a, &d);
    }
}

/// The melee modifiers of both sides, in half points, and why.
struct Mods {
    ma: i32,
    md: i32,
    why_a: Vec<&'static str>,
    why_d: Vec<&'static str>,
}

/// One move of melee between an attacker and a defender.
fn melee_move(t: &mut Turn<'_, '_, '_>, (aid, did): (&str, &str), a: &Unit, d: &Unit) {
    let r = t.r;
    let round = a.melee.as_ref().map_or(0, |m| m.moves);
    let first = round == 0;
    let (ta, td) = (troop(r, a), troop(r, d));
    let aw = {
        let sh = shape(ta, a);
        let n = engaged(r, a, true, true, 0);
        sh.pitch * i64::from(n.min(sh.files + 8))
    };
    let na = engaged(r, a, true, first, 0);
    let nd = engaged(r, d, false, first, aw);
    let (combats, second) = if first {
        (pairings(r, &ta.class, na, &td.class, nd), None)
    } else {
        let (c, s) = pinning::second_move(r, &ta.class, na, &td.class, nd, &mut || t.roll());
        (c, Some(s))
    };
    let m = melee_mods(t, aid, a, d, first, round);
    let dfp = footprint(r, d);
    let terrain = t.st.terrain.clone();
    let in_house = |p: Pt| {
        terrain
            .iter()
            .any(|f| f.kind == "building" && g::in_polygon(&f.polygon(), p))
    };
    let house = in_house(dfp.centre()) && !in_house(footprint(r, a).centre());
    let (fights, la, ld) = melee_fights(t, a, d, &combats, &m, house);
    let la = t.kill(aid, la, d.side);
    let ld = t.kill(did, ld, a.side)
        + if first {
            t.melee_credit
                .get(&format!("ridden:{aid}"))
                .copied()
                .unwrap_or(0)
        } else {
            0
        };
    let credit = t.melee_credit.get(aid).copied().unwrap_or(0);
    let ta_loss = la + if first { credit } else { 0 };
    let limit = r.melee.moves + u32::from(in_house(dfp.centre()));
    let mut outcome = "continues";
    let (mut a_wd, mut d_wd) = (false, false);
    if ta_loss > 0 && ta_loss >= 2 * ld {
        a_wd = true;
        outcome = "attacker withdraws";
    } else if ld > 0 && ld >= 2 * ta_loss {
        d_wd = true;
        outcome = "defender withdraws";
    } else if round + 1 >= limit {
        outcome = "draw";
    }
    t.ev.push(
        Charge::Melee {
            attacker: aid.to_string(),
            defender: did.to_string(),
            round: round + 1,
            engaged: [na, nd],
            mods: [m.ma, m.md],
            why: [m.why_a, m.why_d].map(|w| w.into_iter().map(str::to_string).collect()),
            second,
            combats: fights,
            losses: [la, ld],
            fire_credit: credit,
            outcome: outcome.to_string(),
        }
        .into(),
    );
    melee_after(t, (aid, did), d, a_wd, d_wd, outcome);
}

/// Grenadiers, charging, downhill, heavy against light cavalry, a wall,
/// exhausted troops.
fn melee_mods(
    t: &Turn<'_, '_, '_>,
    aid: &str,
    a: &Unit,
    d: &Unit,
    first: bool,
    round: u32,
) -> Mods {
    let r = t.r;
    let (ta, td) = (troop(r, a), troop(r, d));
    let mut m = Mods {
        ma: 0,
        md: 0,
        why_a: Vec::new(),
        why_d: Vec::new(),
    };
    if ta.grenadiers {
        m.ma += r.melee.grenadiers;
        m.why_a.push("grenadiers");
    }
    if td.grenadiers {
        m.md += r.melee.grenadiers;
        m.why_d.push("grenadiers");
    }
    let impetus = t.melee_credit.contains_key(&format!("impetus:{aid}"));
    if first && impetus {
        m.ma += r.melee.charging;
        m.why_a.push("charging");
    }
    let dfp = footprint(r, d);
    if first && impetus && t.st.level(a.front) > t.st.level(dfp.centre()) {
        m.ma += r.melee.downhill;
        m.why_a.push("downhill");
    }
    if ta.heavy && td.is("cavalry") && !td.heavy {
        m.ma += r.melee.heavy_vs_light;
        m.why_a.push("heavy v light");
    }
    if td.heavy && ta.is("cavalry") && !ta.heavy {
        m.md += r.melee.heavy_vs_light;
        m.why_d.push("heavy v light");
    }
    let behind_wall = td.is("infantry")
        && t.st
            .terrain
            .iter()
            .any(|f| f.kind == "wall" && g::crosses_line(a.front, dfp.centre(), &f.polyline()));
    if behind_wall {
        m.md += r.melee.wall;
        m.why_d.push("behind a wall");
    }
    if let Some(v) = exhaustion_bonus(r, a, d, round) {
        m.ma += v;
        m.why_a.push("against exhausted troops");
    }
    m
}

/// The combats of one move: a die each (and the break-in throw into
/// houses); figures lost by the attacker and the defender.
fn melee_fights(
    t: &mut Turn<'_, '_, '_>,
    a: &Unit,
    d: &Unit,
    combats: &[(u32, u32)],
    m: &Mods,
    house: bool,
) -> (Vec<Combat>, u32, u32) {
    let r = t.r;
    let (ta, td) = (troop(r, a), troop(r, d));
    let mut la = 0u32;
    let mut ld = 0u32;
    let mut fights = Vec::new();
    for (ka, kd) in combats {
        let mut dm = m.md;
        let mut broke_in = None;
        if house {
            let b = t.roll();
            let ok = r.melee.break_in.contains(&b);
            broke_in = Some(b);
            if !ok {
                dm += r.melee.house;
            }
        }
        let (ha, hd) = multipliers(r, &ta.class, *ka, &td.class, *kd);
        let da = t.roll();
        let dd = t.roll();
        let sa = da as i32 * ha + 2 * m.ma;
        let sd = dd as i32 * hd + 2 * dm;
        let res = match sa.cmp(&sd) {
            std::cmp::Ordering::Greater => {
                ld += 1;
                "attacker"
            }
            std::cmp::Ordering::Less => {
                la += 1;
                "defender"
            }
            std::cmp::Ordering::Equal => "tie",
        };
        fights.push(Combat {
            a: *ka,
            d: *kd,
            a_die: da,
            d_die: dd,
            a_score: f64::from(sa) / 2.0,
            d_score: f64::from(sd) / 2.0,
            winner: res.into(),
            break_in: broke_in,
        });
    }
    (fights, la, ld)
}

/// After a move of melee: a withdrawal, a draw (both exhausted), or
/// another move.
fn melee_after(
    t: &mut Turn<'_, '_, '_>,
    (aid, did): (&str, &str),
    d: &Unit,
    a_wd: bool,
    d_wd: bool,
    outcome: &str,
) {
    let end = |t: &mut Turn<'_, '_, '_>, id: &str, f: Option<Forced>| {
        if let Some(u) = t.st.unit_mut(id) {
            u.melee = None;
            if f.is_some() {
                u.forced = f;
            }
        }
    };
    if a_wd || d_wd {
        end(t, aid, a_wd.then_some(Forced::Retire));
        end(t, did, d_wd.then_some(Forced::Retire));
    } else if outcome == "draw" {
        let hold = d.standing.iter().any(|s| s == "HOLD GROUND");
        end(t, aid, Some(Forced::Exhausted { retire: 2, rest: 2 }));
        end(
            t,
            did,
            Some(Forced::Exhausted {
                retire: if hold { 0 } else { 2 },
                rest: 2,
            }),
        );
        for id in [aid, did] {
            if let Some(u) = t.st.unit_mut(id) {
                u.exhausted_since = Some(0);
            }
            t.not_rested.insert(id.to_string());
        }
    } else {
        for id in [aid, did] {
            if let Some(u) = t.st.unit_mut(id) {
                if let Some(m) = u.melee.as_mut() {
                    m.moves += 1;
                }
            }
        }
    }
}

/// The attacker's addition against exhausted troops
/// (docs/rules/charge.md, "Exhausted troops"), or None. `d.exhausted_since`
/// counts the moves ended since its drawn melee's last fighting move, so
/// the count when this melee began is the count now less the moves of it
/// already fought.
fn exhaustion_bonus(r: &Ruleset, a: &Unit, d: &Unit, round: u32) -> Option<i32> {
    let k = d.exhausted_since?;
    // "attacked by fresh troops": an exhausted attacker earns nothing.
    if a.exhausted_since.is_some() {
        return None;
    }
    let at_contact = k.saturating_sub(round);
    // "immediately following the fighting moves of the exhausted side" is
    // the first move after them; later, it "has had a clear move".
    let fresh = at_contact <= 1;
    Some(match (fresh, round > 0) {
        (true, false) => r.melee.exhausted_fresh,
        (false, false) => r.melee.exhausted_rested,
        (true, true) => r
            .melee
            .exhausted_fresh_continued
            .unwrap_or(r.melee.exhausted_fresh),
        (false, true) => r
            .melee
            .exhausted_rested_continued
            .unwrap_or(r.melee.exhausted_rested),
    })
}

// ------------------------------------------------------------ morale

fn loss_points(tr: &Troop, u: &Unit) -> i32 {
    let lost = u.start_rf.saturating_sub(u.rf);
    tr.losses
        .iter()
        .filter(|[n, d, _]| lost * d >= n * u.start_rf)
        .map(|[_, _, p]| *p as i32)
        .max()
        .unwrap_or(0)
}

fn morale(t: &mut Turn<'_, '_, '_>, all: &[Plan], moved: &BTreeSet<String>) {
    let r = t.r;
    let ids: Vec<String> = t.st.units.iter().map(|u| u.id.clone()).collect();
    for id in ids {
        let Some(u) = t.st.unit(&id).cloned() else {
            continue;
        };
        let tr = troop(r, &u);
        if tr.is("general") {
            continue;
        }
        let lost = t.lost.get(&id).copied().unwrap_or(0) > 0
            || t.melee_credit.contains_key(&format!("officer:{id}"));
        if half_rule(t, &u) {
            continue;
        }
        // Wagons and barges have no officers and no command points: the
        // 50% rule only.
        if u.broken || !(lost || u.bad_morale.is_some()) || general::non_combatant(tr) {
            continue;
        }
        morale_test(t, all, moved, &u, tr);
    }
}

/// The 50% rule for unit `u` (as it stood before the morale step): true
/// when it broke or was destroyed (no morale test follows).
fn half_rule(t: &mut Turn<'_, '_, '_>, u: &Unit) -> bool {
    let r = t.r;
    let id = u.id.clone();
    // The 50% rule.
    if !u.broken && u.rf * r.morale.half[1] <= u.start_rf * r.morale.half[0] {
        let first_melee = u.melee.as_ref().is_some_and(|m| m.moves == 1);
        let in_house = super::state::in_house(r, &t.st, u);
        if first_melee {
            t.ev.push(
                Charge::Half {
                    unit: id.to_string(),
                    rf: u.rf,
                    start: u.start_rf,
                    note: Some("completes the second move of melee first".into()),
                    in_house: None,
                }
                .into(),
            );
        } else {
            if u.rf == 0 {
                t.ev.push(
                    Charge::Destroyed {
                        unit: id.to_string(),
                    }
                    .into(),
                );
                t.st.units.retain(|x| x.id != id);
                return true;
            }
            if let Some(m) = t.st.unit_mut(&id) {
                m.broken = true;
                m.melee = None;
                m.forced = if in_house { None } else { Some(Forced::Rout) };
            }
            // Its melee opponent is free.
            for o in t.st.units.iter_mut() {
                if o.melee.as_ref().is_some_and(|m| m.with == id) {
                    o.melee = None;
                }
            }
            t.ev.push(
                Charge::Half {
                    unit: id.to_string(),
                    rf: u.rf,
                    start: u.start_rf,
                    in_house: Some(in_house),
                    note: None,
                }
                .into(),
            );
            return true;
        }
    }
    false
}

/// A morale test of unit `u`, which lost men this move or is in bad
/// morale: the die, the result and what it forces.
fn morale_test(
    t: &mut Turn<'_, '_, '_>,
    all: &[Plan],
    moved: &BTreeSet<String>,
    u: &Unit,
    tr: &Troop,
) {
    let r = t.r;
    let id = u.id.clone();
    let need = u.bad_morale.unwrap_or(r.morale.good);
    let pts = u.command_points();
    let lp = loss_points(tr, u);
    let die = t.roll();
    let score = pts - lp + die as i32;
    let good = score >= need;
    let plan = all.iter().find(|p| p.unit == id);
    let fired = plan.is_some_and(|p| {
        matches!(
            p.action,
            Some(Action::Fire(_) | Action::Canister(_) | Action::PickOff(_))
        )
    });
    let advanced = plan.is_some_and(|p| p.advanced) && moved.contains(&id)
        || plan.is_some_and(|p| matches!(p.action, Some(Action::Charge { .. })));
    let mut result = if good {
        if u.bad_morale.is_some() {
            "rallies"
        } else {
            "good"
        }
    } else {
        "bad"
    };
    let mut dispersed = false;
    if good {
        if let Some(m) = t.st.unit_mut(&id) {
            m.bad_morale = None;
            if m.forced == Some(Forced::Halt) {
                m.forced = None;
            }
        }
    } else if u.bad_morale.is_some() && need >= r.morale.dispersed_after {
        dispersed = true;
        result = "dispersed";
    } else {
        let next = if u.bad_morale.is_some() {
            need + r.morale.rally_step
        } else {
            r.morale.good + r.morale.rally_step
        };
        let effect = if u.melee.is_some() {
            Forced::BreakOff
        } else if advanced || fired {
            Forced::Halt
        } else {
            Forced::Retire
        };
        if let Some(m) = t.st.unit_mut(&id) {
            m.bad_morale = Some(next);
            if effect == Forced::BreakOff {
                m.melee = None;
            }
            if !matches!(m.forced, Some(Forced::Exhausted { .. })) || effect == Forced::BreakOff {
                m.forced = Some(effect.clone());
            }
        }
        if effect == Forced::BreakOff {
            for o in t.st.units.iter_mut() {
                if o.melee.as_ref().is_some_and(|m| m.with == id) {
                    o.melee = None;
                }
            }
        }
    }
    t.ev.push(
        Charge::Morale {
            unit: id.to_string(),
            points: pts,
            losses: lp,
            die,
            score,
            need,
            result: result.to_string(),
        }
        .into(),
    );
    if dispersed {
        t.st.units.retain(|x| x.id != id);
        for o in t.st.units.iter_mut() {
            if o.melee.as_ref().is_some_and(|m| m.with == id) {
                o.melee = None;
            }
        }
    }
}

/// PREDICT (crates/measured/src/predict.rs): what the engine's own morale
/// step does to `target` after it lost `killed` rank and file to `by`'s
/// fire this move, its morale die being `die`; carried out on a copy that
/// holds the target alone, so no other unit's test takes the die.
pub(crate) fn settle_losses(
    r: &Ruleset,
    st: &State,
    target: &str,
    (killed, by): (u32, usize),
    die: u32,
) -> (State, Vec<Event>) {
    let mut copy = st.clone();
    copy.units.retain(|u| u.id == target);
    let mut dice = adjutant_dice::ForcedDice::new(vec![die]);
    let mut deck = adjutant_dice::ForcedDice::new(Vec::new());
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let mut t = Turn {
        r,
        st: copy,
        ev: Vec::new(),
        chance: Some(&mut chance),
        lost: BTreeMap::new(),
        melee_credit: BTreeMap::new(),
        not_rested: BTreeSet::new(),
    };
    t.kill(target, killed, by);
    morale(&mut t, &[], &BTreeSet::new());
    (t.st, t.ev)
}

/// PREDICT: the position after the move's forced moves (retire, break
/// off, rout, exhaustion), which come before any fire; no die is thrown.
pub(crate) fn after_forced_moves(r: &Ruleset, st: &State) -> State {
    let mut t = Turn {
        r,
        st: st.clone(),
        ev: Vec::new(),
        chance: None,
        lost: BTreeMap::new(),
        melee_credit: BTreeMap::new(),
        not_rested: BTreeSet::new(),
    };
    forced_moves(&mut t);
    t.st
}

/// (attacker, defender) of every melee.
fn in_contact(st: &State) -> Vec<(String, String)> {
    st.units
        .iter()
        .filter_map(|u| {
            u.melee
                .as_ref()
                .filter(|m| m.attacker)
                .map(|m| (u.id.clone(), m.with.clone()))
        })
        .collect()
}

/// Units in melee touch. A unit whose ranks thin is redrawn narrower about
/// the centre of its front, and the corners of a slanted rectangle round
/// to the sixteenth differently, so its opponent can end a sixteenth
/// inside it: the attacker stands back until the two only touch.
/// `pairs`: (attacker, defender) in contact this move, whether or not
/// their melee has ended since.
fn keep_contact_apart(t: &mut Turn<'_, '_, '_>, pairs: &[(String, String)]) {
    let r = t.r;
    for (a, d) in pairs {
        let Some(dfp) = t.st.unit(d).map(|u| footprint(r, u)) else {
            continue;
        };
        for _ in 0..8 {
            let Some(u) = t.st.unit(a) else { break };
            if !g::overlap(&footprint(r, u), &dfp) {
                break;
            }
            let back = g::offset(u.front, i64::from(u.facing), -1, 0);
            if let Some(m) = t.st.unit_mut(a) {
                m.front = back;
            }
        }
    }
}

fn end_of_move(t: &mut Turn<'_, '_, '_>, all: &[Plan], moved: &BTreeSet<String>) {
    let fired: BTreeSet<String> = all
        .iter()
        .filter(|p| {
            p.action
                .as_ref()
                .is_some_and(|a| matches!(a, Action::Fire(_) | Action::Canister(_)))
        })
        .map(|p| p.unit.clone())
        .collect();
    for u in t.st.units.iter_mut() {
        if u.crossing > 0 && !moved.contains(&u.id) {
            u.crossing -= 1;
        }
        if !moved.contains(&u.id) && u.melee.is_none() && u.forced.is_none() {
            u.rest += 1;
        }
        for gk in u.guns.iter_mut() {
            if !fired.contains(&u.id) {
                gk.fired_last = false;
            }
        }
        if let Some(k) = u.exhausted_since.as_mut() {
            *k += 1;
        }
        // A move of rest is one neither retiring nor fighting: "two of
        // retreat and two of rest".
        if let Some(Forced::Exhausted { retire: 0, rest }) = u.forced.clone() {
            if !t.not_rested.contains(&u.id) && u.melee.is_none() {
                u.forced = if rest <= 1 {
                    None
                } else {
                    Some(Forced::Exhausted {
                        retire: 0,
                        rest: rest - 1,
                    })
                };
            }
        }
        // Exhaustion ends with its rest, but not in the middle of a fight.
        if !matches!(u.forced, Some(Forced::Exhausted { .. })) && u.melee.is_none() {
            u.exhausted_since = None;
        }
    }
    let turn = t.st.turn;
    t.st.turn += 1;
    let active: Vec<usize> = (0..t.st.sides.len())
        .map(|s| {
            t.st.units
                .iter()
                .filter(|u| u.side == s && !u.broken && !general::non_combatant(troop(t.r, u)))
                .count()
        })
        .collect();
    let winner = if active[0] == 0 && active[1] == 0 {
        Some(String::new())
    } else if active[0] == 0 {
        Some(t.st.sides[1].clone())
    } else if active[1] == 0 {
        Some(t.st.sides[0].clone())
    } else if turn >= t.st.moves {
        Some(match t.st.removed[0].cmp(&t.st.removed[1]) {
            std::cmp::Ordering::Greater => t.st.sides[0].clone(),
            std::cmp::Ordering::Less => t.st.sides[1].clone(),
            std::cmp::Ordering::Equal => String::new(),
        })
    } else {
        None
    };
    if let Some(w) = winner {
        t.st.over = true;
        t.ev.push(
            Charge::GameOver {
                winner: w.to_string(),
                removed: t.st.removed.clone(),
            }
            .into(),
        );
        t.st.winner = Some(w);
    }
}
