//! The morale TESTs and their results.

#[allow(clippy::wildcard_imports)]
use super::*;

// ------------------------------------------------------------------ TESTs

/// The TEST modifiers of a unit: (what, value). `face`: contacted on this
/// face in melee; `charging`: counts the charge bonus.
pub(super) fn test_mods(
    tn: &Turn<'_, '_, '_>,
    u: &Unit,
    face: Option<usize>,
    charging: bool,
) -> Vec<(String, i32)> {
    let t = &tn.t.test;
    let mut m = Vec::new();
    let lost = u.start_rf.saturating_sub(u.rf);
    if let Some(step) = t
        .losses
        .iter()
        .rfind(|s| lost >= tn.t.pct(u.start_rf, s.percent))
    {
        m.push((format!("casualties {}% or more", step.percent), step.value));
    }
    if tn.lost_art.contains(&u.id) {
        m.push(("casualties from artillery".into(), t.artillery_casualties));
    }
    if tn.lost_flank.contains(&u.id) {
        m.push((
            "casualties in flank or rear".into(),
            t.flank_rear_casualties,
        ));
    }
    if tn.lost.get(&u.id).copied().unwrap_or(0) > 0 {
        m.push(("casualties this turn".into(), t.casualties_this_turn));
    }
    match face {
        Some(1 | 3) => m.push(("contacted on a flank".into(), t.contacted_flank)),
        Some(2) => m.push(("contacted in the rear".into(), t.contacted_rear)),
        _ => {}
    }
    match u.experience.as_str() {
        "green" => m.push(("green".into(), t.green)),
        "trained" if t.trained != 0 => m.push(("trained".into(), t.trained)),
        "veteran" if t.veteran != 0 => m.push(("veteran".into(), t.veteran)),
        _ => {}
    }
    if u.forced == Some(Forced::Retire) {
        m.push(("self retreating".into(), t.retreating));
    }
    if u.forced == Some(Forced::Rout) {
        m.push(("self routing".into(), t.routing_same));
    }
    let c = footprint(tn.r, u).centre();
    let radius = i64::from(t.radius) * PER_INCH;
    for (id, side, brigade, at, what) in &tn.happened {
        if *side != u.side || *id == u.id || !Dist2::of(at.dist2(c)).within(radius) {
            continue;
        }
        let same = !brigade.is_empty() && *brigade == u.brigade;
        let (label, v) = match *what {
            "retreat" => (
                format!("{id} retreated or evaded within 18\""),
                t.retreating,
            ),
            "rout" => (
                format!(
                    "{id} routed within 18\" ({} brigade)",
                    if same { "same" } else { "other" }
                ),
                if same {
                    t.routing_same
                } else {
                    t.routing_other
                },
            ),
            _ => (
                format!(
                    "{id} destroyed within 18\" ({} brigade)",
                    if same { "same" } else { "other" }
                ),
                if same {
                    t.destroyed_same
                } else {
                    t.destroyed_other
                },
            ),
        };
        m.push((label, v));
    }
    if charging {
        m.push(("charging".into(), t.charging));
    } else if tn.supporting.contains(&u.id) && !Turn::disordered(u) {
        // L: "Supporting units count charge bonus" (not if disordered).
        m.push(("supporting its regiment's charge".into(), t.charging));
    }
    // Friends in sight within 18", not disordered, nothing between.
    let fp = footprint(tn.r, u);
    let friend = tn.st.units.iter().find(|f| {
        f.side == u.side
            && f.id != u.id
            && tn.troop_class(f) != "command"
            && !Turn::disordered(f)
            && f.forced.is_none()
            && fp_dist2(&footprint(tn.r, f), &fp).within(radius)
            && fire_blocked_any(tn, u, f).is_none()
    });
    if let Some(f) = friend {
        m.push((format!("supported by {}", f.id), t.supported));
    }
    if (!Turn::disordered(u) && tn.command_near(u).is_some()) || tn.inspired(u) {
        m.push(("command in 18\"".into(), t.command));
    }
    m
}

/// Line of sight between two units of the same side (centre to centre).
pub(super) fn fire_blocked_any(tn: &Turn<'_, '_, '_>, a: &Unit, b: &Unit) -> Option<String> {
    let p = footprint(tn.r, a).centre();
    let q = footprint(tn.r, b).centre();
    for o in &tn.st.units {
        if o.id == a.id || o.id == b.id {
            continue;
        }
        if g::crosses(p, q, &footprint(tn.r, o).polygon()) {
            return Some(o.id.clone());
        }
    }
    for f in &tn.st.terrain {
        if !tn
            .r
            .terrain
            .get(&f.kind)
            .is_some_and(|k| k.blocks_sight && !k.line)
            || f.points.len() < 3
        {
            continue;
        }
        let poly = f.polygon();
        if g::in_polygon(&poly, p) || g::in_polygon(&poly, q) {
            continue;
        }
        if g::crosses(p, q, &poly) {
            return Some(named(f));
        }
    }
    None
}

/// A TEST: (score, die, modifiers).
pub(super) fn test(
    tn: &mut Turn<'_, '_, '_>,
    u: &Unit,
    face: Option<usize>,
    charging: bool,
) -> (i32, u32, Vec<(String, i32)>) {
    let mods = test_mods(tn, u, face, charging);
    let d = tn.roll();
    let die = tn.t.exp(u).test_die(d);
    let score = mods.iter().map(|m| m.1).sum::<i32>() + die;
    (score, d, mods)
}

pub(super) fn mods_text(mods: &[(String, i32)], face: u32, die: i32) -> String {
    let mut v: Vec<String> = mods.iter().map(|(k, x)| format!("{k} {x:+}")).collect();
    v.push(format!("die {face} ({die:+})"));
    v.join(", ")
}

/// The result of a TEST score.
pub(super) fn result_of(t: &Tables, score: i32) -> Option<String> {
    t.test
        .results
        .iter()
        .find(|r| score <= r.at_most)
        .map(|r| r.result.clone())
}

/// A unit's TEST, marked as its TEST of the turn: (score, face, die's
/// modifier, modifiers, result).
pub(super) type Tested = (i32, u32, i32, Vec<(String, i32)>, Option<String>);

pub(super) fn take_test(tn: &mut Turn<'_, '_, '_>, id: &str) -> Option<Tested> {
    let u = tn.st.unit(id).cloned()?;
    let (score, face, mods) = test(tn, &u, None, false);
    let die = tn.t.exp(&u).test_die(face);
    let res = result_of(tn.t, score);
    let turn = tn.st.turn;
    if let Some(x) = tn.st.unit_mut(id) {
        x.tested = turn;
    }
    Some((score, face, die, mods, res))
}

/// A morale TEST and its result applied.
pub(super) fn morale_test(tn: &mut Turn<'_, '_, '_>, id: &str, why: &str) {
    let Some((score, face, die, mods, res)) = take_test(tn, id) else {
        return;
    };
    apply_result(tn, id, res.as_deref());
    tn.note(
        format!(
            "{id} morale TEST ({why}): {} = {score}: {}",
            mods_text(&mods, face, die),
            res.clone().unwrap_or_else(|| "steady".into())
        ),
        Syw::Test {
            unit: id.to_string(),
            score,
            die: face,
            result: res,
        },
    );
}

pub(super) fn apply_result(tn: &mut Turn<'_, '_, '_>, id: &str, res: Option<&str>) {
    let Some(u) = tn.st.unit(id).cloned() else {
        return;
    };
    let c = footprint(tn.r, &u).centre();
    match res {
        Some("rout") => {
            if let Some(x) = tn.st.unit_mut(id) {
                x.forced = Some(Forced::Rout);
                x.marker = Some("orange".into());
            }
            tn.happened
                .push((id.to_string(), u.side, u.brigade.clone(), c, "rout"));
        }
        Some("retreat") => {
            if let Some(x) = tn.st.unit_mut(id) {
                if x.forced != Some(Forced::Rout) {
                    x.forced = Some(Forced::Retire);
                }
                x.marker = Some("orange".into());
            }
            tn.happened
                .push((id.to_string(), u.side, u.brigade.clone(), c, "retreat"));
        }
        Some("disorder") => tn.disorder(id),
        _ => {}
    }
}
