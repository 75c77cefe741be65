//! Orders in the Seven Years' War's language (a family of its own on the measured
//! core: brigades, FORWARD ALL, standing orders for interrupts, fog-of-war
//! choices), as a player would mail them, checked and adjudicated against the
//! opening of minden-1759.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

use adjutant_fuzz::orders_common;

fuzz_target!(|data: &[u8]| {
    static GAME: OnceLock<(adjutant::rules::Rules, adjutant::rules::State)> = OnceLock::new();
    orders_common::run(GAME.get_or_init(|| orders_common::opening("minden-1759")), data);
});
