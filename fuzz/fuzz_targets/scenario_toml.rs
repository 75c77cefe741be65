//! A club's scenario file (TOML): read, then set up under its ruleset.
//! Errors carry a line and column; nothing may panic.
#![no_main]

use adjutant::rules::Load;
use adjutant::engine::dice::ChaChaDice;
use adjutant::rules::{Rules, Scenario};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok((scenario, ruleset)) = Scenario::from_text(text, "fuzz.toml") else { return };
    let Ok(rules) = Rules::load(&ruleset) else { return };
    if let Ok(state) = rules.setup(&scenario, &mut ChaChaDice::from_seed([1; 32])) {
        let _ = rules.render_text(&state, &adjutant::rules::Viewer::Referee);
        let _ = rules.phase(&state);
    }
});
