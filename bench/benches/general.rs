//! Criterion benchmark of the judge's general (docs/general.md, issue 58
//! acceptance 2): one decision at the opening of every shipped scenario,
//! for the first side to move (after any phase the judge plays alone),
//! with the ruleset's settings. The mark is a second.

use adjutant::engine::dice::Seed;
use adjutant::general::{decide, Settings};
use adjutant::rules::{all_scenarios, Load, Rules, Scenario};
use adjutant::service::{adjudicate_turn, setup_state};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

fn general_decides_a_turn(c: &mut Criterion) {
    let seed: Seed = [58; 32];
    let mut group = c.benchmark_group("general_decision");
    group.sample_size(10);
    for scenario in all_scenarios() {
        let rules = Rules::for_scenario(&scenario).expect("rules");
        let mut state = setup_state(&rules, &Scenario::shipped(&scenario), &seed).expect("setup");
        // A phase the judge plays alone (Maleme's airdrop) comes before the
        // first side's decision: played as the service plays it.
        let mut turn = 0;
        while rules.phase(&state).sides.is_empty() && rules.result(&state).is_none() && turn < 4 {
            turn += 1;
            let adj = adjudicate_turn(&rules, &state, &seed, turn, &[]).expect("judge's phase");
            state = rules.numbered(adj.state, turn);
        }
        let Some(side) = rules.phase(&state).sides.first().cloned() else {
            continue;
        };
        let settings = Settings::for_rules(&rules);
        group.bench_function(scenario.as_str(), |b| {
            b.iter(|| black_box(decide(&rules, &state, &side, &seed, turn, settings)));
        });
    }
    group.finish();
}

criterion_group!(benches, general_decides_a_turn);
criterion_main!(benches);
