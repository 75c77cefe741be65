//! Step 6 of the move, morale: the 50% rule, then a test for every unit
//! that lost figures or whose morale is bad; losses settled for PREDICT.

#[allow(clippy::wildcard_imports)]
use super::*;

fn loss_points(tr: &Troop, u: &Unit) -> i32 {
    let lost = u.start_rf.saturating_sub(u.rf);
    tr.losses
        .iter()
        .filter(|[n, d, _]| lost * d >= n * u.start_rf)
        .map(|[_, _, p]| *p as i32)
        .max()
        .unwrap_or(0)
}

pub(super) fn morale(t: &mut Turn<'_, '_, '_>, all: &[Plan], moved: &BTreeSet<String>) {
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
            t.ev.push(Charge::Half {
                unit: id.to_string(),
                rf: u.rf,
                start: u.start_rf,
                note: Some("completes the second move of melee first".into()),
                in_house: None,
            });
        } else {
            if u.rf == 0 {
                t.ev.push(Charge::Destroyed {
                    unit: id.to_string(),
                });
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
            t.ev.push(Charge::Half {
                unit: id.to_string(),
                rf: u.rf,
                start: u.start_rf,
                in_house: Some(in_house),
                note: None,
            });
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
    t.ev.push(Charge::Morale {
        unit: id.to_string(),
        points: pts,
        losses: lp,
        die,
        score,
        need,
        result: result.to_string(),
    });
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
    settle(r, st, target, vec![die], |t| {
        t.kill(target, killed, by);
    })
}

/// PREDICT: what the engine's own saving throws and morale step do to
/// `target` whose officers `hit` (indices) were hit by fire this move,
/// those in `dead` failing their saving throw ("on a 1-4 he is dead"), its
/// morale die being `die`; on a copy holding the target alone, each
/// officer's save thrown by [`officer_hit`] on a face that gives it.
pub(crate) fn settle_officers(
    r: &Ruleset,
    st: &State,
    target: &str,
    (hit, dead): (&[usize], &[usize]),
    die: u32,
) -> (State, Vec<Event>) {
    let fails = (1..=6).find(|f| !r.morale.officer_save.contains(f));
    let saves = r.morale.officer_save.first().copied();
    let mut faces: Vec<u32> = hit
        .iter()
        .map(|i| if dead.contains(i) { fails } else { saves }.unwrap_or(1))
        .collect();
    faces.push(die);
    settle(r, st, target, faces, |t| {
        for i in hit {
            super::officers::officer_hit(t, target, *i);
        }
    })
}

/// The engine's morale step on a copy of `st` holding `target` alone, after
/// `before` (its losses this move) with the dice `faces`.
fn settle(
    r: &Ruleset,
    st: &State,
    target: &str,
    faces: Vec<u32>,
    before: impl FnOnce(&mut Turn<'_, '_, '_>),
) -> (State, Vec<Event>) {
    let mut copy = st.clone();
    copy.units.retain(|u| u.id == target);
    let mut dice = adjutant_dice::ForcedDice::new(faces);
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
    before(&mut t);
    morale(&mut t, &[], &BTreeSet::new());
    (t.st, t.ev)
}
