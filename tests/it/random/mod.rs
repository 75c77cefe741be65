//! The random-game driver: one loop for every rules family (issue 29,
//! docs/architecture.md "The random-game driver").
//!
//! For every family in `rules::families()`, every kind of game its hook
//! names (by default: every shipped scenario, alone and with each option set
//! of the family's entry), N seeded games: set up; each phase, the sides the
//! phase needs, random orders (`Rules::random_orders`, or the family's own
//! generator), optionally checked as the service checks a mail, adjudicated
//! through `Rules::adjudicate`; then the checks every family keeps:
//! - nothing panics (a panic names the family, the kind, the game and its
//!   seed);
//! - every die rolled is in the events and replays from the phase's dice
//!   stream (`service::export::check_dice`, the check a player runs with the
//!   revealed turn seed), where the phase's dice are the "battle" stream;
//! - the game replayed from its submissions reaches the same state (and,
//!   where the kind asks, the same events at every phase);
//! - where the kind asks, each phase starts from the state's store form,
//!   which gives the same JSON again;
//!
//! and then the family's own invariants: its [`Hook`] (a table keyed by
//! `FamilyEntry::name`, [`hook`]), which sees the phase's state before and
//! after (downcast with `State::get`) and its events, keeps its counters,
//! and fails the run at the end when a rule never happened. A family with no
//! hook gets [`NoHook`]: the shipped scenarios with the service's own dice
//! and set-up, the generic checks only. Adding a family to `families()` is
//! the only change this driver needs.
//!
//! Depth (`common::depth`): each hook sets its count per kind of game and
//! the variable that overrides it (`M44_GAMES`, `GRID_GAMES`,
//! `MEASURED_GAMES`; a family without a hook: `RANDOM_GAMES`, 6 quick, 40
//! deep). `RANDOM_FAMILY=<name>` plays one family only (to replay a
//! failure).

mod grid;
mod measured;
mod memoir44;

use crate::common::depth;
use adjutant::engine::dice::{deck_seed, derive, turn_seed, ChaChaDice, Seed};
use adjutant::rules::{families, Chance, FamilyEntry, Load, Orders, Rules, Scenario, State};
use serde_json::Value;

/// The one place the driver reads an event of an adjudication: as the
/// JSON object the store keeps (every hook reads events through this).
fn event_json(e: adjutant::rules::Event) -> Value {
    e.to_store()
}

/// Where a game's dice and deck come from.
pub enum Streams {
    /// The service's own (`service::streams`, `service::setup_state`).
    Service,
    /// A test's own, kept so that games found before replay the same: the
    /// phase's dice are the named stream of `turn_seed(seed, phase)`; the
    /// deck is `deck_seed(seed)`, kept through the game, or drawn afresh at
    /// each phase (`fresh_deck`).
    Own {
        dice: &'static str,
        fresh_deck: bool,
    },
}

/// One kind of game a family plays: N seeded games of one scenario of one
/// ruleset, with options.
pub struct Kind {
    /// The family's name (`FamilyEntry::name`).
    pub family: &'static str,
    /// How messages name it.
    pub name: String,
    pub ruleset: String,
    pub rules: Rules,
    pub scenario: Scenario,
    /// Games `first..games` are played.
    pub first: u64,
    pub games: u64,
    /// The master seed of game `n`.
    pub seed: Box<dyn Fn(u64) -> Seed + Send + Sync>,
    /// The label of the orders' random stream, derived from the seed.
    pub orders_label: &'static str,
    /// The most phases a game plays, unless `long` says more.
    pub max_phases: u32,
    /// Every `long.0`-th game (games 0, `long.0`, 2 x `long.0`...) may play
    /// up to `long.1` phases instead; `(0, 0)`: none. Random orders stall
    /// some games: the long ones keep a long game's rules tried without
    /// every stalled game costing the longest length.
    pub long: (u64, u32),
    pub streams: Streams,
    /// Whether each side's orders pass `Rules::check` before adjudication
    /// (a family whose adjudication runs the same check may skip it).
    pub check_orders: bool,
    /// Whether each phase starts from the state's store form, as the
    /// service does (`restore(to_json(s))`, which must give the same JSON).
    pub through_store: bool,
    /// Whether the replay must give the same events at every phase too
    /// (else the same last state only).
    pub replay_events: bool,
}

/// What one phase was, for a hook's messages and checks.
pub struct Phase<'a> {
    pub kind: &'a Kind,
    /// The game's number.
    pub game: u64,
    /// The phase, counted from 1.
    pub turn: u32,
    pub orders: &'a [Orders],
}

impl Phase<'_> {
    /// "<kind> game N phase T", for messages.
    pub fn at(&self) -> String {
        format!("{} game {} phase {}", self.kind.name, self.game, self.turn)
    }
}

/// How a kind of game went, over all its games.
#[derive(Debug, Default)]
pub struct Summary {
    pub games: u64,
    /// Games with a result (won, lost or drawn) and, of those, draws.
    pub finished: u64,
    pub draws: u64,
    pub phases: u64,
}

/// A family's invariants over one game (from [`Hook::watch`]).
pub trait Watch {
    /// After each phase: the state before and after it, and its events.
    fn after_phase(&mut self, phase: &Phase, before: &State, after: &State, events: &[Value]);
    /// After the last phase.
    fn after_game(&mut self, _kind: &Kind, _last: &State) {}
}

/// A family's part of the driver. Every method has a default, so a family
/// needs no hook; counters a hook keeps must be thread-safe (the kinds of
/// game are played in parallel threads).
pub trait Hook: Sync {
    /// The kinds of game to play: by default every shipped scenario of the
    /// family, alone and with each of its entry's option sets.
    fn kinds(&self, entry: &FamilyEntry) -> Vec<Kind> {
        default_kinds(entry)
    }
    /// Game `n`'s opening state (also the replay's), from `deck`.
    fn setup(&self, kind: &Kind, seed: &Seed, deck: &mut ChaChaDice) -> State {
        match kind.streams {
            Streams::Service => adjutant::service::setup_state(&kind.rules, &kind.scenario, seed)
                .unwrap_or_else(|e| panic!("{}: set-up: {e}", kind.name)),
            Streams::Own { .. } => kind
                .rules
                .setup(&kind.scenario, deck)
                .unwrap_or_else(|e| panic!("{}: set-up: {e}", kind.name)),
        }
    }
    /// The orders of the phase's `sides`; `None` ends the game.
    fn orders(
        &self,
        kind: &Kind,
        state: &State,
        sides: &[String],
        rng: &mut ChaChaDice,
    ) -> Option<Vec<Orders>> {
        sides
            .iter()
            .map(|side| {
                let text = default_orders(&kind.rules, state, side, rng)?;
                Some(Orders {
                    side: side.clone(),
                    text,
                })
            })
            .collect()
    }
    /// The invariants of one game, watching from its opening state.
    fn watch(&self, _kind: &Kind, _seed: &Seed, _start: &State) -> Box<dyn Watch + '_> {
        Box::new(NoWatch)
    }
    /// Whether two states are the same (the replay's check): by default
    /// their store form, byte for byte; a family may compare its own type.
    fn same(&self, kind: &Kind, a: &State, b: &State) -> bool {
        kind.rules.to_json(a) == kind.rules.to_json(b)
    }
    /// After every game of a kind.
    fn kind_done(&self, _kind: &Kind, _summary: &Summary) {}
    /// After every kind: the counters of rules that must have happened.
    fn at_end(&self, _kinds: &[Kind]) {}
}

/// A side's random orders that `check` accepts (a few tries), else its pass
/// orders; `None` (the game stops, as the judge would wait) if it has
/// neither.
fn default_orders(
    rules: &Rules,
    state: &State,
    side: &str,
    rng: &mut ChaChaDice,
) -> Option<String> {
    for _ in 0..20 {
        let text = rules.random_orders(state, side, rng)?;
        if rules.check(state, side, &text).is_ok() {
            return Some(text);
        }
    }
    rules.pass_orders(state, side)
}

/// A family without invariants of its own.
pub struct NoHook;
impl Hook for NoHook {}

struct NoWatch;
impl Watch for NoWatch {
    fn after_phase(&mut self, _: &Phase, _: &State, _: &State, _: &[Value]) {}
}

/// The hook of a family, by `FamilyEntry::name`.
fn hook(family: &str) -> Box<dyn Hook> {
    match family {
        "memoir44" => Box::new(memoir44::Memoir44::default()),
        "memoir_grid" => Box::new(grid::Grid::default()),
        "measured" | "syw" => Box::new(measured::Measured::default()),
        _ => Box::new(NoHook),
    }
}

/// Every shipped scenario of `entry`, alone and with each option set it
/// accepts, with the service's dice and set-up.
pub fn default_kinds(entry: &FamilyEntry) -> Vec<Kind> {
    let mut out = Vec::new();
    for (scenario, ruleset) in (entry.scenarios)() {
        let sets = std::iter::once(&[][..]).chain(entry.options.iter().copied());
        for set in sets {
            let mut sc = Scenario::shipped(&scenario);
            sc.options = set
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let rules = Rules::load(&ruleset).expect("a shipped ruleset loads");
            // A family may refuse an option set for a scenario (the
            // conformance test says which); a plain scenario must set up.
            if !set.is_empty() && adjutant::service::setup_state(&rules, &sc, &[0; 32]).is_err() {
                continue;
            }
            let opts: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let name = format!("{ruleset} {scenario} [{}]", opts.join(" "));
            let label = name.clone();
            out.push(Kind {
                family: entry.name,
                rules,
                ruleset: ruleset.clone(),
                scenario: sc,
                first: 0,
                games: depth::games("RANDOM_GAMES", 6, 40),
                seed: Box::new(move |n| {
                    derive("adjutant/random", &[label.as_bytes(), &n.to_le_bytes()])
                }),
                name,
                orders_label: "adjutant/random-orders",
                max_phases: 400,
                long: (0, 0),
                streams: Streams::Service,
                check_orders: true,
                through_store: true,
                replay_events: true,
            });
        }
    }
    out
}

/// The dice and deck of phase `turn`; `deck` is the game's, kept or drawn
/// afresh as the kind says.
fn adjudicate(
    kind: &Kind,
    state: &State,
    seed: &Seed,
    turn: u32,
    orders: &[Orders],
    deck: &mut ChaChaDice,
) -> Result<(State, Vec<Value>), String> {
    let adj = match kind.streams {
        Streams::Service => {
            adjutant::service::adjudicate_turn(&kind.rules, state, seed, turn, orders)
        }
        Streams::Own { dice, fresh_deck } => {
            if fresh_deck {
                *deck = ChaChaDice::from_seed(deck_seed(seed));
            }
            let mut d = ChaChaDice::stream(&turn_seed(seed, turn), dice);
            let mut chance = Chance { dice: &mut d, deck };
            kind.rules.adjudicate(state, orders, &mut chance)
        }
    }
    .map_err(|e| format!("{e}"))?;
    let events = adj.events.into_iter().map(event_json).collect();
    Ok((adj.state, events))
}

/// The deck a game starts with.
fn first_deck(kind: &Kind, seed: &Seed) -> ChaChaDice {
    match kind.streams {
        Streams::Service => adjutant::service::streams(seed, 0).1,
        Streams::Own { .. } => ChaChaDice::from_seed(deck_seed(seed)),
    }
}

/// Whether the phase's dice are the stream `check_dice` replays.
fn dice_checked(kind: &Kind) -> bool {
    matches!(
        kind.streams,
        Streams::Service | Streams::Own { dice: "battle", .. }
    )
}

/// One game played: its last state and its submissions and events.
struct Played {
    last: State,
    phases: u32,
    submissions: Vec<Vec<Orders>>,
    events: Vec<Vec<Value>>,
}

/// Play game `n` of `kind`, with the generic checks and the hook's.
fn play(hook: &dyn Hook, kind: &Kind, faces: &[String], n: u64) -> Played {
    let seed = (kind.seed)(n);
    let mut deck = first_deck(kind, &seed);
    let mut rng = ChaChaDice::from_seed(derive(kind.orders_label, &[&seed]));
    let mut st = hook.setup(kind, &seed, &mut deck);
    let mut watch = hook.watch(kind, &seed, &st);
    let mut played = Played {
        last: State::of(()),
        phases: 0,
        submissions: Vec::new(),
        events: Vec::new(),
    };
    let cap = match kind.long {
        (every, phases) if every > 0 && n.is_multiple_of(every) => phases.max(kind.max_phases),
        _ => kind.max_phases,
    };
    for t in 1..=cap {
        if kind.rules.result(&st).is_some() {
            break;
        }
        let sides = kind.rules.phase(&st).sides;
        let Some(orders) = hook.orders(kind, &st, &sides, &mut rng) else {
            break;
        };
        let at = format!("{} game {n} phase {t}", kind.name);
        if kind.check_orders {
            for o in &orders {
                kind.rules.check(&st, &o.side, &o.text).unwrap_or_else(|e| {
                    panic!("{at}: {}'s orders refused: {e}\n{}", o.side, o.text)
                });
            }
        }
        let (next, events) = adjudicate(kind, &st, &seed, t, &orders, &mut deck)
            .unwrap_or_else(|e| panic!("{at}: random orders refused: {e}\n{orders:?}"));
        if dice_checked(kind) {
            if let Some(d) =
                adjutant::service::export::check_dice(faces, &turn_seed(&seed, t), t, &events)
            {
                panic!("{at}: {d}");
            }
        }
        let phase = Phase {
            kind,
            game: n,
            turn: t,
            orders: &orders,
        };
        watch.after_phase(&phase, &st, &next, &events);
        st = if kind.through_store {
            stored(kind, next, &at)
        } else {
            next
        };
        played.submissions.push(orders);
        if kind.replay_events {
            played.events.push(events);
        }
        played.phases = t;
    }
    watch.after_game(kind, &st);
    played.last = st;
    played
}

/// The state again from its store form, which must give the same JSON.
fn stored(kind: &Kind, state: State, at: &str) -> State {
    let json = kind.rules.to_json(&state);
    let back = kind
        .rules
        .restore(&json)
        .unwrap_or_else(|e| panic!("{at}: the state's JSON does not restore: {e}"));
    assert_eq!(kind.rules.to_json(&back), json, "{at}: JSON round trip");
    back
}

/// The game again from its set-up and submissions: the same last state
/// and, if the kind asks, the same events at every phase.
fn replay(hook: &dyn Hook, kind: &Kind, n: u64, played: &Played) {
    let seed = (kind.seed)(n);
    let mut deck = first_deck(kind, &seed);
    let mut st = hook.setup(kind, &seed, &mut deck);
    for (i, orders) in played.submissions.iter().enumerate() {
        let t = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let (next, events) = adjudicate(kind, &st, &seed, t, orders, &mut deck)
            .unwrap_or_else(|e| panic!("{} game {n}: replay, phase {t}: {e}", kind.name));
        assert!(
            !kind.replay_events || events == played.events[i],
            "{} game {n} phase {t}: replayed events differ",
            kind.name
        );
        st = next;
    }
    assert!(
        hook.same(kind, &st, &played.last),
        "{} game {n}: replay differs",
        kind.name
    );
}

/// Every game of one kind, each replayed.
fn run_kind(hook: &dyn Hook, kind: &Kind) {
    let faces = kind.rules.die_faces();
    let mut summary = Summary::default();
    for n in kind.first..kind.games {
        let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let p = play(hook, kind, &faces, n);
            replay(hook, kind, n, &p);
            p
        }))
        .unwrap_or_else(|e| {
            eprintln!(
                "{} ({}): game {n} (seed {}) broke an invariant",
                kind.name,
                kind.family,
                hex::encode((kind.seed)(n))
            );
            std::panic::resume_unwind(e)
        });
        summary.games += 1;
        summary.phases += u64::from(p.phases);
        if let Some(w) = kind.rules.result(&p.last) {
            summary.finished += 1;
            summary.draws += u64::from(w.is_empty());
        }
    }
    eprintln!(
        "{} ({}): {} games, {} finished ({} draws), {} phases",
        kind.name, kind.family, summary.games, summary.finished, summary.draws, summary.phases
    );
    hook.kind_done(kind, &summary);
}

/// Random games of every family: every kind of game its hook names, in
/// parallel threads, each game checked at every phase and replayed.
#[test]
fn every_family_keeps_its_invariants_in_random_games() {
    let only = std::env::var("RANDOM_FAMILY").ok();
    let entries: Vec<&FamilyEntry> = families()
        .iter()
        .filter(|f| only.as_deref().is_none_or(|o| o == f.name))
        .collect();
    assert!(!entries.is_empty(), "no family named {only:?}");
    let hooks: Vec<(Box<dyn Hook>, Vec<Kind>)> = entries
        .iter()
        .map(|f| {
            let h = hook(f.name);
            let kinds = h.kinds(f);
            assert!(!kinds.is_empty(), "{}: no kind of game to play", f.name);
            (h, kinds)
        })
        .collect();
    std::thread::scope(|scope| {
        for (h, kinds) in &hooks {
            for kind in kinds {
                let h: &dyn Hook = h.as_ref();
                scope.spawn(move || run_kind(h, kind));
            }
        }
    });
    for (h, kinds) in &hooks {
        h.at_end(kinds);
    }
}

/// The default hook, a family without one: every family's shipped
/// scenarios and option sets through the generic checks only (one short
/// game each, so that the path a new family takes stays tried).
#[test]
fn a_family_without_a_hook_gets_the_generic_checks() {
    let mut kinds: Vec<Kind> = families().iter().flat_map(default_kinds).collect();
    assert!(kinds.len() > families().len());
    for k in &mut kinds {
        k.games = 1;
        k.max_phases = 20;
    }
    std::thread::scope(|scope| {
        for kind in &kinds {
            scope.spawn(move || run_kind(&NoHook, kind));
        }
    });
}
