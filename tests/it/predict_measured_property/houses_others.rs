//! Issue 55: a battery's roundshot or shells with a house on the table and
//! a second unit beside the target, or a battery as the target
//! (counter-battery) beside a house: PREDICT's exact odds of every unit's
//! rank and file killed (by its figures' dice and, in the house, by the
//! penetration table) and of every gun's damage against the engine's
//! adjudication (the parent's tolerance, [`within`]).

#[allow(clippy::wildcard_imports)]
use super::*;

/// A unit's kit: a battery's guns and their damage, or its rank and file.
fn kit(rng: &mut ChaChaDice, ty: &str) -> String {
    if ty == "artillery" {
        let n = rng.roll(3);
        let damage: Vec<String> = (0..n).map(|_| (rng.roll(12) - 1).to_string()).collect();
        format!("guns = {n}\ngun_damage = [{}]\n", damage.join(", "))
    } else {
        format!("rank_and_file = {}\n", rng.roll(24))
    }
}

/// A random Charge! battery G (guns or howitzers, one to three guns)
/// firing at X (line or light infantry, or a battery with some damage
/// already), with a building section H 4" square on X's line of fire
/// short of or beyond it, on X's own ground or beside it, and a second
/// unit Z (either side's infantry or a battery) a few inches about X or
/// in the house; or None when the engine refuses it, the battery has no
/// shot, or PREDICT leaves it to the sampled figures (a house that may
/// fall).
fn house_and_others_position(r: &Ruleset, rng: &mut ChaChaDice) -> Option<State> {
    let (xx, xy) = (
        36 + i64::from(rng.roll(9)) - 5,
        12 + i64::from(rng.roll(36)),
    );
    let k = i64::from(rng.roll(5)) + 4;
    // Half the time the house already damaged so that one shot may well
    // bring it down (20 points), most often with X in it: later shots
    // meet the ruins, and X's figures then diced one by one.
    let damage = if rng.roll(2) == 1 {
        20 - rng.roll(4)
    } else {
        0
    };
    let (hx, hy) = match if damage > 0 && rng.roll(2) == 1 {
        3
    } else {
        rng.roll(4)
    } {
        1 => (xx + i64::from(rng.roll(5)) - 5, xy + k),
        2 => (xx + i64::from(rng.roll(5)) - 5, xy - 4 - k),
        3 => (xx - 2, xy - 1),
        _ => (xx + pick(rng, &[-9_i64, 5]), xy - i64::from(rng.roll(3))),
    };
    let xt = pick(rng, &["line", "light", "artillery", "artillery"]);
    let zt = pick(rng, &["line", "light", "artillery"]);
    // Z in the house (its occupant) or about X.
    let (zx, zy) = if rng.roll(3) == 1 && zt != "artillery" {
        (hx + 2, hy + 2)
    } else {
        (
            xx + i64::from(rng.roll(7)) - 4,
            xy + pick(rng, &[-4_i64, 2, 3, 4, 5]),
        )
    };
    let text = format!(
        "id = \"prop\"\nruleset = \"charge\"\ntitle = \"prop\"\nmoves = 12\n\
         table = [72, 60]\nsides = [\"british\", \"french\"]\n\
         [[terrain]]\nkind = \"building\"\nname = \"H\"\n\
         points = [[{hx}, {hy}], [{}, {hy}], [{}, {}], [{hx}, {}]]\ndamage = {damage}\n\
         [[units]]\nid = \"G\"\nside = \"british\"\ntype = \"{}\"\nat = [36, 4]\n\
         guns = {}\n\
         [[units]]\nid = \"X\"\nside = \"french\"\ntype = \"{xt}\"\nat = [{xx}, {xy}]\n{}\
         [[units]]\nid = \"Z\"\nside = \"{}\"\ntype = \"{zt}\"\nat = [{zx}, {zy}]\n{}",
        hx + 4,
        hx + 4,
        hy + 4,
        hy + 4,
        pick(rng, &["artillery", "howitzers"]),
        rng.roll(3),
        kit(rng, xt),
        pick(rng, &["french", "french", "british"]),
        kit(rng, zt),
    );
    let st = state::load(r, &text, "prop.toml").ok()?;
    r.check(&st, "british", "UNIT G: FIRE AT X\n").ok()?;
    predict::exact_gunfire_at(r, &st, "G", "X").ok()?;
    Some(st)
}

/// What one engine run of the fire did: each unit's rank and file killed
/// (figures' dice and the house's table) and each gun's damage points
/// taken, and whether a shot struck the house.
type Run = (super::gunfire::Killed, super::gunfire::Points, bool);

pub(super) fn run_of(ev: &[Charge]) -> Run {
    let (mut killed, mut points, mut struck) = Run::default();
    for e in ev {
        let (k, cb, houses) = match e {
            Charge::Roundshot {
                killed,
                counter_battery,
                houses,
                ..
            } => (killed, counter_battery.as_slice(), houses.as_slice()),
            Charge::Shell {
                killed: Some(killed),
                counter_battery,
                houses,
                ..
            } => (
                killed,
                counter_battery.as_deref().unwrap_or_default(),
                houses.as_deref().unwrap_or_default(),
            ),
            _ => continue,
        };
        for (u, n) in k {
            *killed.entry(u.clone()).or_default() += n;
        }
        for c in cb {
            *points.entry((c.unit.clone(), c.gun - 1)).or_default() += c.damage;
        }
        for h in houses {
            struck = true;
            if let Some(o) = &h.occupant {
                *killed.entry(o.clone()).or_default() += h.killed;
            }
        }
    }
    (killed, points, struck)
}

/// Issue 55: with a house on the table (ROUNDSHOT EFFECT ON HOUSES) and a
/// second unit beside the target or in the house, or a battery as the
/// target (COUNTER-BATTERY: "Throw a D6 for each gun under the sleeve or
/// SBI"), PREDICT's exact odds of X's and every other unit's rank and file
/// killed and of every gun's damage agree with the engine's adjudication
/// of the same `FIRE AT`; some position must strike the house with Z or a
/// gun under the shots, and some run bring the house down (half the
/// positions start it damaged: the guns are walked in order over the
/// terrain each shot leaves).
#[test]
fn charge_exact_gunfire_with_a_house_and_other_units_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    let positions = 2 * depth::games("PREDICT_MEASURED_POSITIONS", 6, 12);
    let r = Ruleset::builtin("charge").unwrap();
    let drawn = super::positions_of(&[55, 55, 41, 41], positions, "legal positions", |_, rng| {
        let st = house_and_others_position(&r, rng)?;
        let g = predict::exact_gunfire_at(&r, &st, "G", "X").unwrap();
        // Draw again a position where no shot may strike the house, or
        // reach Z or a gun with the house whole, but for one in four.
        let others = !g.others.is_empty() || !g.guns_damage.is_empty();
        let may_fall = st.terrain[0].damage > 0 && g.guns > 1;
        if (g.houses.is_empty() || !(others || may_fall)) && rng.roll(4) > 1 {
            return None;
        }
        Some((st, g, others))
    });
    let (mut both, mut fell) = (0, 0);
    for (done, (st, g, others)) in (0..).zip(drawn) {
        let mut seen_killed: Vec<Vec<u64>> = vec![Vec::new(); g.others.len() + 1];
        let mut seen_damage: Vec<std::collections::BTreeMap<Vec<u32>, u64>> =
            vec![std::collections::BTreeMap::new(); g.guns_damage.len()];
        let mut hit = vec![0_u64; 2];
        let rf = |id: &str| st.unit(id).unwrap().rf;
        for i in 0..runs {
            let (_, ev) =
                super::morale::play(&r, &st, "UNIT G: FIRE AT X\n", seed(&[done, i, 55, 41]));
            let (killed, points, struck) = run_of(&ev);
            // A shot after the house fell: the walk's later guns meet the
            // ruins.
            let ruins = ev
                .iter()
                .position(|e| matches!(e, Charge::HouseRuins { .. }));
            fell += u64::from(ruins.is_some_and(|i| {
                ev[i..]
                    .iter()
                    .any(|e| matches!(e, Charge::Roundshot { .. } | Charge::Shell { .. }))
            }));
            let of = |id: &str| killed.get(id).copied().unwrap_or(0).min(rf(id)) as usize;
            tally(&mut seen_killed[0], of("X"));
            for (j, (id, _)) in g.others.iter().enumerate() {
                tally(&mut seen_killed[j + 1], of(id));
            }
            super::gunfire::tally_damage((&st, &g), (&killed, &points), &mut seen_damage);
            hit[usize::from(struck)] += 1;
        }
        within(
            &format!("house {done}: X killed: {st:?}"),
            &g.killed,
            &seen_killed[0],
            runs,
        );
        for (j, (id, d)) in g.others.iter().enumerate() {
            within(
                &format!("house {done}: {id} killed: {st:?}"),
                d,
                &seen_killed[j + 1],
                runs,
            );
        }
        for (j, (id, d)) in g.guns_damage.iter().enumerate() {
            super::gunfire::damage_within(
                &format!("house {done}: {id}'s guns' damage: {st:?}"),
                d,
                &seen_damage[j],
                runs,
            );
        }
        let p = g.houses.first().map_or(0.0, |h| h.1);
        within(
            &format!("house {done}: struck: {st:?}"),
            &[1.0 - p, p],
            &hit,
            runs,
        );
        both += u64::from(hit[1] > 0 && others);
    }
    assert!(
        both > 0,
        "no position struck the house with Z or a gun under the shots"
    );
    assert!(
        fell > 0,
        "no run brought the house down before a later shot"
    );
}
