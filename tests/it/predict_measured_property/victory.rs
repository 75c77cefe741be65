//! Issue 55: the expected victory points of a battery's roundshot, shells
//! or canister, PREDICT's exact figure (every enemy unit's expected rank
//! and file killed under the shots, not the target's alone; its own side's
//! men score nothing) against the engine's own score of the same orders
//! (the rank and file the British side removes: `State::removed`) over
//! seeded runs.
//!
//! Tolerance: the engine's mean over N runs is within 4 of its standard
//! errors (the runs' own spread) plus 2 runs' worth of the most the fire
//! can score, as [`within`] allows 2 runs over its 4 errors.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A random Charge! battery G firing canister at X, with a third unit Z
/// (either side's infantry or a battery) a few inches beside or behind X,
/// where the cones may reach it; or None when the engine would refuse it.
fn canister_others_position(r: &Ruleset, rng: &mut ChaChaDice) -> Option<State> {
    let (dx, dy) = (i64::from(rng.roll(9)) - 5, i64::from(rng.roll(10)) + 2);
    let zt = pick(rng, &["line", "light", "artillery"]);
    let z = if zt == "artillery" {
        format!("guns = {}\n", rng.roll(2))
    } else {
        format!("rank_and_file = {}\n", rng.roll(12))
    };
    let text = format!(
        "id = \"prop\"\nruleset = \"charge\"\ntitle = \"prop\"\nmoves = 12\n\
         table = [72, 48]\nsides = [\"british\", \"french\"]\n\
         [[units]]\nid = \"G\"\nside = \"british\"\ntype = \"artillery\"\nat = [36, 10]\n\
         guns = {}\n\
         [[units]]\nid = \"X\"\nside = \"french\"\ntype = \"{}\"\nat = [{}, {}]\n\
         rank_and_file = {}\n\
         [[units]]\nid = \"Z\"\nside = \"{}\"\ntype = \"{zt}\"\nat = [{}, {}]\n{z}",
        rng.roll(3),
        pick(rng, &["line", "light"]),
        36 + dx,
        10 + dy,
        rng.roll(24),
        pick(rng, &["french", "british"]),
        36 + dx + pick(rng, &[-8_i64, -6, 6, 8, 0]),
        10 + dy + i64::from(rng.roll(4)),
    );
    let st = state::load(r, &text, "prop.toml").ok()?;
    r.check(&st, "british", "UNIT G: FIRE CANISTER AT X\n")
        .ok()?;
    let (g, x) = (st.unit("G")?, st.unit("X")?);
    predict::canister_figures(r, &st, &std::collections::BTreeMap::new(), g, x)?;
    Some(st)
}

/// The exact expected victory points of canister at X on `st`, as the
/// answer reckons them.
fn canister_victory(r: &Ruleset, st: &State) -> (f64, Vec<String>) {
    let (g, x) = (st.unit("G").unwrap(), st.unit("X").unwrap());
    let per = predict::canister_figures(r, st, &std::collections::BTreeMap::new(), g, x).unwrap();
    let figs = per.iter().find(|(u, _)| u == "X").map_or(0, |p| p.1);
    let target = [("X".to_string(), predict::canister_killed(r, figs, x.rf))];
    let others = predict::canister_others(r, st, &per, "X");
    let ids = others.iter().map(|(id, _)| id.clone()).collect();
    (predict::expected_victory(st, g.side, &target, &others), ids)
}

/// The engine's mean score over `runs` adjudications of `orders` on
/// position `pos` (seeded by both) against `exact`, within the tolerance
/// above (the most the fire can score: every enemy rank and file on the
/// table).
fn score_within(
    what: &str,
    (r, st, pos): (&Ruleset, &State, u64),
    orders: &str,
    exact: f64,
    runs: u64,
) {
    let (mut sum, mut sq) = (0.0_f64, 0.0_f64);
    for i in 0..runs {
        let (after, _) = super::morale::play(r, st, orders, seed(&[pos, i, 55, 1]));
        let got = f64::from(after.removed[0] - st.removed[0]);
        sum += got;
        sq += got * got;
    }
    let n = runs as f64;
    let mean = sum / n;
    let sd = (sq / n - mean * mean).max(0.0).sqrt();
    let most: u32 = st.units.iter().filter(|u| u.side == 1).map(|u| u.rf).sum();
    let allowed = 4.0 * sd / n.sqrt() + 2.0 * f64::from(most) / n;
    assert!(
        (mean - exact).abs() <= allowed,
        "{what}: exact expected victory points {exact:.4}, the engine's mean {mean:.4} over \
         {runs} runs (allowed +-{allowed:.4})\n{st:?}"
    );
}

/// Issue 55: PREDICT's expected victory points of roundshot, shells and
/// canister count every enemy unit's expected loss under the shots (the
/// target's and the others'), and none of the firing side's own, as the
/// engine scores the fire ("the side that removed more enemy rank and
/// file wins", docs/rules/charge.md); at least one position must have
/// another French unit under the shots and one a British unit.
#[test]
fn charge_exact_victory_points_of_a_battery_agree_with_the_engines_score() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    let positions = depth::games("PREDICT_MEASURED_POSITIONS", 8, 24);
    let r = Ruleset::builtin("charge").unwrap();
    let drawn = super::positions_of(
        &[55, 55, 1, 1],
        positions,
        "legal positions",
        |done, rng| {
            let canister = done % 2 == 1;
            let (st, orders, exact, others) = if canister {
                let st = canister_others_position(&r, rng)?;
                let (v, ids) = canister_victory(&r, &st);
                (st, "UNIT G: FIRE CANISTER AT X\n", v, ids)
            } else {
                let st = gunfire::gunfire_others_position(&r, rng)?;
                let g = predict::exact_gunfire_at(&r, &st, "G", "X").unwrap();
                let ids: Vec<String> = g.others.iter().map(|(id, _)| id.clone()).collect();
                (st, "UNIT G: FIRE AT X\n", g.victory, ids)
            };
            // Draw again a position where no shot reaches Z, but for one in four.
            if others.is_empty() && rng.roll(4) > 1 {
                return None;
            }
            Some((canister, st, orders, exact, others))
        },
    );
    let (mut enemy, mut own) = (0, 0);
    for (done, (canister, st, orders, exact, others)) in (0..).zip(drawn) {
        let side_of = |id: &String| st.unit(id).map(|u| u.side);
        enemy += u64::from(others.iter().any(|id| side_of(id) == Some(1)));
        own += u64::from(others.iter().any(|id| side_of(id) == Some(0)));
        score_within(
            &format!(
                "{} {done} (others under the shots {others:?})",
                if canister { "canister" } else { "gunfire" }
            ),
            (&r, &st, done),
            orders,
            exact,
            runs,
        );
    }
    assert!(
        enemy > 0,
        "no position put another French unit under the shots"
    );
    assert!(own > 0, "no position put a British unit under the shots");
}
