//! Issue 55: a battery's roundshot or shells with a house on the table
//! (ROUNDSHOT EFFECT ON HOUSES), PREDICT's exact odds against the engine's
//! adjudication (the parent's tolerance, [`within`]): the house dice
//! played by the engine's own steps on each face, where a shot may strike
//! a standing section.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A random Charge! battery G (guns or howitzers, one to three guns)
/// firing at X, line or light infantry, with a building section 4" square:
/// half the time on X's line of fire, its edge 5" to 9" short of X's front
/// or beyond it (where only a shot thrown long or short may strike it), a
/// quarter on X's own ground (X its occupant, killed by the table), else
/// anywhere on the table; or None when the engine would refuse it or the
/// battery has no shot.
fn house_position(r: &Ruleset, rng: &mut ChaChaDice) -> Option<State> {
    let (xx, xy) = (36 + i64::from(rng.roll(9)) - 5, 9 + i64::from(rng.roll(40)));
    let k = i64::from(rng.roll(5)) + 4;
    let (hx, hy) = match rng.roll(4) {
        1 | 2 => (
            xx + i64::from(rng.roll(5)) - 5,
            if rng.roll(2) == 1 { xy + k } else { xy - 4 - k },
        ),
        3 => (xx - 2, xy - 1),
        _ => (i64::from(rng.roll(66)), i64::from(rng.roll(54))),
    };
    let text = format!(
        "id = \"prop\"\nruleset = \"charge\"\ntitle = \"prop\"\nmoves = 12\n\
         table = [72, 60]\nsides = [\"british\", \"french\"]\n\
         [[terrain]]\nkind = \"building\"\nname = \"H\"\n\
         points = [[{hx}, {hy}], [{}, {hy}], [{}, {}], [{hx}, {}]]\n\
         [[units]]\nid = \"G\"\nside = \"british\"\ntype = \"{}\"\nat = [36, 4]\n\
         guns = {}\n\
         [[units]]\nid = \"X\"\nside = \"french\"\ntype = \"{}\"\nat = [{xx}, {xy}]\n\
         rank_and_file = {}\nformation = \"{}\"\n",
        hx + 4,
        hx + 4,
        hy + 4,
        hy + 4,
        pick(rng, &["artillery", "howitzers"]),
        rng.roll(3),
        pick(rng, &["line", "light"]),
        rng.roll(30),
        pick(rng, &["line", "column"]),
    );
    let st = state::load(r, &text, "prop.toml").ok()?;
    r.check(&st, "british", "UNIT G: FIRE AT X\n").ok()?;
    Some(st)
}

/// Issue 55: with a house on the table (ROUNDSHOT EFFECT ON HOUSES: "House
/// under roundshot sleeve, D6 = damage", the penetration table, "a shot
/// that stops" sparing the figures beyond; a shell's second D6 for the
/// occupants), PREDICT's exact roundshot and shell odds of X's rank and
/// file killed (by its figures' dice and, in the house, by the table) and
/// of the house struck agree with the engine's adjudication of the same
/// `FIRE AT`; some position's shots must strike the house and some kill X
/// in it.
#[test]
fn charge_exact_gunfire_with_a_house_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    // Cheap positions (a shot's dice and a die per figure): four times
    // the parent's, for the houses at the edge of a sleeve's reach.
    let positions = 4 * depth::games("PREDICT_MEASURED_POSITIONS", 6, 12);
    let r = Ruleset::builtin("charge").unwrap();
    let drawn = super::positions_of(&[55, 55, 31, 31], positions, "legal positions", |_, rng| {
        let st = house_position(&r, rng)?;
        let g = predict::exact_gunfire_at(&r, &st, "G", "X").ok()?;
        Some((st, g))
    });
    let (mut struck, mut occupant) = (0, 0);
    for (done, (st, g)) in (0..).zip(drawn) {
        let (mut seen, mut hit) = (Vec::new(), vec![0_u64; 2]);
        for i in 0..runs {
            let (_, ev) =
                super::morale::play(&r, &st, "UNIT G: FIRE AT X\n", seed(&[done, i, 55, 31]));
            let (mut killed, mut on_house) = (0, false);
            for e in &ev {
                let (k, houses) = match e {
                    Charge::Roundshot { killed, houses, .. } => (killed, houses.as_slice()),
                    Charge::Shell {
                        killed: Some(killed),
                        houses,
                        ..
                    } => (killed, houses.as_deref().unwrap_or_default()),
                    _ => continue,
                };
                killed += k.get("X").copied().unwrap_or(0);
                for h in houses {
                    on_house = true;
                    if h.occupant.as_deref() == Some("X") {
                        killed += h.killed;
                        occupant += u64::from(h.killed > 0);
                    }
                }
            }
            tally(&mut seen, killed.min(st.unit("X").unwrap().rf) as usize);
            hit[usize::from(on_house)] += 1;
        }
        within(
            &format!("gunfire {done} with a house: X killed: {st:?}"),
            &g.killed,
            &seen,
            runs,
        );
        let p = g.houses.first().map_or(0.0, |h| h.1);
        within(
            &format!("gunfire {done}: the house struck: {st:?}"),
            &[1.0 - p, p],
            &hit,
            runs,
        );
        struck += u64::from(hit[1] > 0);
    }
    assert!(struck > 0, "no position's shots struck the house");
    assert!(occupant > 0, "no position killed X in the house");
}
