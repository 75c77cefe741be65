//! Issue 55: the morale after the move of the units a battery's fire or
//! picking off strikes beside the volley's target: each unit under the
//! guns but the target (roundshot, shells, canister) and a unit whose
//! officers are picked off, PREDICT's exact morale outcome against the
//! engine's adjudication (the parent's tolerance, [`within`]).

#[allow(clippy::wildcard_imports)]
use super::*;

/// The outcome of `id` after the engine's move, as [`predict::Fate`]
/// orders them: 0 no test, 1 test passed, 2 failed, 3 broken by the 50%
/// rule, 4 off the table (destroyed or dispersed).
fn fate_of(after: &State, ev: &[Charge], id: &str) -> usize {
    let test = ev.iter().find_map(|e| match e {
        Charge::Morale { unit, result, .. } if unit == id => Some(result.as_str()),
        _ => None,
    });
    match after.unit(id) {
        None => 4,
        Some(u) if u.broken => 3,
        Some(_) => match test {
            None => 0,
            Some("good" | "rallies") => 1,
            Some(_) => 2,
        },
    }
}

fn shares(f: &predict::Fate) -> Vec<f64> {
    vec![f.untouched, f.good, f.bad, f.broken, f.removed]
}

/// The engine's adjudication of the British `orders` on `st` with the
/// dice of seed `s`.
pub(super) fn play(r: &Ruleset, st: &State, orders: &str, s: [u8; 32]) -> (State, Vec<Charge>) {
    let mut dice = ChaChaDice::from_seed(s);
    let mut deck = ChaChaDice::from_seed(seed(&[7, 7, 7, 7]));
    let mut chance = Chance {
        dice: &mut dice,
        deck: &mut deck,
    };
    let o = [Orders {
        side: "british".into(),
        text: orders.into(),
    }];
    r.adjudicate(st, &o, &mut chance).expect("played")
}

/// Issue 55: the morale after the move of every unit but the target that
/// a battery's roundshot or shells may strike (`Also under the guns`: its
/// loss's every number settled by the engine's morale step on each face
/// of its die; "Command Points - points for losses + D6 score", the 50%
/// rule) agrees with the engine's adjudication of the same `FIRE AT`; the
/// positions of [`super::gunfire`], drawn again where no shot reaches a
/// third unit's figures.
#[test]
fn charge_exact_morale_of_units_under_the_guns_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    let positions = depth::games("PREDICT_MEASURED_POSITIONS", 6, 12);
    let r = Ruleset::builtin("charge").unwrap();
    let mut rng = ChaChaDice::from_seed(seed(&[55, 55, 21, 21]));
    let (mut done, mut tries, mut tested) = (0, 0, 0);
    while done < positions {
        tries += 1;
        assert!(tries < 100_000, "too few legal positions");
        let Some(st) = super::gunfire::gunfire_others_position(&r, &mut rng) else {
            continue;
        };
        let g = predict::exact_gunfire_at(&r, &st, "G", "X").unwrap();
        if g.others_morale.is_empty() {
            continue;
        }
        assert_eq!(g.others.len(), g.others_morale.len(), "{st:?}");
        let mut seen: Vec<Vec<u64>> = vec![Vec::new(); g.others_morale.len()];
        for i in 0..runs {
            let (after, ev) = play(&r, &st, "UNIT G: FIRE AT X\n", seed(&[done, i, 55, 21]));
            for (j, (id, _)) in g.others_morale.iter().enumerate() {
                tally(&mut seen[j], fate_of(&after, &ev, id));
            }
        }
        for (j, (id, f)) in g.others_morale.iter().enumerate() {
            within(
                &format!("gunfire {done}: {id}'s morale under the guns: {st:?}"),
                &shares(f),
                &seen[j],
                runs,
            );
            tested += u64::from(f.good + f.bad + f.broken + f.removed > 1e-3);
        }
        done += 1;
    }
    assert!(
        tested > 0,
        "no unit under the guns had a morale test to speak of"
    );
}

/// Issue 55: the morale of each other unit in a battery's canister cones
/// (`Also in the cones`: a die per figure of it in the cones, each number
/// killed settled by the engine's morale step) agrees with the engine's
/// adjudication of the same `FIRE CANISTER AT`: the canister positions of
/// the parent, drawn again where Z has no figure in the cones.
#[test]
fn charge_exact_morale_of_units_in_the_canister_cones_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    let positions = depth::games("PREDICT_MEASURED_POSITIONS", 6, 12);
    let r = Ruleset::builtin("charge").unwrap();
    let mut rng = ChaChaDice::from_seed(seed(&[55, 55, 22, 22]));
    let (mut done, mut tries) = (0, 0);
    while done < positions {
        tries += 1;
        assert!(tries < 100_000, "too few legal positions");
        let Some(st) = canister_position(&r, &mut rng) else {
            continue;
        };
        let (g, x) = (st.unit("G").unwrap(), st.unit("X").unwrap());
        let per =
            predict::canister_figures(&r, &st, &std::collections::BTreeMap::new(), g, x).unwrap();
        let Some(figs) = per.iter().find(|(u, _)| u == "Z").map(|p| p.1) else {
            continue;
        };
        let exact = predict::canister_fate(&r, &st, "Z", figs, g.side).unwrap();
        let mut seen = Vec::new();
        for i in 0..runs {
            let (after, ev) = play(
                &r,
                &st,
                "UNIT G: FIRE CANISTER AT X\n",
                seed(&[done, i, 55, 22]),
            );
            tally(&mut seen, fate_of(&after, &ev, "Z"));
        }
        within(
            &format!("canister {done}: Z's morale, {figs} figures in the cones: {st:?}"),
            &shares(&exact),
            &seen,
            runs,
        );
        done += 1;
    }
}

/// Issue 55: the morale of a unit whose officers are picked off (the hit
/// officers the highest standing, each saved on a 5 or 6, every set of
/// them dead settled by the engine's saving throws and morale step:
/// "Command Points - points for losses + D6 score") agrees with the
/// engine's adjudication of the same `PICK OFF`: the parent's picking-off
/// positions.
#[test]
fn charge_exact_morale_after_officers_picked_off_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    let positions = depth::games("PREDICT_MEASURED_POSITIONS", 6, 12);
    let r = Ruleset::builtin("charge").unwrap();
    let mut rng = ChaChaDice::from_seed(seed(&[55, 55, 23, 23]));
    let (mut done, mut tries, mut failed) = (0, 0, 0);
    while done < positions {
        tries += 1;
        assert!(tries < 100_000, "too few legal positions");
        let Some(st) = pick_off_position(&r, &mut rng) else {
            continue;
        };
        let p = predict::exact_pick_off_at(&r, &st, "J", "X").unwrap();
        let mut seen = Vec::new();
        for i in 0..runs {
            let (after, ev) = play(&r, &st, "UNIT J: PICK OFF X\n", seed(&[done, i, 55, 23]));
            tally(&mut seen, fate_of(&after, &ev, "X"));
        }
        within(
            &format!("pick off {done}: X's morale: {st:?}"),
            &shares(&p.fate),
            &seen,
            runs,
        );
        failed += u64::from(p.fate.bad > 1e-3);
        done += 1;
    }
    assert!(failed > 0, "no position's picking off could fail X's test");
}
