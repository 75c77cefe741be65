//! Raw mail bytes -> Envelope: never panics, and the text it hands the order
//! parser is normalised (no CR, no trailing whitespace, no invisible
//! characters, no blank lines at either end).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let env = adjutant::mail::parse::parse(data);
    assert_eq!(env.size, data.len());
    let text = &env.text;
    assert!(!text.contains('\r'), "CR in text");
    assert!(!text.contains('\u{a0}') && !text.contains('\u{200b}') && !text.contains('\u{feff}'));
    assert_eq!(text.trim_matches('\n'), text.as_str(), "blank line at an edge");
    for line in text.split('\n') {
        assert_eq!(line.trim_end(), line, "trailing whitespace");
        assert!(!line.trim_start().starts_with('>'), "quoted line kept");
    }
    assert!(!text.contains("\n\n\n"), "blank run not collapsed");
    if let Some(from) = &env.from {
        assert_eq!(from, &from.to_lowercase());
    }
});
