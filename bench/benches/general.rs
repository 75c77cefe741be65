//! Criterion benchmark of the judge's general (docs/general.md, issue 58
//! acceptance 2): for every shipped scenario, one decision at the opening,
//! for the first side to move (after any phase the judge plays alone),
//! and the slowest decision of two games the general plays against the
//! random-order player (`adjutant duel`'s first two games of seed 1, one
//! from each side): a mid-game position with the armies engaged, found by
//! timing every decision of those games once, then timed by criterion on
//! the game played again to it (the games replay the same for a seed).
//! The ruleset's settings throughout. The mark is a second.

use adjutant::duel::{game_seed, play_watched, Opponent};
use adjutant::engine::dice::Seed;
use adjutant::general::{decide, Settings};
use adjutant::rules::{all_scenarios, Load, Rules, Scenario};
use adjutant::service::{adjudicate_turn, setup_state};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::{Duration, Instant};

/// The two games' slowest decision: (game, judge's phase count, side, the
/// scan's time), found by timing each decision of the games once.
fn slowest_decision(
    rules: &Rules,
    scenario: &Scenario,
    settings: Settings,
) -> Option<(u32, u32, String, Duration)> {
    let sides = rules.sides(&setup_state(rules, scenario, &game_seed(1, 0)).ok()?);
    let mut slowest: Option<(u32, u32, String, Duration)> = None;
    for (n, side) in (0u32..).zip(sides.iter().take(2)) {
        let master = game_seed(1, n);
        play_watched(
            rules,
            scenario,
            &master,
            side,
            Opponent::Random,
            settings,
            &mut |turn, s| {
                let started = Instant::now();
                black_box(decide(rules, s, side, &master, turn, settings));
                let took = started.elapsed();
                if slowest.as_ref().is_none_or(|x| took > x.3) {
                    slowest = Some((n, turn, side.clone(), took));
                }
            },
        )
        .ok()?;
    }
    slowest
}

fn general_decides_a_turn(c: &mut Criterion) {
    let seed: Seed = [58; 32];
    let mut group = c.benchmark_group("general_decision");
    group.sample_size(10);
    // Criterion's filter (`-- villers|fuentes`) also spares the games
    // played to find the slowest decision of the scenarios it leaves out.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-') && a.parse::<f64>().is_err())
        .flat_map(|a| a.split('|').map(str::to_string).collect::<Vec<_>>())
        .collect();
    for scenario in all_scenarios() {
        if !filter.is_empty() && !filter.iter().any(|f| scenario.contains(f.as_str())) {
            continue;
        }
        let rules = Rules::for_scenario(&scenario).expect("rules");
        let source = Scenario::shipped(&scenario);
        let mut state = setup_state(&rules, &source, &seed).expect("setup");
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
        group.bench_function(format!("{scenario}/opening"), |b| {
            b.iter(|| black_box(decide(&rules, &state, &side, &seed, turn, settings)));
        });
        let Some((n, at, side, took)) = slowest_decision(&rules, &source, settings) else {
            continue;
        };
        eprintln!(
            "{scenario}: the slowest decision of the two games is the {side}'s at phase {} of game {n} ({} ms in the scan)",
            at + 1,
            took.as_millis()
        );
        // The game again (the same seed, the same orders) to that position,
        // timed there.
        let master = game_seed(1, n);
        let _ = play_watched(
            &rules,
            &source,
            &master,
            &side,
            Opponent::Random,
            settings,
            &mut |turn, s| {
                if turn == at {
                    group.bench_function(format!("{scenario}/slowest"), |b| {
                        b.iter(|| black_box(decide(&rules, s, &side, &master, turn, settings)));
                    });
                }
            },
        );
    }
    group.finish();
}

criterion_group!(benches, general_decides_a_turn);
criterion_main!(benches);
