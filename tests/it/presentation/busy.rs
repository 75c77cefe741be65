//! The busy games the presentation tests read (tests/it/presentation.rs),
//! each played once a run and side by side.

use super::{busy_game, Busy};

/// The busy game of `scenario` (openly, or as a Kriegspiel game) from
/// `seed`, played once a test run, whichever test asks first: a game
/// [`busy_games`] plays (its seed the scenario's place in the list of
/// scenarios) with SVGs and its busy turn again with the shipped PNG
/// ([`busy_game`]'s "svg+png"), any other with SVGs alone ("svg"). A test
/// reading one of [`busy_games`]' (the arrowheads' Le Cateau of seed 8,
/// Pegasus Bridge of seed 0) no longer plays it again: its SVGs (`seen`)
/// are those of the game played with "svg" alone.
fn shared_busy(scenario: &str, kriegspiel: bool, seed: u64) -> Option<&'static Busy> {
    type Cell = &'static std::sync::OnceLock<Option<Busy>>;
    static PLAYED: std::sync::Mutex<std::collections::BTreeMap<(String, bool, u64), Cell>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    let cell: Cell = *PLAYED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry((scenario.to_string(), kriegspiel, seed))
        .or_insert_with(|| Box::leak(Box::default()));
    cell.get_or_init(|| {
        let place = adjutant::rules::all_scenarios()
            .iter()
            .position(|s| s == scenario);
        let picture = if place == usize::try_from(seed).ok() {
            "svg+png"
        } else {
            "svg"
        };
        busy_game(scenario, kriegspiel, seed, picture)
    })
    .as_ref()
}

/// The busy games of `wanted` (scenario, Kriegspiel, seed), in that order
/// (a Kriegspiel game the scenario cannot have left out), played side by
/// side on up to four threads: the tests that read them wait for them all,
/// and one thread playing them in turn left the other cores idle.
pub(super) fn shared_busy_all(wanted: &[(String, bool, u64)]) -> Vec<&'static Busy> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((scenario, kriegspiel, seed)) = wanted.get(i) else {
                    break;
                };
                shared_busy(scenario, *kriegspiel, *seed);
            });
        }
    });
    wanted
        .iter()
        .filter_map(|(scenario, kriegspiel, seed)| shared_busy(scenario, *kriegspiel, *seed))
        .collect()
}

/// Every shipped scenario, played once openly (each side and an observer)
/// and once as a Kriegspiel game where the family has one (each side, an
/// observer and the referee), to a busy turn, the scenario's place in the
/// list its seed. Played once for the tests below.
pub(super) fn busy_games() -> &'static [&'static Busy] {
    static GAMES: std::sync::OnceLock<Vec<&'static Busy>> = std::sync::OnceLock::new();
    GAMES.get_or_init(|| {
        let mut wanted = Vec::new();
        // `adjutant scenarios` lists these, in this order.
        for (i, scenario) in adjutant::rules::all_scenarios().into_iter().enumerate() {
            for kriegspiel in [false, true] {
                wanted.push((scenario.clone(), kriegspiel, i as u64));
            }
        }
        shared_busy_all(&wanted)
    })
}
