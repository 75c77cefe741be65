//! F. Melee (the Seven Years' War rulebook): "Compare TEST scores after test modifier. Loser
//! takes melee casualties, TESTs, if not Routed (moves next turn), Retreats
//! (moves next turn). If multiple attacking units, use best combination of
//! unique factors. eg casualties of strongest unit, one charge bonus only.
//! If draw melee continues to next players turn, at least one participating
//! unit involved wishes, else retreat 3". At melee end, all parties are
//! disordered." Every unit in contact with one defender fights it as one
//! melee; docs/rules/seven-years-war.md, "Several attackers", gives the
//! reading.

use super::{apply_result, flee, mods_text, take_test, test, test_mods, Flee, Turn};
use crate::events::Syw;
use crate::geometry::{fmt_len, Pt};
use crate::state::{footprint, Melee};
use crate::Unit;

/// The attackers of one defender: (attacker, face struck, charge bonus).
type Group = (String, Vec<(String, usize, bool)>);

/// The melees of this player-turn, one per defender, in the order of the
/// first contact on it: this turn's contacts and the melees drawn before.
fn groups(tn: &Turn<'_, '_, '_>) -> Vec<Group> {
    let mut pairs: Vec<(String, String, usize, bool)> = tn.contacts.clone();
    // Melees drawn before go on.
    for u in &tn.st.units {
        if let Some(m) = &u.melee {
            if m.attacker && !pairs.iter().any(|p| p.0 == u.id) {
                pairs.push((u.id.clone(), m.with.clone(), 0, m.moves > 0));
            }
        }
    }
    let mut out: Vec<Group> = Vec::new();
    for (a, d, face, bonus) in pairs {
        match out.iter_mut().find(|g| g.0 == d) {
            Some(g) => {
                if !g.1.iter().any(|x| x.0 == a) {
                    g.1.push((a, face, bonus));
                }
            }
            None => out.push((d, vec![(a, face, bonus)])),
        }
    }
    out
}

/// What a TEST modifier is, so one factor is counted once however many
/// attackers have it: the casualty percentage, the experience and the
/// support are one factor each whatever their wording; every other
/// modifier (per friend routed, destroyed or retreating, casualties from
/// artillery, charging, command) is its own.
fn factor(label: &str) -> String {
    if label.starts_with("casualties ") && label.ends_with("% or more") {
        "losses".into()
    } else if matches!(label, "green" | "trained" | "veteran") {
        "experience".into()
    } else if label.starts_with("supported by ") {
        "supported".into()
    } else {
        label.to_string()
    }
}

/// "use best combination of unique factors": each factor once, at the best
/// value any attacker has for it (0 if one of them does not have a penalty
/// at all: "casualties of strongest unit"; "one charge bonus only").
pub(super) fn best_combination(each: &[Vec<(String, i32)>]) -> Vec<(String, i32)> {
    let mut keys: Vec<String> = Vec::new();
    for m in each {
        for (label, _) in m {
            let k = factor(label);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut out = Vec::new();
    for k in keys {
        // The best of each attacker's value; an attacker without it counts 0.
        let mut best: Option<(String, i32)> = None;
        for m in each {
            let v = m.iter().find(|(l, _)| factor(l) == k).cloned();
            let v = v.unwrap_or((String::new(), 0));
            if best.as_ref().is_none_or(|b| v.1 > b.1) {
                best = Some(v);
            }
        }
        if let Some((label, v)) = best {
            if v != 0 {
                out.push((label, v));
            }
        }
    }
    out
}

/// The face that counts against a defender struck on several: the one with
/// the worst modifier (rear, then flank, then front).
fn worst_face(faces: &[usize]) -> usize {
    let rank = |f: usize| match f {
        2 => 2,
        1 | 3 => 1,
        _ => 0,
    };
    faces.iter().copied().max_by_key(|f| rank(*f)).unwrap_or(0)
}

pub(super) fn melee(tn: &mut Turn<'_, '_, '_>) {
    for (d, attackers) in groups(tn) {
        let Some(ud) = tn.st.unit(&d).cloned() else {
            continue;
        };
        let ua: Vec<(Unit, usize, bool)> = attackers
            .iter()
            .filter_map(|(a, f, b)| tn.st.unit(a).cloned().map(|u| (u, *f, *b)))
            .collect();
        if ua.is_empty() {
            continue;
        }
        fight(tn, &ud, &ua);
    }
}

/// One melee: a defender and the units that contacted it.
fn fight(tn: &mut Turn<'_, '_, '_>, ud: &Unit, ua: &[(Unit, usize, bool)]) {
    let d = ud.id.clone();
    let names: Vec<String> = ua.iter().map(|x| x.0.id.clone()).collect();
    let a = names.join(" and ");
    // The attackers' TEST: their best combination of unique factors, one
    // die read at the best of their experiences.
    let each: Vec<Vec<(String, i32)>> = ua
        .iter()
        .map(|(u, _, bonus)| test_mods(tn, u, None, *bonus))
        .collect();
    let ma = if each.len() == 1 {
        each[0].clone()
    } else {
        best_combination(&each)
    };
    let fa = tn.roll();
    let da = ua
        .iter()
        .map(|(u, _, _)| tn.t.exp(u).test_die(fa))
        .max()
        .unwrap_or(0);
    let sa = ma.iter().map(|m| m.1).sum::<i32>() + da;
    let faces: Vec<usize> = ua.iter().map(|x| x.1).collect();
    let face = worst_face(&faces);
    let d_bonus = tn.counter.contains(&d);
    let (sd, fd, md) = test(tn, ud, Some(face), d_bonus);
    let dd = tn.t.exp(ud).test_die(fd);
    tn.note(
        format!(
            "Melee {a} against {d}: {a}{} {} = {sa}; {d} {} = {sd}",
            if ua.len() > 1 {
                " (as one: the best of their factors, each once)"
            } else {
                ""
            },
            mods_text(&ma, fa, da),
            mods_text(&md, fd, dd)
        ),
        Syw::Melee {
            attacker: names[0].to_string(),
            attackers: names.clone(),
            defender: d.to_string(),
            scores: [sa, sd],
            dice: [fa, fd],
        },
    );
    // At melee end, all parties are disordered.
    for x in names.iter().chain(std::iter::once(&d)) {
        tn.disorder(x);
    }
    if sa == sd {
        draw(tn, ud, ua);
        return;
    }
    for x in names.iter().chain(std::iter::once(&d)) {
        if let Some(u) = tn.st.unit_mut(x) {
            u.melee = None;
        }
    }
    let diff = (sa - sd).unsigned_abs();
    let n = tn.t.test.melee_casualties * diff;
    let (winners, losers): (Vec<String>, Vec<String>) = if sa > sd {
        (names.clone(), vec![d.clone()])
    } else {
        (vec![d.clone()], names.clone())
    };
    let wside = tn.st.unit(&winners[0]).map_or(0, |u| u.side);
    // "Losers removes 3 figures per difference in TEST": every losing unit.
    let mut killed = Vec::new();
    for l in &losers {
        let k = tn.kill(l, n, wside);
        killed.push(format!("{l} loses {k} figures"));
    }
    tn.note(
        format!(
            "{} wins by {diff}: {} (3 per point)",
            winners.join(" and "),
            killed.join(", ")
        ),
        Syw::MeleeResult {
            winner: winners[0].to_string(),
            loser: losers[0].to_string(),
            losers: losers.clone(),
        },
    );
    tn.sweep_destroyed();
    for l in losers {
        loser_test(tn, &l);
    }
}

/// The loser TESTs; if not routed, it retreats (next turn).
pub(super) fn loser_test(tn: &mut Turn<'_, '_, '_>, loser: &str) {
    let Some((score, face2, die, mods, res)) = take_test(tn, loser) else {
        return;
    };
    let out = if res.as_deref() == Some("rout") {
        "rout"
    } else {
        "retreat"
    };
    apply_result(tn, loser, Some(out));
    tn.note(
        format!(
            "{loser} TESTs after losing the melee: {} = {score}: {}",
            mods_text(&mods, face2, die),
            if out == "rout" {
                "routs (moves next turn)"
            } else {
                "retreats (moves next turn)"
            }
        ),
        Syw::Test {
            unit: loser.to_string(),
            score,
            die: face2,
            result: Some(out.to_string()),
        },
    );
}

/// A drawn melee: it goes on into the next player-turn if at least one
/// unit in it wishes (FIGHT ON, the default); if every one has the standing
/// order BREAK OFF, all retreat 3".
fn draw(tn: &mut Turn<'_, '_, '_>, ud: &Unit, ua: &[(Unit, usize, bool)]) {
    let d = ud.id.clone();
    for (u, _, bonus) in ua {
        if let Some(x) = tn.st.unit_mut(&u.id) {
            x.melee = Some(Melee {
                with: d.clone(),
                moves: u32::from(*bonus),
                attacker: true,
            });
        }
    }
    if let Some(x) = tn.st.unit_mut(&d) {
        x.melee = Some(Melee {
            with: ua[0].0.id.clone(),
            moves: 0,
            attacker: false,
        });
    }
    let breaks = |u: &Unit| u.standing.iter().any(|s| s == "BREAK OFF");
    if breaks(ud) && ua.iter().all(|x| breaks(&x.0)) {
        draw_retreat(tn, ud, ua);
        return;
    }
    tn.note(
        "Drawn: the melee continues into the next player-turn".to_string(),
        Syw::MeleeDraw {
            attacker: ua[0].0.id.to_string(),
            defender: d.to_string(),
            retreat: None,
        },
    );
}

/// A drawn melee no unit wishes to go on with: every attacker retreats 3"
/// directly away from the defender, the defender directly away from the
/// attackers (from the middle of their centres).
fn draw_retreat(tn: &mut Turn<'_, '_, '_>, ud: &Unit, ua: &[(Unit, usize, bool)]) {
    let dist = tn.t.draw_retreat;
    let names: Vec<String> = ua.iter().map(|x| x.0.id.clone()).collect();
    tn.note(
        format!(
            "Drawn, and neither {} nor {} wishes to go on (BREAK OFF): all retreat {}",
            names.join(" and "),
            ud.id,
            fmt_len(dist)
        ),
        Syw::MeleeDraw {
            attacker: names[0].to_string(),
            defender: ud.id.to_string(),
            retreat: Some(dist),
        },
    );
    let centre = |u: &Unit| footprint(tn.r, u).centre();
    let dc = centre(ud);
    let n = ua.len() as i64;
    let ac = Pt::new(
        ua.iter().map(|x| centre(&x.0).x).sum::<i64>() / n,
        ua.iter().map(|x| centre(&x.0).y).sum::<i64>() / n,
    );
    let mut moves: Vec<(Unit, Pt, Pt)> =
        ua.iter().map(|x| (x.0.clone(), centre(&x.0), dc)).collect();
    moves.push((ud.clone(), dc, ac));
    for (u, c, oc) in moves {
        if let Some(x) = tn.st.unit_mut(&u.id) {
            x.melee = None;
        }
        let away = Pt::new(c.x + (c.x - oc.x) * 64, c.y + (c.y - oc.y) * 64);
        match flee(tn, &u.id, away, dist) {
            Flee::Moved(m) => {
                tn.note(
                    format!("{} retreats {} from the drawn melee", u.id, fmt_len(m)),
                    Syw::Retreat {
                        unit: u.id.to_string(),
                        distance: m,
                    },
                );
                tn.happened
                    .push((u.id.clone(), u.side, u.brigade.clone(), c, "retreat"));
            }
            Flee::Gone => tn.destroy(&u.id, "retreated off the table"),
            Flee::Blocked => tn.destroy(&u.id, "its retreat is not possible"),
        }
    }
}
