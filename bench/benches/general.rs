//! Criterion benchmark of the judge's general (docs/general.md, issue 58
//! acceptance 2): for every shipped scenario, one decision at the opening,
//! for the first side to move (after any phase the judge plays alone),
//! and the slowest decision of two games the general plays against the
//! random-order player (`adjutant duel`'s first two games of seed 1, one
//! from each side): a mid-game position with the armies engaged, found by
//! timing every decision of those games once, then timed by criterion.
//! The ruleset's settings throughout. The mark is a second.

use adjutant::duel::{game_seed, play_watched, Opponent};
use adjutant::engine::dice::Seed;
use adjutant::general::{decide, Settings};
use adjutant::rules::{all_scenarios, Load, Rules, Scenario, State};
use adjutant::service::{adjudicate_turn, setup_state};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::{Duration, Instant};

/// The position of the two games' slowest decision: (master seed, judge's
/// phase count, side, state, the scan's time).
fn slowest_position(
    rules: &Rules,
    scenario: &Scenario,
    settings: Settings,
) -> Option<(Seed, u32, String, State, Duration)> {
    let sides = rules.sides(&setup_state(rules, scenario, &game_seed(1, 0)).ok()?);
    let mut slowest: Option<(Seed, u32, String, State, Duration)> = None;
    for (n, side) in sides.iter().enumerate().take(2) {
        let master = game_seed(1, u32::try_from(n).unwrap_or(0));
        let mut seen: Vec<(u32, State)> = Vec::new();
        play_watched(
            rules,
            scenario,
            &master,
            side,
            Opponent::Random,
            settings,
            &mut |turn, s| seen.push((turn, s.clone())),
        )
        .ok()?;
        for (turn, s) in seen {
            let started = Instant::now();
            black_box(decide(rules, &s, side, &master, turn, settings));
            let took = started.elapsed();
            if slowest.as_ref().is_none_or(|x| took > x.4) {
                slowest = Some((master, turn, side.clone(), s, took));
            }
        }
    }
    slowest
}

fn general_decides_a_turn(c: &mut Criterion) {
    let seed: Seed = [58; 32];
    let mut group = c.benchmark_group("general_decision");
    group.sample_size(10);
    for scenario in all_scenarios() {
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
        if let Some((master, turn, side, s, took)) = slowest_position(&rules, &source, settings) {
            eprintln!(
                "{scenario}: the slowest decision of the two games is the {side}'s at phase {} ({} ms in the scan)",
                turn + 1,
                took.as_millis()
            );
            group.bench_function(format!("{scenario}/slowest"), |b| {
                b.iter(|| black_box(decide(&rules, &s, &side, &master, turn, settings)));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, general_decides_a_turn);
criterion_main!(benches);
