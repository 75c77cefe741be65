//! A club's ruleset variant (TOML) of any family: loaded, and if it loads,
//! a shipped scenario of its family set up under it. Nothing may panic.
#![no_main]

use adjutant::rules::Load;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::{Rules, Scenario};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(rules) = Rules::from_text(text, "fuzz.toml") else { return };
    let scenario = match rules.family() {
        "memoir_grid" => "le-cateau-1914",
        "measured" => "el-bodon-1811",
        "syw" => "minden-1759",
        _ => "pegasus-bridge",
    };
    if let Ok(state) = rules.setup(&Scenario::shipped(scenario), &mut ChaChaDice::from_seed([1; 32])) {
        let _ = rules.render_text(&state, &adjutant::rules::Viewer::Referee);
    }
});
