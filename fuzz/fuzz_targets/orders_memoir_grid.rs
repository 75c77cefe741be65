//! Orders in the memoir_grid family's language, as a player would mail them,
//! checked and adjudicated against the opening of le-cateau-1914.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

use adjutant_fuzz::orders_common;

fuzz_target!(|data: &[u8]| {
    static GAME: OnceLock<(adjutant::rules::Rules, adjutant::rules::State)> = OnceLock::new();
    orders_common::run(GAME.get_or_init(|| orders_common::opening("le-cateau-1914")), data);
});
