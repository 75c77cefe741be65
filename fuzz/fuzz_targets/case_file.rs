//! A rules test vector (case file, TOML) of any family, as `check-case`
//! runs it from anywhere. A bad file fails with a message; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let r = adjutant::rules::run_case_text(text, "fuzz.toml");
    assert!(r.passed || !r.detail.is_empty());
});
