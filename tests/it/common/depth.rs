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

/// Which window of the deep games a run plays (`ADJUTANT_DEEP_ROUND`, 0 if
/// unset): `.ci/run` takes it from the commit, so each commit's deep run
/// plays games the last commit's did not, and the same commit the same ones.
pub fn round() -> u64 {
    std::env::var("ADJUTANT_DEEP_ROUND")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The games a run plays: `0..quick` at the quick depth; at the deep depth
/// `span` games after the quick ones, the window `round()` of them (round
/// 0: `quick..quick + span`, round 1 the next `span`, ...). `games_var`
/// (the end) or `from_var` (the start) set say otherwise, as for `games`
/// and `first`, to replay a failure.
pub fn window(games_var: &str, from_var: &str, quick: u64, span: u64) -> std::ops::Range<u64> {
    let set = |v: &str| std::env::var(v).is_ok_and(|x| x.parse::<u64>().is_ok());
    if !deep() || set(games_var) || set(from_var) {
        let end = games(games_var, quick, quick + span);
        return first(from_var, quick, end)..end;
    }
    let from = quick + round() * span;
    from..from + span
}
