//! Issue 55: a battery's roundshot or shells with a house on the table,
//! PREDICT's exact odds against the engine's adjudication (the parent's
//! tolerance, [`within`]): exact where no throw of the placing dice puts
//! a standing section under the sleeve or the shell's burst, else left to
//! the sampled figures.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A random Charge! battery G (guns or howitzers, one to three guns)
/// firing at X, line or light infantry, with a building section 4" square
/// somewhere on the table, two times in three on X's line of fire a few
/// inches short of it or beyond it (where only a shot thrown long or
/// short may strike it);
/// or None when the engine would refuse it or the battery has no shot.
fn house_position(r: &Ruleset, rng: &mut ChaChaDice) -> Option<State> {
    let (xx, xy) = (36 + i64::from(rng.roll(9)) - 5, 9 + i64::from(rng.roll(40)));
    // Near X: on its line of fire, its near or far edge 5" to 9" from
    // X's front, where only the longest throws of the sleeve may reach.
    let k = i64::from(rng.roll(5)) + 4;
    let (hx, hy) = if rng.roll(3) > 1 {
        (
            xx + i64::from(rng.roll(5)) - 5,
            if rng.roll(2) == 1 { xy + k } else { xy - 4 - k },
        )
    } else {
        (i64::from(rng.roll(66)), i64::from(rng.roll(54)))
    };
    let text = format!(
        "id = \"prop\"\nruleset = \"charge\"\ntitle = \"prop\"\nmoves = 12\n\
         table = [72, 60]\nsides = [\"british\", \"french\"]\n\
         [[terrain]]\nkind = \"building\"\npoints = [[{hx}, {hy}], [{}, {hy}], [{}, {}], [{hx}, {}]]\n\
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
/// under roundshot sleeve, D6 = damage"), PREDICT's exact roundshot and
/// shell odds of X's rank and file killed agree with the engine's
/// adjudication of the same `FIRE AT` where PREDICT gives them, and no
/// run of such a position strikes the house; positions where a shot may
/// strike it are left to the sampled figures (and counted: at least one).
#[test]
fn charge_exact_gunfire_with_a_house_out_of_reach_agrees_with_the_engines_adjudication() {
    let runs = depth::games("PREDICT_MEASURED_RUNS", 2_000, RUNS_DEEP);
    // Cheap positions (a shot's dice and a die per figure): four times
    // the parent's, for the houses at the edge of a sleeve's reach.
    let positions = 4 * depth::games("PREDICT_MEASURED_POSITIONS", 6, 12);
    let r = Ruleset::builtin("charge").unwrap();
    let mut rng = ChaChaDice::from_seed(seed(&[55, 55, 31, 31]));
    let (mut done, mut tries, mut in_reach) = (0, 0, 0);
    while done < positions {
        tries += 1;
        assert!(tries < 100_000, "too few legal positions");
        let Some(st) = house_position(&r, &mut rng) else {
            continue;
        };
        let g = match predict::exact_gunfire_at(&r, &st, "G", "X") {
            Ok(g) => g,
            Err(why) => {
                in_reach += u64::from(why.contains("house"));
                continue;
            }
        };
        let mut seen = Vec::new();
        for i in 0..runs {
            let (_, ev) =
                super::morale::play(&r, &st, "UNIT G: FIRE AT X\n", seed(&[done, i, 55, 31]));
            let mut killed = 0;
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
                assert!(
                    houses.is_empty(),
                    "PREDICT was exact but a shot struck the house: {houses:?}\n{st:?}"
                );
                killed += k.get("X").copied().unwrap_or(0);
            }
            tally(&mut seen, killed.min(st.unit("X").unwrap().rf) as usize);
        }
        within(
            &format!("gunfire {done} with a house: X killed: {st:?}"),
            &g.killed,
            &seen,
            runs,
        );
        done += 1;
    }
    assert!(
        in_reach > 0,
        "no position put the house within a shot's reach"
    );
}
