//! Issue 55: a battery's roundshot and shells on the units beside its
//! target and on the guns under its shots (counter-battery), PREDICT's
//! exact odds against the engine's adjudication (the parent's tolerance,
//! [`within`]).

#[allow(clippy::wildcard_imports)]
use super::*;

/// A random Charge! battery G (guns or howitzers, one to three guns) firing
/// at X, line or light infantry or a battery of one to three guns with any
/// damage already, with a third unit Z (either side's infantry or battery)
/// a few inches about X, where a shot thrown long, short or aside may
/// cover it; or None when the engine would refuse it or the battery has
/// no shot.
pub(super) fn gunfire_others_position(r: &Ruleset, rng: &mut ChaChaDice) -> Option<State> {
    let kit = |rng: &mut ChaChaDice, ty: &str| -> String {
        if ty == "artillery" {
            let n = rng.roll(3);
            let damage: Vec<String> = (0..n).map(|_| (rng.roll(20) - 1).to_string()).collect();
            format!("guns = {n}\ngun_damage = [{}]\n", damage.join(", "))
        } else {
            format!("rank_and_file = {}\n", rng.roll(24))
        }
    };
    let (xx, xy) = (
        36 + i64::from(rng.roll(5)) - 3,
        16 + i64::from(rng.roll(36)),
    );
    let xt = pick(rng, &["line", "light", "artillery"]);
    let zt = pick(rng, &["line", "light", "artillery"]);
    let text = format!(
        "id = \"prop\"\nruleset = \"charge\"\ntitle = \"prop\"\nmoves = 12\n\
         table = [72, 60]\nsides = [\"british\", \"french\"]\n\
         [[units]]\nid = \"G\"\nside = \"british\"\ntype = \"{}\"\nat = [36, 4]\n\
         guns = {}\n\
         [[units]]\nid = \"X\"\nside = \"french\"\ntype = \"{xt}\"\nat = [{xx}, {xy}]\n{}\
         [[units]]\nid = \"Z\"\nside = \"{}\"\ntype = \"{zt}\"\nat = [{}, {}]\n{}",
        pick(rng, &["artillery", "howitzers"]),
        rng.roll(3),
        kit(rng, xt),
        pick(rng, &["french", "french", "british"]),
        xx + i64::from(rng.roll(7)) - 4,
        xy + pick(rng, &[-4_i64, 2, 3, 4, 5]),
        kit(rng, zt),
    );
    let st = state::load(r, &text, "prop.toml").ok()?;
    r.check(&st, "british", "UNIT G: FIRE AT X\n").ok()?;
    predict::exact_gunfire_at(r, &st, "G", "X").ok()?;
    Some(st)
}

/// Issue 55: PREDICT's exact losses of the other units under a battery's
/// roundshot or shells (not its target: each one's rank and file killed)
/// and its counter-battery damage (the points every gun under a shot
/// stands at after the move, gun by gun, so its alternate moves and
/// destruction) agree with the engine's adjudication of the same `FIRE AT`
/// over seeded runs.
#[test]
fn charge_exact_gunfire_on_other_units_and_guns_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    let positions = depth::games("PREDICT_MEASURED_POSITIONS", 8, 24);
    let r = Ruleset::builtin("charge").unwrap();
    let drawn = super::positions_of(&[55, 55, 13, 13], positions, "legal positions", |_, rng| {
        let st = gunfire_others_position(&r, rng)?;
        let g = predict::exact_gunfire_at(&r, &st, "G", "X").unwrap();
        // Draw again a position where no shot can reach Z or a gun, but
        // for one in four.
        if g.others.is_empty() && g.guns_damage.is_empty() && rng.roll(4) > 1 {
            return None;
        }
        Some((st, g))
    });
    let (mut others, mut damaged) = (0, 0);
    for (done, (st, g)) in (0..).zip(drawn) {
        let mut seen_killed: Vec<Vec<u64>> = vec![Vec::new(); g.others.len()];
        let mut seen_damage: Vec<std::collections::BTreeMap<Vec<u32>, u64>> =
            vec![std::collections::BTreeMap::new(); g.guns_damage.len()];
        for i in 0..runs {
            let (_, ev) =
                super::morale::play(&r, &st, "UNIT G: FIRE AT X\n", seed(&[done, i, 55, 13]));
            let (killed, points, _) = super::houses_others::run_of(&ev);
            for (j, (id, _)) in g.others.iter().enumerate() {
                let rf = st.unit(id).unwrap().rf;
                tally(
                    &mut seen_killed[j],
                    killed.get(id.as_str()).copied().unwrap_or(0).min(rf) as usize,
                );
            }
            tally_damage((&st, &g), (&killed, &points), &mut seen_damage);
        }
        for (j, (id, d)) in g.others.iter().enumerate() {
            within(
                &format!("gunfire {done}: {id} under the guns"),
                d,
                &seen_killed[j],
                runs,
            );
        }
        for (j, (id, d)) in g.guns_damage.iter().enumerate() {
            damage_within(
                &format!("gunfire {done}: {id}'s guns' damage"),
                d,
                &seen_damage[j],
                runs,
            );
        }
        others += u64::from(!g.others.is_empty());
        damaged += u64::from(g.guns_damage.iter().any(|(_, d)| d.len() > 1));
    }
    assert!(others > 0, "no position put another unit under the guns");
    assert!(damaged > 0, "no position put a gun under the guns");
}

/// One engine run of a battery's fire on `st` against the answer `g`:
/// each battery of the answer's `guns_damage` its guns' damage points
/// after the run (the damage before and the run's `points`, by unit and
/// gun index) counted in `seen` (one map a battery, in the answer's
/// order); and no unit the answer leaves out loses a figure (`killed`,
/// X's and the answer's others' aside) or a gun's point.
pub(super) fn tally_damage(
    (st, g): (&State, &predict::GunFire),
    (killed, points): (&Killed, &Points),
    seen: &mut [std::collections::BTreeMap<Vec<u32>, u64>],
) {
    for (j, (id, _)) in g.guns_damage.iter().enumerate() {
        let at: Vec<u32> = st
            .unit(id)
            .unwrap()
            .guns
            .iter()
            .enumerate()
            .map(|(k, gs)| gs.damage + points.get(&(id.clone(), k)).copied().unwrap_or(0))
            .collect();
        *seen[j].entry(at).or_insert(0) += 1;
    }
    for (u, n) in killed {
        assert!(
            *n == 0 || u == "X" || g.others.iter().any(|(id, _)| id == u),
            "{u} lost {n} figures, not in the answer: {st:?}"
        );
    }
    for ((u, _), n) in points {
        assert!(
            *n == 0 || g.guns_damage.iter().any(|(id, _)| id == u),
            "{u}'s guns took {n} points, not in the answer: {st:?}"
        );
    }
}

/// Each unit's rank and file killed in a run.
pub(super) type Killed = std::collections::BTreeMap<String, u32>;

/// Each gun's damage points taken in a run, by (unit, gun index).
pub(super) type Points = std::collections::BTreeMap<(String, usize), u32>;

/// PREDICT's exact chance of each set of damage points of a battery's
/// guns, `d`, against the engine's counts of them over `runs` runs
/// ([`within`], over every set either holds).
pub(super) fn damage_within(
    what: &str,
    d: &predict::Damage,
    seen: &std::collections::BTreeMap<Vec<u32>, u64>,
    runs: u64,
) {
    let mut keys: Vec<&Vec<u32>> = d.keys().collect();
    keys.extend(seen.keys());
    keys.sort();
    keys.dedup();
    let exact: Vec<f64> = keys
        .iter()
        .map(|k| d.get(*k).copied().unwrap_or(0.0))
        .collect();
    let counts: Vec<u64> = keys
        .iter()
        .map(|k| seen.get(*k).copied().unwrap_or(0))
        .collect();
    within(&format!("{what} {keys:?}"), &exact, &counts, runs);
}
