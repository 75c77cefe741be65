//! Criterion benchmarks: one adjudicated turn, and a whole random game.

use adjutant::engine::dice::{deck_seed, turn_seed, ChaChaDice};
use adjutant::rules::memoir44::{self, Ruleset};
use adjutant::rules::Chance;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

fn adjudicate_turn(c: &mut Criterion) {
    let r = Ruleset::builtin().expect("ruleset");
    let seed = [7u8; 32];
    let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
    let st = memoir44::setup(&r, "pegasus-bridge", &mut deck).expect("setup");
    let mut rng = ChaChaDice::from_seed([3; 32]);
    let orders = memoir44::random_orders(&r, &st, "allies", &mut rng);
    c.bench_function("adjudicate_turn", |b| {
        b.iter(|| {
            let mut dice = ChaChaDice::stream(&turn_seed(&seed, 1), "battle");
            let mut deck = ChaChaDice::from_seed([1; 32]);
            let mut chance = Chance {
                dice: &mut dice,
                deck: &mut deck,
            };
            black_box(memoir44::adjudicate(&r, &st, "allies", &orders, &mut chance).is_ok())
        });
    });
}

fn random_game(c: &mut Criterion) {
    let r = Ruleset::builtin().expect("ruleset");
    let mut n = 0u8;
    c.bench_function("random_game", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let seed = [n; 32];
            let mut deck = ChaChaDice::from_seed(deck_seed(&seed));
            let mut rng = ChaChaDice::from_seed([n ^ 0x55; 32]);
            let mut st = memoir44::setup(&r, "pegasus-bridge", &mut deck).expect("setup");
            for t in 1..=400 {
                let Some(side) = memoir44::waiting(&st).sides.first().cloned() else {
                    break;
                };
                let orders = memoir44::random_orders(&r, &st, &side, &mut rng);
                let mut dice = ChaChaDice::stream(&turn_seed(&seed, t), "battle");
                let mut chance = Chance {
                    dice: &mut dice,
                    deck: &mut deck,
                };
                match memoir44::adjudicate(&r, &st, &side, &orders, &mut chance) {
                    Ok((next, _)) => st = next,
                    Err(_) => break,
                }
            }
            black_box(st.turn)
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = adjudicate_turn, random_game
}
criterion_main!(benches);
