//! D. Fire.

#[allow(clippy::wildcard_imports)]
use super::*;

// ------------------------------------------------------------------ D. fire

pub(super) fn fire(tn: &mut Turn<'_, '_, '_>, plans: &[Plan]) {
    let relocate = tn
        .effect("guns-relocate-fire")
        .filter(|e| e.side == tn.side)
        .map(|e| e.units.clone())
        .unwrap_or_default();
    let twice = tn
        .effect("guns-fire-twice")
        .filter(|e| e.side == tn.side)
        .map(|e| e.units.clone())
        .unwrap_or_default();
    for p in plans {
        // What fires: the whole unit, or a refused line's sections ("Unit
        // fire by section between break in line (fire bonus allocated to
        // sections at players discretion)").
        let shots: Vec<(String, String, bool)> = match p.steps.last() {
            Some(Step::FireAt(t)) => match tn.st.unit(&p.unit) {
                // A refused line told to fire at one target: every section
                // at it, the fire bonus with the centre.
                Some(u) if !u.refused.is_empty() => line::sections(tn.r, u)
                    .iter()
                    .map(|(n, _)| (t.clone(), (*n).to_string(), *n == "centre"))
                    .collect(),
                _ => vec![(t.clone(), "whole".to_string(), true)],
            },
            Some(Step::SectionFire(..)) => {
                let ss: Vec<(String, String, bool)> = p
                    .steps
                    .iter()
                    .filter_map(|s| match s {
                        Step::SectionFire(t, sec, b) => Some((t.clone(), sec.clone(), *b)),
                        _ => None,
                    })
                    .collect();
                // No section named for the bonus: the first written.
                let any = ss.iter().any(|x| x.2);
                ss.into_iter()
                    .enumerate()
                    .map(|(i, (t, sec, b))| (t, sec, b || (!any && i == 0)))
                    .collect()
            }
            _ => continue,
        };
        for (target, sec, bonus) in &shots {
            fire_shot(tn, p, target, sec, *bonus, &relocate, &twice);
        }
    }
    // Two or more casualties in a turn: disordered.
    let hit: Vec<String> = tn
        .lost
        .iter()
        .filter(|(_, n)| **n >= tn.t.test_at)
        .map(|(k, _)| k.clone())
        .collect();
    for id in hit {
        tn.disorder(&id);
    }
}

/// One shot of a fire order: the whole unit (`sec` "whole") or one
/// section of a refused line at `target`, with the unit's fire bonus if
/// `bonus`.
pub(super) fn fire_shot(
    tn: &mut Turn<'_, '_, '_>,
    p: &Plan,
    target: &str,
    sec: &str,
    bonus: bool,
    relocate: &[String],
    twice: &[String],
) {
    let times = if twice.contains(&p.unit) { 2 } else { 1 };
    for k in 0..times {
        let (Some(whole), Some(tg)) = (tn.st.unit(&p.unit).cloned(), tn.st.unit(target).cloned())
        else {
            break;
        };
        let sh = if sec == "whole" {
            whole
        } else {
            match line::sections(tn.r, &whole)
                .into_iter()
                .find(|(n, _)| *n == sec)
            {
                Some((_, s)) => s,
                None => break,
            }
        };
        let label = if sec == "whole" {
            sh.id.clone()
        } else {
            format!("{} ({sec} section)", sh.id)
        };
        if tn.moved.contains(&sh.id) && (!relocate.contains(&sh.id) || Turn::disordered(&sh)) {
            tn.note(
                format!("{label}: it moved, so it cannot fire"),
                Syw::Lapse {
                    unit: sh.id.to_string(),
                },
            );
            break;
        }
        if sh.melee.is_some() || tn.contacts.iter().any(|c| c.0 == sh.id || c.1 == sh.id) {
            tn.note(
                format!("{label}: in contact, it does not fire"),
                Syw::Lapse {
                    unit: sh.id.to_string(),
                },
            );
            break;
        }
        let geo = match fire_check(tn.r, tn.t, &tn.st, &sh, &tg) {
            Ok(g) => g,
            Err(why) => {
                tn.note(
                    format!("{label}: {why}"),
                    Syw::Lapse {
                        unit: sh.id.to_string(),
                    },
                );
                break;
            }
        };
        let (n, why) = fire_dice(tn, &sh, &tg, geo.long, geo.cone, geo.canister, bonus);
        let dice = tn.rolls(n);
        let hits = dice.iter().filter(|d| tn.t.kill.contains(d)).count() as u32;
        let killed = tn.kill(target, hits, sh.side);
        if tn.troop_class(&sh) == "artillery" {
            tn.lost_art.insert(target.to_string());
        }
        // Casualties in flank or rear: the firer is not ahead of the
        // target's front.
        if !ahead_of(tn.r, &tg, &footprint(tn.r, &sh)) {
            tn.lost_flank.insert(target.to_string());
        }
        if sh.marker.as_deref() == Some("red") {
            tn.disorder(&sh.id);
        }
        tn.note(
            format!(
                "{label} fires at {target}{} at {}: {} = {n} dice {dice:?}, {killed} killed",
                if k == 1 {
                    " again (Vive l'artillerie)"
                } else {
                    ""
                },
                fmt_len(geo.dist),
                why.join(", ")
            ),
            Syw::Fire {
                unit: sh.id.to_string(),
                target: target.to_string(),
                dice: dice.clone(),
                killed,
            },
        );
        if tn.st.unit(target).is_some_and(|u| u.rf == 0) {
            tn.destroy(target, "no figures left");
        }
    }
}
