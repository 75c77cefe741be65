//! How deep the property tests go (docs/testing.md).
//!
//! The README's `cargo test` runs every property test at a quick depth that
//! still plays every ruleset, scenario and option and keeps every "this rule
//! happened at least once" counter; `ADJUTANT_DEEP=1` asks for the deep depth
//! (`.ci/run` does, in the same test build). A test's own variable (`M44_GAMES`,
//! `GRID_GAMES`, ...) still sets an exact count, to replay a failure.

/// True when the deep depth is asked for (`ADJUTANT_DEEP=1`).
pub fn deep() -> bool {
    std::env::var("ADJUTANT_DEEP").is_ok_and(|v| v == "1")
}

/// The number of random games: `var` if set, else `deep` under
/// `ADJUTANT_DEEP=1`, else `quick`.
pub fn games(var: &str, quick: u64, deep_count: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if deep() { deep_count } else { quick })
}

/// The first game a run plays, of `games`: `var` if set, else, at the deep
/// depth when it plays more than the quick one, where the quick run ended
/// (`.ci/run` runs both, so no game is played twice), else 0.
pub fn first(var: &str, quick: u64, games: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if deep() && games > quick { quick } else { 0 })
}
