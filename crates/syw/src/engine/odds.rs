//! PREDICT's window on the player-turn (crates/measured/src/syw/predict.rs):
//! a fire's dice as the fire step reckons them, and what the rest of the
//! player-turn does to its target for each number killed and each TEST
//! die, both on a copy with the engine's own code.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A fire's terms, as the fire step reckons them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FireTerms {
    pub dice: u32,
    /// Why so many dice, in the report's words.
    pub why: Vec<String>,
    /// The range (sixteenths).
    pub range: i64,
    /// The faces that kill.
    pub kill: Vec<u32>,
    /// Casualties from artillery (a TEST modifier).
    pub artillery: bool,
    /// Casualties in flank or rear (a TEST modifier).
    pub flank: bool,
}

/// The terms of the whole unit `shooter`'s fire at `target` (with its
/// fire bonus) on the position `st`, the effects in force as they stand.
/// Err: why it cannot fire.
pub fn fire_terms(
    r: &Ruleset,
    st: &State,
    shooter: &str,
    target: &str,
) -> Result<FireTerms, String> {
    let t = tables(r).map_err(|e| e.to_string())?;
    let tn = quiet(r, t, st, None);
    let sh = st
        .unit(shooter)
        .ok_or_else(|| format!("there is no unit {shooter}"))?;
    let tg = st
        .unit(target)
        .ok_or_else(|| format!("there is no unit {target}"))?;
    let geo = fire_check(r, t, st, sh, tg)?;
    let (dice, why) = fire_dice(&tn, sh, tg, geo.long, geo.cone, geo.canister, true);
    Ok(FireTerms {
        dice,
        why,
        range: geo.dist,
        kill: t.kill.clone(),
        artillery: tn.troop_class(sh) == "artillery",
        flank: !ahead_of(r, tg, &footprint(r, sh)),
    })
}

/// The terms of one section of `shooter`, a refused line, firing at
/// `target` (its fire bonus if `bonus`), as the fire step reckons a
/// section's shot ("Unit fire by section between break in line (fire
/// bonus allocated to sections at players discretion)"). Err: why it
/// cannot fire.
pub fn section_fire_terms(
    r: &Ruleset,
    st: &State,
    (shooter, section, bonus): (&str, &str, bool),
    target: &str,
) -> Result<FireTerms, String> {
    let t = tables(r).map_err(|e| e.to_string())?;
    let tn = quiet(r, t, st, None);
    let whole = st
        .unit(shooter)
        .ok_or_else(|| format!("there is no unit {shooter}"))?;
    let sh = crate::line::sections(r, whole)
        .into_iter()
        .find(|(n, _)| *n == section)
        .map(|(_, u)| u)
        .ok_or_else(|| format!("{shooter} has no {section} section"))?;
    let tg = st
        .unit(target)
        .ok_or_else(|| format!("there is no unit {target}"))?;
    let geo = fire_check(r, t, st, &sh, tg)?;
    let (dice, why) = fire_dice(&tn, &sh, tg, geo.long, geo.cone, geo.canister, bonus);
    Ok(FireTerms {
        dice,
        why,
        range: geo.dist,
        kill: t.kill.clone(),
        artillery: tn.troop_class(&sh) == "artillery",
        flank: !ahead_of(r, tg, &footprint(r, &sh)),
    })
}

/// What the rest of the player-turn does to `target` after the fire of
/// `f` by `by` killed `killed` of it, the TEST die being `die`: the fire
/// step's disorder and removal, the 75% sweep and the morale TESTs, by the
/// engine's own code on a copy (other units' TESTs, if any, throw 1s).
pub fn settle_fire(
    r: &Ruleset,
    st: &State,
    f: &FireTerms,
    (target, killed, by): (&str, u32, usize),
    die: u32,
) -> (State, Vec<Event>) {
    let Ok(t) = tables(r) else {
        return (st.clone(), Vec::new());
    };
    let mut dice = adjutant_dice::ForcedDice::new(vec![die]);
    let mut deck = adjutant_dice::ForcedDice::new(Vec::new());
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let mut tn = quiet(r, t, st, Some(&mut chance));
    tn.kill(target, killed, by);
    if killed > 0 && f.artillery {
        tn.lost_art.insert(target.to_string());
    }
    if killed > 0 && f.flank {
        tn.lost_flank.insert(target.to_string());
    }
    if tn.st.unit(target).is_some_and(|u| u.rf == 0) {
        tn.destroy(target, "no figures left");
    }
    if killed >= t.test_at {
        tn.disorder(target);
    }
    tn.sweep_destroyed();
    morale(&mut tn);
    tn.sweep_destroyed();
    (tn.st, tn.ev)
}

/// The chance that `unit`, marked red (reforming), reforms in the
/// player-turn's step of dice to clear disorders ("For reforming units,
/// with red markers, 1d6; Green 1d6 All but 1 ...") before it fires: the
/// engine's own clearing step played on a copy holding the unit alone,
/// for each face of each die it throws. 1 for a unit without a red marker
/// (nothing to clear); 0 for one that does not throw (an incorrect
/// formation keeps its marker).
#[must_use]
pub fn reform_chance(r: &Ruleset, st: &State, unit: &str) -> f64 {
    if st.unit(unit).and_then(|u| u.marker.as_deref()) != Some("red") {
        return 1.0;
    }
    clear_chance(r, st, unit)
}

/// The chance that `unit`, marked orange (disordered) or red, loses its
/// marker in the player-turn's step of dice to clear disorders ("2) Dice
/// to Clear disorders ... Green 1d6 All but 1 ..."), as
/// [`reform_chance`] reckons it: the engine's own clearing step on a copy
/// holding the unit alone, for each face of each die it throws. 1 for a
/// unit without a marker; 0 for one that does not throw (an incorrect
/// formation keeps its marker).
#[must_use]
pub fn clear_chance(r: &Ruleset, st: &State, unit: &str) -> f64 {
    if st.unit(unit).and_then(|u| u.marker.as_deref()).is_none() {
        return 1.0;
    }
    let Ok(t) = tables(r) else {
        return 0.0;
    };
    let mut copy = st.clone();
    copy.units.retain(|u| u.id == unit);
    let mut cleared = 0.0;
    let mut open: Vec<(f64, Vec<u32>)> = vec![(1.0, Vec::new())];
    while let Some((p, faces)) = open.pop() {
        let mut dice = adjutant_dice::ForcedDice::new(faces.clone());
        let mut deck = adjutant_dice::ForcedDice::new(Vec::new());
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let mut tn = quiet(r, t, &copy, Some(&mut chance));
        clear_disorder(&mut tn);
        let gone = tn.st.unit(unit).is_some_and(|u| u.marker.is_none());
        drop(tn);
        if adjutant_dice::Dice::rolled(&dice) > faces.len() {
            for f in 1..=6 {
                let mut more = faces.clone();
                more.push(f);
                open.push((p / 6.0, more));
            }
        } else if gone {
            cleared += p;
        }
    }
    cleared
}
