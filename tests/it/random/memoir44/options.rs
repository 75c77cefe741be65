//! Memoir '44's optional game conversions in the random games: "Achtung!
//! Zombie!", 1984, the Daleks, the Cybermen and the worlds: their random set-up,
//! their per-turn checks, and the tests that each option converts a shipped
//! scenario (moved out of `super` to keep each file under 2,000 lines).

use super::*;

/// In every third game one side (at random) is the Dead Player of
/// "Achtung! Zombie!" (Appendix 3).
pub(super) fn add_random_zombies(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/zombies", &[&seed]));
    if rng.roll(3) != 1 || !st.airdrops.is_empty() {
        return;
    }
    let dead = rng.roll(2) as usize - 1;
    memoir44::variants::zombies::convert(r, st, dead).expect("zombie conversion");
    // The Oasis's recovery (as Medics & Mechanics) may bring a unit the
    // scenario set up below strength up to its starting strength, beyond
    // the Living figures check_zombies counts from: not in zombie games.
    st.variants.retain(|v| v != "oasis-recovery");
}

/// In every fourth game that plays no zombies (and drops no paratroops),
/// "Nineteen Eighty-Four" (Appendix 3) converts the scenario. In half of
/// those, the stronger force first has three Artillery Units (Infantry
/// made Medium Artillery where it has fewer), so that "every third
/// Artillery Unit is a Rocket Artillery battery" happens often: no shipped
/// scenario gives a force three.
pub(super) fn add_random_1984(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/1984", &[&seed]));
    if rng.roll(4) != 1 || st.zombies.is_some() || !st.airdrops.is_empty() {
        return;
    }
    if rng.roll(2) == 1 {
        three_artillery(r, st);
    }
    memoir44::variants::nineteen84::convert(r, st).expect("1984 conversion");
    let kinds = |s: usize| {
        let mut v: Vec<&str> = st
            .units
            .iter()
            .filter(|u| u.side == s)
            .map(|u| u.kind.as_str())
            .collect();
        v.sort_unstable();
        v
    };
    // Both sides hold the same units (a copy the board had no room for
    // aside: none on the shipped boards).
    assert_eq!(kinds(0), kinds(1), "1984: the two forces differ");
}

/// The stronger force (as `nineteen84::convert` picks it) given three
/// Artillery Units, plain Infantry made Medium Artillery.
pub(super) fn three_artillery(r: &Ruleset, st: &mut State) {
    let count = |st: &State, s: usize| st.units.iter().filter(|u| u.side == s).count();
    let strong = usize::from(count(st, 1) > count(st, 0));
    let artillery = |st: &State| {
        st.units
            .iter()
            .filter(|u| u.side == strong && r.units[&u.kind].class == "artillery")
            .count()
    };
    let spec = &r.units["medium-artillery"];
    // Not a unit a Battle Star Marker rides with (the Battle Stars are set
    // by now; assault boats and the like go with Infantry only).
    let starred: BTreeSet<u32> = st.stars.iter().filter_map(|s| s.unit).collect();
    while artillery(st) < 3 {
        let Some(u) = st
            .units
            .iter_mut()
            .find(|u| u.side == strong && u.kind == "infantry" && !starred.contains(&u.id))
        else {
            break;
        };
        u.kind = "medium-artillery".into();
        u.start = spec.figures;
        u.figures = u.figures.min(spec.figures);
    }
}

/// Units per (side, type), on the board and waiting to come on.
pub(super) fn force_1984(st: &State) -> std::collections::BTreeMap<(usize, String), usize> {
    let mut m = std::collections::BTreeMap::new();
    for u in &st.units {
        *m.entry((u.side, u.kind.clone())).or_insert(0) += 1;
    }
    if let Some(v) = &st.nineteen84 {
        for p in &v.pending {
            *m.entry((p.side, p.kind.clone())).or_insert(0) += 1;
        }
    }
    m
}

/// "Nineteen Eighty-Four" invariants after a turn.
pub(super) fn check_1984(
    r: &Ruleset,
    scenario: &str,
    t: u32,
    st: &State,
    next: &State,
    events: &[Event],
) {
    if next.nineteen84.is_none() {
        return;
    }
    let permitted = r.nineteen84.permitted();
    for u in &next.units {
        assert!(
            permitted.contains(&u.kind),
            "{scenario} turn {t}: a {} in a 1984 game",
            u.kind
        );
    }
    assert_eq!(
        force_1984(st),
        force_1984(next),
        "{scenario} turn {t}: 1984 forces changed (an eliminated unit not replaced)"
    );
    for e in events {
        if let Event::Retreat { path, .. } = e {
            assert!(
                path.len() <= 1,
                "{scenario} turn {t}: a unit retreated in a 1984 game"
            );
        }
    }
    assert!(
        next.commissar.is_some() && next.second_commissar.is_some(),
        "{scenario} turn {t}: 1984 without both Commissar markers"
    );
    assert_eq!(next.victory, r.nineteen84.victory, "{scenario} turn {t}");
}

/// Appendix 3's Suggested Variants, as the game options apply them: at
/// most one a game (the Cybermen may face the Daleks), then the Human
/// Factor of "EX-TER-MIN-ATE!".
pub(super) fn add_random_variants(r: &Ruleset, st: &mut State, seed: Seed) {
    // A scenario written for a variant (The Fall Of London) plays it alone.
    if st.worlds.is_some() {
        return;
    }
    add_random_zombies(r, st, seed);
    add_random_1984(r, st, seed);
    add_random_daleks(r, st, seed);
    add_random_cybermen(r, st, seed);
    add_random_worlds(r, st, seed);
    memoir44::variants::exterminate::human_factor(r, st);
}

/// In one game in four without zombies or "Nineteen Eighty-Four" a side is
/// the Cyberman side of "EX-TER-MIN-ATE!" (Appendix 3): the side facing
/// the Daleks if there are Daleks, else one at random.
pub(super) fn add_random_cybermen(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/cybermen", &[&seed]));
    if rng.roll(4) != 1 || st.zombies.is_some() || st.nineteen84.is_some() {
        return;
    }
    let side = match &st.exterminate {
        Some(x) => State::other(x.daleks),
        None => rng.roll(2) as usize - 1,
    };
    memoir44::variants::cybermen::convert(r, st, side).expect("cyberman conversion");
}

/// The Cybermen's invariants after a turn: Cyberman units only on the
/// Cyberman side, never retreating ("not effected by ... Purple Flags"),
/// never above their 4 figures, and every reinforcement to a Cyberman
/// unit after its close assault.
pub(super) fn check_cybermen(r: &Ruleset, scenario: &str, t: u32, next: &State, events: &[Event]) {
    let cyber = |k: &str| r.unit(k).is_some_and(|s| s.variant.cyberman);
    for u in &next.units {
        if cyber(&u.kind) {
            assert_eq!(
                Some(u.side),
                next.cybermen,
                "{scenario} turn {t}: a Cyberman unit at {} of side {}",
                u.at,
                u.side
            );
            assert!(
                u.figures <= u.start && u.start == r.units["cyberman"].figures,
                "{scenario} turn {t}: Cybermen at {} with {} of {} figures",
                u.at,
                u.figures,
                u.start
            );
        }
    }
    let mut close_assault = false;
    for e in events {
        match e {
            Event::Retreat { unit, path, .. } => assert!(
                !cyber(unit) || path.len() == 1,
                "{scenario} turn {t}: a Cyberman unit retreated {path:?}"
            ),
            // The Cyberman side's last battle (a battle back by the enemy
            // comes between the assault and its reinforcements).
            Event::Battle {
                side,
                attacker,
                range,
                ..
            } if next.cybermen.map(|c| &next.sides[c]) == Some(side) => {
                close_assault = cyber(attacker) && *range == 1;
            }
            Event::Cybermen {
                figures, left, at, ..
            } => {
                CYBER_REINFORCEMENTS.fetch_add(1, Relaxed);
                assert!(
                close_assault && *figures > 0 && *left <= r.units["cyberman"].figures,
                    "{scenario} turn {t}: Cybermen at {at} reinforced by {figures} to {left} outside a close assault"
                );
            }
            _ => {}
        }
    }
}

/// In every third game (that is not a zombie game) one side (at random) is
/// the Dalek side of "EX-TER-MIN-ATE!" (Appendix 3).
pub(super) fn add_random_daleks(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/daleks", &[&seed]));
    if rng.roll(3) != 1 || st.zombies.is_some() || st.nineteen84.is_some() {
        return;
    }
    let daleks = rng.roll(2) as usize - 1;
    memoir44::variants::exterminate::convert(r, st, daleks).expect("dalek conversion");
}

/// "EX-TER-MIN-ATE!" invariants after a turn.
pub(super) fn check_daleks(
    r: &Ruleset,
    scenario: &str,
    t: u32,
    st: &State,
    next: &State,
    events: &[Event],
) {
    let Some(x) = &next.exterminate else {
        return;
    };
    let human = State::other(x.daleks);
    let variant = |k: &str| r.unit(k).expect("unit kind").variant.clone();
    for u in &next.units {
        let v = variant(&u.kind);
        assert!(
            u.side == x.daleks || !(v.dalek || v.mercenary),
            "{scenario} turn {t}: a {} on the Human side",
            u.kind
        );
    }
    // "Daleks do not Retreat."
    for e in events {
        if let Event::Retreat { unit, path, .. } = e {
            assert!(
                !variant(unit).flags_cost_models || path.len() == 1,
                "{scenario} turn {t}: a Dalek unit retreated {path:?}"
            );
        }
    }
    // "Dalek Mercenary Units will automatically surrender if all the Dalek
    // Units are destroyed."
    let daleks_left = next
        .units
        .iter()
        .any(|u| u.side == x.daleks && variant(&u.kind).dalek);
    let mercs_left = next
        .units
        .iter()
        .any(|u| u.side == x.daleks && variant(&u.kind).mercenary);
    assert!(
        daleks_left || !mercs_left || !x.had_daleks,
        "{scenario} turn {t}: mercenaries fight on with no Dalek left"
    );
    // Exterminated towns stay City Ruins, their markers the Daleks'.
    let before = st
        .exterminate
        .as_ref()
        .map(|b| b.ruins.clone())
        .unwrap_or_default();
    assert!(
        before.iter().all(|h| x.ruins.contains(h)),
        "{scenario} turn {t}: an exterminated town came back"
    );
    for h in &x.ruins {
        let fs = next.features(*h);
        assert!(
            fs.contains(&r.exterminate.ruins)
                && !fs.iter().any(|f| r.exterminate.towns.contains(f)),
            "{scenario} turn {t}: the exterminated town at {h} is {fs:?}"
        );
    }
    assert!(
        x.pending.is_empty(),
        "{scenario} turn {t}: extermination left pending"
    );
    assert!(
        next.medal_units[x.daleks] >= x.ruins.len() as u32,
        "{scenario} turn {t}: the Daleks' medals lost an exterminated town"
    );
    if next.over {
        let any = |s: usize| next.units.iter().any(|u| u.side == s);
        let w = next.winner.clone().unwrap_or_default();
        if !any(x.daleks) {
            assert_eq!(w, next.sides[human], "{scenario} turn {t}: Daleks gone");
        }
    }
}

/// In one game in three without zombies one side (at random) is the
/// Martian Player of "War Of The Worlds" (Appendix 3).
pub(super) fn add_random_worlds(r: &Ruleset, st: &mut State, seed: Seed) {
    let mut rng = ChaChaDice::from_seed(adjutant::engine::dice::derive("test/worlds", &[&seed]));
    if rng.roll(3) != 1
        || !st.airdrops.is_empty()
        || st.zombies.is_some()
        || st.nineteen84.is_some()
        || st.exterminate.is_some()
        || st.cybermen.is_some()
    {
        return;
    }
    let martian = rng.roll(2) as usize - 1;
    memoir44::variants::worlds::convert(r, st, martian).expect("worlds conversion");
}

/// "War Of The Worlds" invariants after a turn: the variant's own
/// (sickness only grows and every Martian unit's full strength reflects
/// it, seized towns stay seized), only Martian machines on the Martian
/// side, and a finished game's winner.
pub(super) fn check_worlds(r: &Ruleset, scenario: &str, t: u32, st: &State, next: &State) {
    if let Some(p) = memoir44::variants::worlds::invariant(r, st, next) {
        panic!("{scenario} turn {t}: {p}");
    }
    let Some(w) = &next.worlds else {
        return;
    };
    for u in &next.units {
        let martian = r.unit(&u.kind).expect("unit kind").variant.martian;
        assert_eq!(
            martian,
            u.side == w.martian,
            "{scenario} turn {t}: a {} of side {} in a Martian game",
            u.kind,
            u.side
        );
    }
    let before = st.worlds.as_ref().expect("worlds before");
    assert!(
        w.sick <= before.sick + 1,
        "{scenario} turn {t}: sickness rose by more than one level"
    );
    if next.over && !st.over {
        let human = 1 - w.martian;
        let winner = next.winner.clone().unwrap_or_default();
        let martians = next.units.iter().filter(|u| u.side == w.martian).count() as u32;
        let humans = next.units.iter().filter(|u| u.side == human).count() as u32;
        if winner == next.sides[w.martian] {
            assert!(
                w.humans_start.saturating_sub(humans) >= (w.humans_start * 3 / 4).max(1),
                "{scenario} turn {t}: the Martians won without three-quarters"
            );
            assert!(
                w.handling_start == 0 || w.objectives.is_empty(),
                "{scenario} turn {t}: the Martians won with towns unseized"
            );
        } else {
            assert_eq!(winner, next.sides[human], "{scenario} turn {t}: no winner");
            let handling = next
                .units
                .iter()
                .filter(|u| u.side == w.martian && u.kind == r.worlds.handling)
                .count();
            assert!(
                w.martians_start.saturating_sub(martians) >= (w.martians_start / 2).max(1)
                    || (w.handling_start > 0 && handling == 0)
                    || martians == 0,
                "{scenario} turn {t}: the Humans won without their objective"
            );
        }
    }
}

/// "Achtung! Zombie!" invariants after a turn.
pub(super) fn check_zombies(r: &Ruleset, scenario: &str, t: u32, st: &State, next: &State) {
    let Some(z) = &next.zombies else {
        return;
    };
    let board = memoir44::State::board(r);
    let living = State::other(z.dead);
    for u in &next.units {
        let zombie = r.unit(&u.kind).expect("unit kind").variant.zombie;
        assert_eq!(
            zombie,
            u.side == z.dead,
            "{scenario} turn {t}: a {} of side {} in a zombie game",
            u.kind,
            u.side
        );
        if zombie && u.figures >= r.zombies.divide_at {
            let room =
                u.at.neighbours()
                    .iter()
                    .any(|h| board.contains(*h) && next.unit_at(*h).is_none());
            assert!(
                !room,
                "{scenario} turn {t}: {} zombies at {} did not divide",
                u.figures, u.at
            );
        }
    }
    assert!(
        next.hands[z.dead].is_empty(),
        "{scenario} turn {t}: the Dead hold cards"
    );
    if let Some(before) = &st.zombies {
        assert!(
            z.markers.iter().all(|m| before.markers.contains(m)),
            "{scenario} turn {t}: a victory marker came back"
        );
        assert!(
            z.saved >= before.saved,
            "{scenario} turn {t}: saved figures went down"
        );
    }
    let on_board: u32 = next
        .units
        .iter()
        .filter(|u| u.side == living)
        .map(|u| u.figures)
        .sum();
    assert!(
        z.saved + on_board <= z.living_start,
        "{scenario} turn {t}: more Living figures than the game began with"
    );
    if next.over {
        let any = |s: usize| next.units.iter().any(|u| u.side == s);
        let w = next.winner.clone().unwrap_or_default();
        if !any(z.dead) {
            assert_eq!(w, next.sides[living], "{scenario} turn {t}: zombies gone");
        } else {
            assert!(
                !any(living),
                "{scenario} turn {t}: over with both sides on the board"
            );
            let lost = z.living_start - z.saved;
            let draw = z.saved + z.markers.len() as u32 > lost;
            let want = if draw {
                String::new()
            } else {
                next.sides[z.dead].clone()
            };
            assert_eq!(w, want, "{scenario} turn {t}: the zombie game's result");
        }
    }
}

/// "Achtung! Zombie!": the game option `zombies=<side>` converts a shipped
/// scenario (1, 2 or 3 zombie units per unit by class, no cards for the
/// Dead, no objectives), and an unknown side is refused.
#[test]
fn zombies_option_converts_a_shipped_scenario() {
    use adjutant::rules::{Family, Scenario};
    let r = Ruleset::builtin().expect("ruleset");
    let mut scen = Scenario::shipped("pegasus-bridge");
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let plain = Family::setup(&r, &scen, &mut deck).expect("setup");
    scen.options.insert("zombies".into(), "axis".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let st = Family::setup(&r, &scen, &mut deck).expect("zombie setup");
    let dead = st.side_index("axis").expect("axis");
    assert_eq!(st.zombies.as_ref().map(|z| z.dead), Some(dead));
    assert!(st.hands[dead].is_empty() && st.objectives.is_empty());
    let want: u32 = plain
        .units
        .iter()
        .filter(|u| u.side == dead)
        .map(|u| r.zombies.convert[&r.units[&u.kind].class])
        .sum();
    let got = st.units.iter().filter(|u| u.side == dead).count() as u32;
    assert_eq!(got, want);
    assert!(st
        .units
        .iter()
        .filter(|u| u.side == dead)
        .all(|u| u.kind == "zombie" && u.figures == 3));
    let cards = st.deck.len() + st.discard.len() + st.hands.iter().map(Vec::len).sum::<usize>();
    assert_eq!(cards, 60);
    scen.options.insert("zombies".into(), "martians".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("unknown side")
        .to_string();
    assert!(e.contains("zombies") && e.contains("martians"), "{e}");
}

/// "Nineteen Eighty-Four": the game option `nineteen-eighty-four` gives both
/// sides of a shipped scenario the larger force, converted, with 12 victory
/// points, a Commissar marker each and no Blitzkrieg; a value that is not
/// true or false, and the option with zombies, are refused.
#[test]
fn nineteen_eighty_four_option_converts_a_shipped_scenario() {
    use adjutant::rules::{Family, Scenario};
    let r = Ruleset::builtin().expect("ruleset");
    let mut scen = Scenario::shipped("pegasus-bridge");
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let plain = Family::setup(&r, &scen, &mut deck).expect("setup");
    let larger = (0..2)
        .map(|s| plain.units.iter().filter(|u| u.side == s).count())
        .max()
        .unwrap_or(0);
    scen.options
        .insert("nineteen-eighty-four".into(), String::new());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let st = Family::setup(&r, &scen, &mut deck).expect("1984 setup");
    let permitted = r.nineteen84.permitted();
    for s in 0..2 {
        let units: Vec<_> = st.units.iter().filter(|u| u.side == s).collect();
        assert_eq!(units.len(), larger, "side {s}");
        assert!(units.iter().all(|u| permitted.contains(&u.kind)));
    }
    assert_eq!(st.victory, 12);
    assert!(st.commissar.is_some() && st.second_commissar.is_some());
    assert!(st.blitzkrieg.is_none());
    scen.options
        .insert("nineteen-eighty-four".into(), "perhaps".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("bad value")
        .to_string();
    assert!(
        e.contains("nineteen-eighty-four") && e.contains("perhaps"),
        "{e}"
    );
    scen.options
        .insert("nineteen-eighty-four".into(), "true".into());
    scen.options.insert("zombies".into(), "axis".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("two variants")
        .to_string();
    assert!(e.contains("zombies"), "{e}");
}

/// "EX-TER-MIN-ATE!": the game option `exterminate=<side>` converts a
/// shipped scenario (each unit replaced in place by its Dalek type, the
/// Human side given a Human Factor leader, the Daleks needing 10), an
/// unknown side is refused, and so is playing it with the zombies.
#[test]
fn exterminate_option_converts_a_shipped_scenario() {
    use adjutant::rules::{Family, Scenario};
    let r = Ruleset::builtin().expect("ruleset");
    let mut scen = Scenario::shipped("pegasus-bridge");
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let plain = Family::setup(&r, &scen, &mut deck).expect("setup");
    scen.options.insert("exterminate".into(), "axis".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let st = Family::setup(&r, &scen, &mut deck).expect("dalek setup");
    let daleks = st.side_index("axis").expect("axis");
    let x = st.exterminate.as_ref().expect("exterminate");
    assert_eq!((x.daleks, x.need), (daleks, 10));
    for (a, b) in plain.units.iter().zip(&st.units) {
        assert_eq!((a.id, a.at), (b.id, b.at), "replaced in place");
        let want = if a.side != daleks {
            a.kind.clone()
        } else if let Some(t) = r.exterminate.by_unit.get(&a.kind) {
            t.clone()
        } else {
            r.exterminate.by_class[&r.units[&a.kind].class].clone()
        };
        assert_eq!(b.kind, want);
    }
    assert!(st
        .stars
        .iter()
        .any(|s| s.kind == "human-factor" && s.side == Some(1 - daleks) && s.unit.is_some()));
    scen.options.insert("exterminate".into(), "martians".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("unknown side")
        .to_string();
    assert!(e.contains("exterminate") && e.contains("martians"), "{e}");
    scen.options.insert("exterminate".into(), "axis".into());
    scen.options.insert("zombies".into(), "allies".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("daleks and zombies")
        .to_string();
    assert!(e.contains("zombies"), "{e}");
}

/// "War Of The Worlds": the game option `worlds=<side>` converts a shipped
/// scenario (one Martian unit for every two units, every 4th a Handling
/// Machine, all on the Martian edge row; two extra cards; Human infantry
/// Special, Medium Artillery Heavy; no scenario objectives), it is not
/// played with zombies, and an unknown side is refused.
#[test]
fn worlds_option_converts_a_shipped_scenario() {
    use adjutant::rules::{Family, Scenario};
    let r = Ruleset::builtin().expect("ruleset");
    let mut scen = Scenario::shipped("pegasus-bridge");
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let plain = Family::setup(&r, &scen, &mut deck).expect("setup");
    scen.options.insert("worlds".into(), "axis".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let st = Family::setup(&r, &scen, &mut deck).expect("worlds setup");
    let martian = st.side_index("axis").expect("axis");
    let human = 1 - martian;
    let w = st.worlds.as_ref().expect("worlds");
    assert_eq!(w.martian, martian);
    assert!(st.objectives.is_empty());
    let counted = plain
        .units
        .iter()
        .filter(|u| u.side == martian && u.train.is_none())
        .filter(|u| r.worlds.replaced_classes.contains(&r.units[&u.kind].class))
        .count() as u32;
    let machines: Vec<_> = st.units.iter().filter(|u| u.side == martian).collect();
    assert_eq!(machines.len() as u32, counted / 2);
    assert_eq!(w.martians_start, counted / 2);
    let edge = if martian == 0 { 0 } else { 8 };
    for u in &machines {
        assert_eq!(u.at.row, edge, "{} not on the rear line", u.at);
    }
    assert_eq!(
        machines
            .iter()
            .filter(|u| u.kind == r.worlds.handling)
            .count() as u32,
        counted / 2 / 4
    );
    assert_eq!(st.hand_size[martian], plain.hand_size[martian] + 2);
    assert_eq!(st.hands[martian].len(), plain.hands[martian].len() + 2);
    assert_eq!(st.hands[human], plain.hands[human]);
    assert!(st
        .units
        .iter()
        .filter(|u| u.side == human)
        .all(|u| u.kind != "infantry" && u.kind != "medium-artillery"));
    let cards = st.deck.len() + st.discard.len() + st.hands.iter().map(Vec::len).sum::<usize>();
    assert_eq!(cards, 60);
    scen.options.insert("zombies".into(), "allies".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("two variants")
        .to_string();
    assert!(e.contains("worlds") && e.contains("zombies"), "{e}");
    scen.options.remove("zombies");
    scen.options.insert("worlds".into(), "martians".into());
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let e = Family::setup(&r, &scen, &mut deck)
        .expect_err("unknown side")
        .to_string();
    assert!(e.contains("worlds") && e.contains("martians"), "{e}");
}

/// The Cybermen of "EX-TER-MIN-ATE!": the game option `cybermen=<side>`
/// converts a shipped scenario ("One Cyberman Unit replaces each Infantry,
/// Armour and Artillery Unit", the Human side given a Human Factor leader);
/// with the Daleks on the other side there is no Human Player and no
/// leader; "not on the same side" as the Daleks, and not with another
/// Suggested Variant, is refused.
#[test]
fn cybermen_option_converts_and_faces_the_daleks_only_across_the_board() {
    use adjutant::rules::{Family, Scenario};
    let r = Ruleset::builtin().expect("ruleset");
    let setup = |opts: &[(&str, &str)]| {
        let mut scen = Scenario::shipped("pegasus-bridge");
        for (k, v) in opts {
            scen.options.insert((*k).into(), (*v).into());
        }
        let mut deck = ChaChaDice::from_seed([7; 32]);
        Family::setup(&r, &scen, &mut deck).map_err(|e| e.to_string())
    };
    let plain = setup(&[]).expect("setup");
    let st = setup(&[("cybermen", "axis")]).expect("cyberman setup");
    let cyber = st.side_index("axis").expect("axis");
    assert_eq!(st.cybermen, Some(cyber));
    for (a, b) in plain.units.iter().zip(&st.units) {
        assert_eq!((a.id, a.at), (b.id, b.at), "replaced in place");
        let replaced = a.side == cyber
            && a.train.is_none()
            && ["infantry", "armour", "artillery"].contains(&r.units[&a.kind].class.as_str());
        let want = if replaced {
            "cyberman"
        } else {
            a.kind.as_str()
        };
        assert_eq!(b.kind, want, "{} at {}", a.kind, a.at);
        if replaced {
            assert_eq!((b.figures, b.start), (4, 4));
        }
    }
    let leaders = |st: &State| {
        st.stars
            .iter()
            .filter(|s| s.kind == "human-factor")
            .map(|s| s.side)
            .collect::<Vec<_>>()
    };
    assert_eq!(leaders(&st), vec![Some(1 - cyber)]);
    // Daleks against Cybermen: both converted, no Human Factor.
    let st = setup(&[("cybermen", "axis"), ("exterminate", "allies")]).expect("both");
    assert_eq!(st.exterminate.as_ref().map(|x| x.daleks), Some(1 - cyber));
    assert!(leaders(&st).is_empty(), "{:?}", leaders(&st));
    let e = setup(&[("cybermen", "axis"), ("exterminate", "axis")]).expect_err("same side");
    assert!(e.contains("not on the same side"), "{e}");
    let e = setup(&[("cybermen", "axis"), ("worlds", "allies")]).expect_err("with worlds");
    assert!(e.contains("one Suggested Variant a game"), "{e}");
    let e = setup(&[("cybermen", "martians")]).expect_err("unknown side");
    assert!(e.contains("cybermen") && e.contains("martians"), "{e}");
}

/// A scenario file names the Suggested Variant it is written for
/// (`variant = { worlds = "martians" }`, The Fall Of London); a wrong side
/// or an unknown variant is refused with the line and column of the
/// mistake.
#[test]
fn a_scenario_names_its_variant_and_mistakes_have_line_and_column() {
    let r = Ruleset::builtin().expect("ruleset");
    let text = include_str!("../../../../scenarios/memoir44/fall-of-london.toml");
    let line = 2 + text[..text.find("\nvariant = {").expect("variant key")]
        .matches('\n')
        .count();
    let mut deck = ChaChaDice::from_seed([7; 32]);
    let st = memoir44::setup_text(&r, text, "fall-of-london.toml", &mut deck).expect("setup");
    assert_eq!(
        st.worlds.as_ref().map(|w| w.martian),
        st.side_index("martians")
    );
    for (bad, says) in [
        (r#"worlds = "venusians""#, "venusians"),
        (
            r#"triffids = "martians""#,
            "unknown Suggested Variant 'triffids'",
        ),
    ] {
        let wrong = text.replace(r#"worlds = "martians""#, bad);
        let mut deck = ChaChaDice::from_seed([7; 32]);
        let e = memoir44::setup_text(&r, &wrong, "fall-of-london.toml", &mut deck)
            .expect_err("a wrong variant")
            .to_string();
        assert!(
            e.contains(&format!("fall-of-london.toml:{line}:")) && e.contains(says),
            "{e}"
        );
    }
}
