//! The measured family in the random-game driver (`super`): random games
//! of legal orders from every shipped Charge! scenario, and every Seven
//! Years' War scenario with the fog-of-war events forced on. After every move: no two units' ground
//! overlaps, rank and file and officers are only ever removed (never added,
//! never a unit from nowhere: an off-table unit comes on with the men it
//! had), every unit stays on the table unless it left
//! it; and replaying the submissions gives the same state and events.
//!
//! Depth (`common::depth`): 60 Charge! and 30 Seven Years' War games per
//! scenario at both depths (their rare-event counters need that many); `MEASURED_GAMES`
//! sets the number exactly.

use super::{Hook, Kind, Phase, Streams, Watch};
use adjutant::engine::dice::{ChaChaDice, Seed};
use adjutant::rules::measured::{
    geometry, random, state, Book, Charge, ChargeRuleset, Ruleset, State, Unit,
};
use adjutant::rules::syw::entry;
use adjutant::rules::syw::{Ruleset as SywRuleset, SevenYearsWar, State as SywState};
use adjutant::rules::{Family, FamilyEntry, Orders, Rules, Scenario, Viewer};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;

const MAX_MOVES: u32 = 40;

fn seed_of(n: u64) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s[8] = 0x14;
    s
}

/// What a book adds to the random games: its set-up, its orders of its
/// own, the units it holds off the table.
trait TestBook: Book {
    fn prepare(_r: &Ruleset<Self>, _st: &mut State<Self>, _seed: &Seed) {}
    /// The book's own orders added to the random ones; whether a
    /// regimental move was.
    fn add_orders(
        _r: &Ruleset<Self>,
        _st: &State<Self>,
        _orders: &mut [Orders],
        _rng: &mut ChaChaDice,
    ) -> bool {
        false
    }
    fn held_off(_st: &State<Self>) -> Vec<&Unit<Self>> {
        Vec::new()
    }
}

impl TestBook for Charge {}

impl TestBook for SevenYearsWar {
    fn prepare(r: &SywRuleset, st: &mut SywState, seed: &Seed) {
        if seed[0].is_multiple_of(2) {
            designated_hill(st);
        }
        regiments(r, st);
    }

    fn add_orders(
        r: &SywRuleset,
        st: &SywState,
        orders: &mut [Orders],
        rng: &mut ChaChaDice,
    ) -> bool {
        let regimental = add_regiment(r, st, orders, rng);
        add_refusal(r, st, orders, rng);
        add_retreat(r, st, orders, rng);
        regimental
    }

    fn held_off(st: &SywState) -> Vec<&Unit<Self>> {
        entry::reserves(st).iter().map(|x| &x.unit).collect()
    }
}

fn setup<B: TestBook>(
    r: &Ruleset<B>,
    scenario: &str,
    seed: &Seed,
    deck: &mut ChaChaDice,
) -> State<B> {
    let mut st = Family::setup(r, &Scenario::shipped(scenario), deck).expect("setup");
    B::prepare(r, &mut st, seed);
    st
}

/// Seven Years' War: each brigade's line cavalry squadrons form a
/// regiment (L: "Line cavalry move by squadron ... A regiment may dice and
/// move as one body"), so the random games make regimental moves.
fn regiments(r: &SywRuleset, st: &mut SywState) {
    for u in &mut st.units {
        let line_cavalry = r
            .troop(&u.troop)
            .is_some_and(|t| t.class == "cavalry" && !t.light);
        if line_cavalry && !u.brigade.is_empty() {
            u.regiment = format!("R-{}", u.brigade);
        }
    }
}

/// Now and then a regimental move (Seven Years' War `REGIMENT`) for a
/// regiment of the side, in place of its squadrons' own lines: a move, a
/// wheel or one squadron's charge with the others supporting, added if the
/// judge accepts it. Whether one was added.
fn add_regiment(
    r: &SywRuleset,
    st: &SywState,
    orders: &mut [Orders],
    rng: &mut ChaChaDice,
) -> bool {
    use adjutant::engine::dice::Dice;
    if r.syw.is_none() || rng.roll(3) != 1 {
        return false;
    }
    for o in orders.iter_mut() {
        let Some(side) = st.side_index(&o.side) else {
            continue;
        };
        let mut regs: Vec<&str> = st
            .units
            .iter()
            .filter(|u| u.side == side && !u.regiment.is_empty())
            .map(|u| u.regiment.as_str())
            .collect();
        regs.dedup();
        let enemies: Vec<&str> = st
            .units
            .iter()
            .filter(|u| u.side != side)
            .map(|u| u.id.as_str())
            .collect();
        for reg in regs {
            let squadrons: Vec<&str> = st
                .units
                .iter()
                .filter(|u| u.side == side && u.regiment == reg)
                .map(|u| u.id.as_str())
                .collect();
            // The squadrons' own lines give way to the regiment's.
            let rest: Vec<&str> = o
                .text
                .lines()
                .filter(|l| {
                    !squadrons
                        .iter()
                        .any(|q| l.starts_with(&format!("UNIT {q}:")))
                        && *l != "PASS"
                })
                .collect();
            let mut tries: Vec<String> = Vec::new();
            for e in &enemies {
                for q in &squadrons {
                    tries.push(format!("CHARGE {e} WITH {q}"));
                    tries.push(format!("FORWARD {}, CHARGE {e} WITH {q}", rng.roll(3)));
                }
            }
            let k = rng.roll(tries.len().max(1) as u32) as usize;
            let n = tries.len();
            tries.rotate_left(k.saturating_sub(1).min(n));
            tries.truncate(4);
            tries.push("FORWARD ALL".into());
            tries.push(format!("FORWARD {}", rng.roll(6)));
            tries.push(format!("WHEEL LEFT {}", rng.roll(4) * 10));
            for steps in tries {
                let text = format!("{}\nREGIMENT {reg}: {steps}\n", rest.join("\n"));
                if Family::check(r, st, &o.side, &text).is_ok() {
                    o.text = text;
                    return true;
                }
            }
        }
    }
    false
}

/// Seven Years' War, every other game: a hill across the middle of the
/// table designated to impede moves and enhance charges ("Hills may
/// impede or enhance movement or charges as designated"), so the random
/// games move, charge and fire on and over a hill.
fn designated_hill(st: &mut SywState) {
    let (w, d) = (st.width, st.depth);
    let p = |x: i64, y: i64| geometry::Pt::new(x, y);
    let points = vec![
        p(w / 4, d * 3 / 8),
        p(w * 3 / 4, d * 3 / 8),
        p(w * 3 / 4, d * 5 / 8),
        p(w / 4, d * 5 / 8),
        p(w / 4, d * 3 / 8),
    ];
    st.terrain.push(state::Feature {
        kind: "hill".into(),
        name: "Test hill".into(),
        points,
        level: 1,
        capacity: 0,
        damage: 0,
        shell: 0,
        burning: None,
        flow: None,
        move_dice: -1,
        charge_dice: 1,
    });
}

/// Now and then a line's refused wing (Seven Years' War `REFUSE`, within
/// the limits or beyond them, an incorrect formation) or, for a line
/// already refused, fire by section, in place of that unit's own line, if
/// the judge accepts it.
fn add_refusal(r: &SywRuleset, st: &SywState, orders: &mut [Orders], rng: &mut ChaChaDice) {
    use adjutant::engine::dice::Dice;
    if r.syw.is_none() || rng.roll(3) != 1 {
        return;
    }
    for o in orders.iter_mut() {
        let Some(side) = st.side_index(&o.side) else {
            continue;
        };
        let enemies: Vec<&str> = st
            .units
            .iter()
            .filter(|u| u.side != side)
            .map(|u| u.id.as_str())
            .collect();
        for u in st.units.iter().filter(|u| u.side == side) {
            let rest: Vec<&str> = o
                .text
                .lines()
                .filter(|l| !l.starts_with(&format!("UNIT {}:", u.id)) && *l != "PASS")
                .collect();
            let mut tries: Vec<String> = Vec::new();
            if u.refused.is_empty() {
                tries.push(format!(
                    "REFUSE {} {} {} {}",
                    if rng.roll(2) == 1 { "LEFT" } else { "RIGHT" },
                    rng.roll(4),
                    if rng.roll(2) == 1 { "BACK" } else { "FORWARD" },
                    rng.roll(12) * 10
                ));
            } else {
                for e in &enemies {
                    for sec in ["LEFT", "RIGHT"] {
                        tries.push(format!("FIRE AT {e} WITH {sec} BONUS"));
                    }
                    tries.push(format!("FIRE AT {e}"));
                }
                tries.push("FORM LINE".into());
            }
            for steps in tries {
                let text = format!("{}\nUNIT {}: {steps}\n", rest.join("\n"), u.id);
                if Family::check(r, st, &o.side, &text).is_ok() {
                    o.text = text;
                    return;
                }
            }
        }
    }
}

/// Now and then a manufactured retreat (Seven Years' War `RETREAT`) for
/// the first unit of the side that may take one, added to the random
/// orders if the judge accepts it.
fn add_retreat(r: &SywRuleset, st: &SywState, orders: &mut [Orders], rng: &mut ChaChaDice) {
    use adjutant::engine::dice::Dice;
    if r.syw.is_none() || rng.roll(8) != 1 {
        return;
    }
    for o in orders.iter_mut() {
        let Some(side) = st.side_index(&o.side) else {
            continue;
        };
        for u in st.units.iter().filter(|u| u.side == side) {
            let text = format!("RETREAT {}\n{}", u.id, o.text);
            if Family::check(r, st, &o.side, &text).is_ok() {
                o.text = text;
                return;
            }
        }
    }
}

/// Whether two footprints overlap by more than the table's precision.
/// Positions are whole sixteenths of an inch, and a turned unit's corners
/// are rounded to them, so two units the engine set exactly in contact
/// may cross by a fraction of a sixteenth (Minden, seed 23: a line wheeled
/// up to another's rear corner, 0.33 of a sixteenth inside). Ground shared
/// by a whole sixteenth or more is an overlap: the separating-axis test
/// with every vertex allowed up to one sixteenth past the edge.
fn overlap_beyond_rounding(a: &[geometry::Pt], b: &[geometry::Pt]) -> bool {
    fn apart(a: &[geometry::Pt], b: &[geometry::Pt]) -> bool {
        let n = a.len();
        let o = geometry::Pt::new(0, 0);
        let area: i128 = (0..n)
            .map(|i| geometry::cross(o, a[i], a[(i + 1) % n]))
            .sum();
        let inside = if area >= 0 { 1 } else { -1 };
        (0..n).any(|i| {
            let (p, q) = (a[i], a[(i + 1) % n]);
            let len2 = i128::from(q.x - p.x).pow(2) + i128::from(q.y - p.y).pow(2);
            // cross = |pq| x distance inside: within one sixteenth when
            // cross <= 0 or cross^2 < |pq|^2.
            b.iter().all(|r| {
                let c = geometry::cross(p, q, *r) * inside;
                c <= 0 || c * c < len2
            })
        })
    }
    !apart(a, b) && !apart(b, a)
}

/// The invariants between two positions, or what broke.
fn invariants<B: TestBook>(
    r: &Ruleset<B>,
    before: &State<B>,
    after: &State<B>,
) -> Result<(), String> {
    for (i, a) in after.units.iter().enumerate() {
        let fa = state::footprint(r, a);
        for b in &after.units[i + 1..] {
            if overlap_beyond_rounding(&fa.corners(), &state::footprint(r, b).corners()) {
                return Err(format!(
                    "{} and {} overlap: {:?} {} {:?} and {:?} {} {:?}",
                    a.id,
                    b.id,
                    a.front,
                    a.facing,
                    fa.corners(),
                    b.front,
                    b.facing,
                    state::footprint(r, b).corners()
                ));
            }
        }
        // A unit may come on from off the table (Seven Years' War).
        let old = before
            .unit(&a.id)
            .or_else(|| B::held_off(before).into_iter().find(|x| x.id == a.id))
            .ok_or_else(|| format!("{} appeared from nowhere", a.id))?;
        if a.rf > old.rf {
            return Err(format!("{} gained men ({} -> {})", a.id, old.rf, a.rf));
        }
        if a.start_rf != old.start_rf {
            return Err(format!("{}'s starting strength changed", a.id));
        }
        // Officers only ever leave, except a General who attaches himself
        // to the unit he rallies (and leaves the table as a unit).
        let joined = a.officers.len() == old.officers.len() + 1
            && a.officers.last().is_some_and(|o| {
                before.units.iter().any(|g| {
                    o.rank.ends_with(&format!("({})", g.id)) && after.unit(&g.id).is_none()
                })
            });
        if a.officers.len() != old.officers.len() && !joined {
            return Err(format!("{}'s officers changed", a.id));
        }
        for (o, p) in a.officers.iter().zip(&old.officers) {
            if o.alive && !p.alive {
                return Err(format!("{}'s {} came back", a.id, o.rank));
            }
        }
        if a.guns.len() != old.guns.len() {
            return Err(format!("{}'s guns changed in number", a.id));
        }
        for (g, h) in a.guns.iter().zip(&old.guns) {
            if h.destroyed && !g.destroyed {
                return Err(format!("{}'s destroyed gun came back", a.id));
            }
        }
        if !after.on_table(&fa) {
            return Err(format!("{} is off the table", a.id));
        }
    }
    for (s, (x, y)) in after.removed.iter().zip(&before.removed).enumerate() {
        if x < y {
            return Err(format!("side {s}'s removals went down"));
        }
    }
    let men = |st: &State<B>| {
        st.units.iter().map(|u| u.rf).sum::<u32>()
            + B::held_off(st).iter().map(|x| x.rf).sum::<u32>()
    };
    if men(after) > men(before) {
        return Err("the table has more rank and file than before".into());
    }
    Ok(())
}

/// Counters by ruleset, by name.
type Stats = BTreeMap<String, BTreeMap<String, u64>>;

/// The measured hook of the random-game driver.
pub struct Measured {
    charge: Ruleset<Charge>,
    /// The Seven Years' War with fog-of-war events forced on: every
    /// player-turn's first die is read as a 1, so every player-turn rolls
    /// on its army's table (the trigger is data: every face triggers).
    syw: SywRuleset,
    stats: Mutex<Stats>,
}

impl Default for Measured {
    fn default() -> Self {
        let mut syw = adjutant::rules::syw::builtin().expect("ruleset");
        if let Some(t) = syw.book.syw.as_mut() {
            t.fog_trigger = (1..=6).collect();
        }
        Measured {
            charge: Ruleset::builtin("charge").expect("ruleset"),
            syw,
            stats: Mutex::new(BTreeMap::new()),
        }
    }
}

impl Measured {
    fn rules(&self, id: &str) -> Rules {
        if id == "charge" {
            Rules::new(self.charge.clone())
        } else {
            Rules::new(self.syw.clone())
        }
    }

    fn orders_in<B: TestBook>(
        &self,
        r: &Ruleset<B>,
        kind: &Kind,
        state: &adjutant::rules::State,
        rng: &mut ChaChaDice,
    ) -> Vec<Orders> {
        let st = measured::<B>(state);
        let mut orders = random::random_move(r, st, rng);
        if B::add_orders(r, st, &mut orders, rng) {
            self.count(
                &kind.ruleset,
                &BTreeMap::from([("regimental_move".to_string(), 1)]),
            );
        }
        orders
    }

    fn count(&self, ruleset: &str, local: &BTreeMap<String, u64>) {
        let mut all = self.stats.lock().expect("stats");
        let mine = all.entry(ruleset.to_string()).or_default();
        for (k, n) in local {
            *mine.entry(k.clone()).or_default() += n;
        }
    }
}

fn measured<B: Book>(st: &adjutant::rules::State) -> &State<B> {
    st.get::<State<B>>().expect("a measured state")
}

impl Hook for Measured {
    /// Every shipped scenario: 30 games at the quick depth, 120 Charge! and
    /// 60 Seven Years' War games at the deep one: games `MEASURED_FROM` up
    /// to, not including, `MEASURED_GAMES` (one count for both books). The
    /// deep run starts where the quick one ended (`.ci/run` runs both, so
    /// no game is played twice); `MEASURED_FROM` (0 by default at the quick
    /// depth) says otherwise. Each scenario's games are played in runs of
    /// at most 10, each run a kind of its own (the driver plays each kind in
    /// a thread of its own: a Seven Years' War game takes about half a
    /// second).
    fn kinds(&self, entry: &FamilyEntry) -> Vec<Kind> {
        const RUN: u64 = 10;
        let mut out = Vec::new();
        let books = [("charge", 30, 120), ("seven-years-war", 30, 60)];
        // Each book is a family of its own: this hook plays the entry's.
        for (ruleset, quick, deep) in books.into_iter().filter(|b| entry.rulesets.contains(&b.0)) {
            let games = crate::common::depth::games("MEASURED_GAMES", quick, deep);
            let from = crate::common::depth::first("MEASURED_FROM", quick, games);
            for (sc, _) in (entry.scenarios)()
                .into_iter()
                .filter(|(_, rs)| rs == ruleset)
            {
                let mut first = from;
                while first < games {
                    let last = games.min(first + RUN);
                    out.push(Kind {
                        family: entry.name,
                        name: format!("{ruleset} {sc} (games {first}-{})", last - 1),
                        ruleset: ruleset.into(),
                        rules: self.rules(ruleset),
                        scenario: Scenario::shipped(&sc),
                        first,
                        games: last,
                        seed: Box::new(seed_of),
                        orders_label: "test/orders",
                        max_phases: MAX_MOVES,
                        long: (0, 0),
                        streams: Streams::Own {
                            dice: "move",
                            fresh_deck: true,
                        },
                        check_orders: true,
                        through_store: false,
                        replay_events: true,
                    });
                    first = last;
                }
            }
        }
        out
    }

    fn setup(&self, kind: &Kind, seed: &Seed, deck: &mut ChaChaDice) -> adjutant::rules::State {
        let sc = &kind.scenario.id;
        if kind.ruleset == "charge" {
            adjutant::rules::State::of(setup(&self.charge, sc, seed, deck))
        } else {
            adjutant::rules::State::of(setup(&self.syw, sc, seed, deck))
        }
    }

    /// The engine's random move, with now and then a regimental move, a
    /// refused wing or a manufactured retreat (Seven Years' War).
    fn orders(
        &self,
        kind: &Kind,
        state: &adjutant::rules::State,
        _sides: &[String],
        rng: &mut ChaChaDice,
    ) -> Option<Vec<Orders>> {
        Some(if kind.ruleset == "charge" {
            self.orders_in(&self.charge, kind, state, rng)
        } else {
            self.orders_in(&self.syw, kind, state, rng)
        })
    }

    fn watch(
        &self,
        kind: &Kind,
        _seed: &Seed,
        _start: &adjutant::rules::State,
    ) -> Box<dyn Watch + '_> {
        if kind.ruleset == "charge" {
            Box::new(Game {
                hook: self,
                r: &self.charge,
                stats: BTreeMap::new(),
            })
        } else {
            Box::new(Game {
                hook: self,
                r: &self.syw,
                stats: BTreeMap::new(),
            })
        }
    }

    fn same(&self, kind: &Kind, a: &adjutant::rules::State, b: &adjutant::rules::State) -> bool {
        if kind.ruleset == "charge" {
            measured::<Charge>(a) == measured::<Charge>(b)
        } else {
            measured::<SevenYearsWar>(a) == measured::<SevenYearsWar>(b)
        }
    }

    fn at_end(&self, _kinds: &[Kind]) {
        let all = self.stats.lock().expect("stats");
        for (ruleset, stats) in all.iter() {
            eprintln!("{ruleset}: {stats:?}");
        }
        for (ruleset, stats) in all.iter() {
            assert!(
                stats.get("removed").copied().unwrap_or(0) > 0,
                "{ruleset}: no figure was ever removed: the random orders never fight"
            );
            // Fuentes de Oñoro 1811 brings the General's rally, houses
            // under fire and wagons into the random games.
            let needed: &[&str] = if ruleset == "charge" {
                &["general_rally", "house_fire", "house_leave", "house_spread"]
            } else {
                &[
                    "fog_event",
                    "response_fire",
                    "test",
                    "moved",
                    "enters",
                    "manufactured_retreat",
                    "hill_going",
                    "regimental_move",
                    "regiment_support",
                    "refused_wing",
                    "incorrect_formation",
                ]
            };
            for k in needed {
                assert!(
                    stats.get(*k).copied().unwrap_or(0) > 0,
                    "{ruleset}: no '{k}' event in any game: {stats:?}"
                );
            }
        }
    }
}

/// One game's invariants and counters.
struct Game<'a, B: Book> {
    hook: &'a Measured,
    r: &'a Ruleset<B>,
    stats: BTreeMap<String, u64>,
}

impl<B: TestBook> Watch for Game<'_, B> {
    fn after_phase(
        &mut self,
        phase: &Phase,
        before: &adjutant::rules::State,
        after: &adjutant::rules::State,
        ev: &[Value],
    ) {
        let (st, next) = (measured::<B>(before), measured::<B>(after));
        let at = phase.at();
        if let Err(e) = invariants(self.r, st, next) {
            let texts: Vec<String> = phase
                .orders
                .iter()
                .map(|o| format!("[{}]\n{}", o.side, o.text))
                .collect();
            let evs: Vec<String> = ev.iter().map(Value::to_string).collect();
            panic!(
                "{at}: {e}\norders:\n{}\nevents:\n{}",
                texts.join(""),
                evs.join("\n")
            );
        }
        // The report renders for everyone without panicking: at the deep
        // depth for the referee and both sides every phase; at the quick
        // one for each in turn (the text map was a third of these games).
        let viewers = [
            Viewer::Referee,
            Viewer::Side(st.sides[0].clone()),
            Viewer::Side(st.sides[1].clone()),
        ];
        let deep = crate::common::depth::deep();
        for (i, v) in viewers.into_iter().enumerate() {
            if !deep && i as u32 != phase.turn % 3 {
                continue;
            }
            let typed: Vec<adjutant::rules::Event> = ev
                .iter()
                .cloned()
                .map(|e| phase.kind.rules.event_from_store(e))
                .collect();
            let p = phase.kind.rules.report_parts(after, &typed, &v, None);
            assert!(p.svg.contains("<svg"), "{at}: no SVG");
        }
        count_events(&mut self.stats, ev);
    }

    fn after_game(&mut self, kind: &Kind, last: &adjutant::rules::State) {
        let st = measured::<B>(last);
        let stats = &mut self.stats;
        *stats.entry("games".into()).or_default() += 1;
        if st.over {
            *stats.entry("finished".into()).or_default() += 1;
        }
        *stats.entry("removed".into()).or_default() += u64::from(st.removed.iter().sum::<u32>());
        self.hook.count(&kind.ruleset, stats);
    }
}

/// A move's events in the counters.
fn count_events(stats: &mut BTreeMap<String, u64>, ev: &[Value]) {
    *stats.entry("moves".into()).or_default() += 1;
    *stats.entry("events".into()).or_default() += ev.len() as u64;
    for e in ev {
        if let Some(k) = e.get("kind").and_then(Value::as_str) {
            *stats.entry(k.to_string()).or_default() += 1;
        }
        // Several attackers on one defender, hills' going.
        if e.get("attackers")
            .and_then(Value::as_array)
            .is_some_and(|a| a.len() > 1)
        {
            *stats.entry("several_attackers".into()).or_default() += 1;
        }
        let text = e.get("text").and_then(Value::as_str).unwrap_or("");
        if text.contains("Test hill impedes") || text.contains("Test hill enhances") {
            *stats.entry("hill_going".into()).or_default() += 1;
        }
        // Refused wings, incorrect formations, fire by section.
        for (k, needle) in [
            ("refused_wing", "refuses its"),
            ("incorrect_formation", "incorrect formation"),
            ("section_fire", " section) fires at"),
        ] {
            if text.contains(needle) {
                *stats.entry(k.into()).or_default() += 1;
            }
        }
    }
}
