//! Before any die: checking a side's orders, each unit's steps measured
//! and refused with the reason, the charge's path and contact.

#[allow(clippy::wildcard_imports)]
use super::*;

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
pub(super) fn allowance(t: &Troop, formation: &str, firing: bool) -> i64 {
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
pub(super) fn charge_ground(r: &Ruleset, cur: &Unit, ch: &Action) -> Vec<Footprint> {
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

pub(super) fn project_on_segment(p: Pt, a: Pt, b: Pt) -> Pt {
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
