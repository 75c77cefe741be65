//! The measured family's books as the judge sees them: one family entry
//! (ruleset ids `charge*` and `seven-years-war*`), each ruleset file and
//! case given to its book. The one place outside a book's folder that
//! names both.

use crate::charge::Ruleset;
use crate::{case, syw};
use adjutant_rules::{DataError, FamilyEntry, Rules};

/// How the measured family joins the judge.
pub const ENTRY: FamilyEntry = FamilyEntry {
    name: "measured",
    rulesets: &["charge", "seven-years-war"],
    owns: owns_ruleset,
    load: load_ruleset,
    scenarios: crate::shipped_scenarios,
    run_case,
    options: &[],
};

fn owns_ruleset(id: &str) -> bool {
    ["charge", "seven-years-war"].iter().any(|base| {
        id == *base
            || id
                .strip_prefix(base)
                .is_some_and(|rest| rest.starts_with('-'))
    })
}

fn load_ruleset(id: &str, text: Option<(&str, &str)>) -> Result<Rules, DataError> {
    Ok(match text {
        Some((text, file)) => match book_of(text, file)?.as_deref() {
            Some("seven-years-war") => Rules::new(syw::from_toml(text, file)?),
            _ => Rules::new(Ruleset::from_toml(text, file)?),
        },
        None if id == "seven-years-war" => Rules::new(syw::builtin()?),
        None => Rules::new(Ruleset::builtin(id)?),
    })
}

/// The book a ruleset file names (`procedures = "..."`; None: Charge!).
pub fn book_of(text: &str, file: &str) -> Result<Option<String>, DataError> {
    let probe: toml::Table =
        toml::from_str(text).map_err(|e| crate::ruleset::toml_error(text, file, &e))?;
    Ok(probe
        .get("procedures")
        .and_then(toml::Value::as_str)
        .map(str::to_string))
}

/// A rules case, run by its ruleset's book.
fn run_case(text: &str, file: &str) -> adjutant_rules::CaseResult {
    let id = toml::from_str::<toml::Table>(text).ok().and_then(|t| {
        t.get("ruleset")
            .and_then(|v| v.as_str().map(str::to_string))
    });
    match id.as_deref() {
        Some("seven-years-war") => case::run_case_as(text, file, |id| match id {
            "seven-years-war" => syw::builtin(),
            other => Err(DataError::UnknownRuleset(other.to_string())),
        }),
        _ => case::run_case_as(text, file, crate::charge::Ruleset::builtin),
    }
}
