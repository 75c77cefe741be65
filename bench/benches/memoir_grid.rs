//! Criterion benchmarks for the grid family (Memoir of Battle, Memoir of
//! Modern Battle), beside benches/memoir44.rs: one simultaneous artillery
//! phase with both sides' orders, one move phase, a whole random game, and
//! a full report for one viewer. Each runs on the shipped scenario of each
//! ruleset (Le Cateau on squares, Villers-Bocage on hexes).

use adjutant::engine::dice::{deck_seed, turn_seed, ChaChaDice};
use adjutant::rules::memoir_grid::{random, state::Step, Ruleset, State};
use adjutant::rules::{Chance, Family, Scenario, Viewer};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

const GAMES: [(&str, &str); 2] = [
    ("memoir-of-battle", "le-cateau-1914"),
    ("memoir-of-modern-battle", "villers-bocage-1944"),
];

fn setup(r: &Ruleset, scenario: &str, seed: &[u8; 32]) -> State {
    let mut deck = ChaChaDice::from_seed(deck_seed(seed));
    Family::setup(r, &Scenario::shipped(scenario), &mut deck).expect("setup")
}

/// Play random phases until `want` says stop; the state there.
fn advance(r: &Ruleset, mut st: State, seed: &[u8; 32], want: impl Fn(&State) -> bool) -> State {
    let mut rng = ChaChaDice::from_seed([9; 32]);
    let mut deck = ChaChaDice::from_seed([1; 32]);
    for t in 1..200 {
        if want(&st) || st.over {
            break;
        }
        let orders = random::random_phase(r, &st, &mut rng);
        let mut dice = ChaChaDice::stream(&turn_seed(seed, t), "battle");
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        st = Family::adjudicate(r, &st, &orders, &mut chance)
            .expect("random orders are legal")
            .0;
    }
    st
}

fn phase_bench(c: &mut Criterion, name: &str, r: &Ruleset, st: &State, seed: &[u8; 32]) {
    let mut rng = ChaChaDice::from_seed([3; 32]);
    let orders = random::random_phase(r, st, &mut rng);
    c.bench_function(name, |b| {
        b.iter(|| {
            let mut dice = ChaChaDice::stream(&turn_seed(seed, 1), "battle");
            let mut deck = ChaChaDice::from_seed([1; 32]);
            let mut chance = Chance {
                dice: &mut dice,
                deck: &mut deck,
            };
            black_box(Family::adjudicate(r, st, &orders, &mut chance).is_ok())
        });
    });
}

fn phases(c: &mut Criterion) {
    let seed = [7u8; 32];
    for (ruleset, scenario) in GAMES {
        let r = Ruleset::builtin(ruleset).expect("ruleset");
        let st = setup(&r, scenario, &seed);
        // Turn 1 opens with the simultaneous artillery phase.
        phase_bench(c, &format!("{ruleset}/artillery_phase"), &r, &st, &seed);
        let moving = advance(&r, st, &seed, |s| matches!(s.step, Step::Move { .. }));
        phase_bench(c, &format!("{ruleset}/move_phase"), &r, &moving, &seed);
    }
}

fn random_game(c: &mut Criterion) {
    for (ruleset, scenario) in GAMES {
        let r = Ruleset::builtin(ruleset).expect("ruleset");
        let mut n = 0u8;
        c.bench_function(&format!("{ruleset}/random_game"), |b| {
            b.iter(|| {
                n = n.wrapping_add(1);
                let seed = [n; 32];
                let st = setup(&r, scenario, &seed);
                black_box(advance(&r, st, &seed, |_| false).turn)
            });
        });
    }
}

fn report(c: &mut Criterion) {
    let seed = [5u8; 32];
    for (ruleset, scenario) in GAMES {
        let r = Ruleset::builtin(ruleset).expect("ruleset");
        let st = setup(&r, scenario, &seed);
        let mut rng = ChaChaDice::from_seed([3; 32]);
        let orders = random::random_phase(&r, &st, &mut rng);
        let mut dice = ChaChaDice::stream(&turn_seed(&seed, 1), "battle");
        let mut deck = ChaChaDice::from_seed([1; 32]);
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let (next, events) = Family::adjudicate(&r, &st, &orders, &mut chance).expect("legal");
        let viewer = Viewer::Side(next.sides[0].clone());
        c.bench_function(&format!("{ruleset}/full_report"), |b| {
            b.iter(|| black_box(Family::report(&r, &next, &events, &viewer, None)));
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = phases, random_game, report
}
criterion_main!(benches);
