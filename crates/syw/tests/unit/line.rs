//! Unit tests of `src/syw/line.rs` (moved out of the crate so that the
//! library compiles once: docs/testing.md).

use adjutant_syw::line::*;

#[test]
fn refusals_parse_and_bad_ones_say_why() {
    let x = parse(&["LEFT", "3", "BACK", "90"]).unwrap();
    assert_eq!((x.end.as_str(), x.files, x.angle), ("left", 3, -90));
    assert_eq!(canonical(&x), "LEFT 3 BACK 90");
    let x = parse(&["right", "2", "forward", "45"]).unwrap();
    assert_eq!(x.angle, 45);
    assert!(parse(&["LEFT", "3", "BACK"]).is_err());
    assert!(parse(&["UP", "3", "BACK", "90"]).is_err());
    assert!(parse(&["LEFT", "0", "BACK", "90"]).is_err());
    assert!(parse(&["LEFT", "3", "BACK", "181"]).is_err());
    assert!(parse(&["LEFT", "99999999999999999999", "BACK", "9"]).is_err());
}
