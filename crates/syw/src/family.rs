//! How the Seven Years' War joins the judge: its family entry (ruleset
//! ids `seven-years-war*`), its ruleset files and its rules cases.

use crate::{builtin, case, from_toml, SevenYearsWar};
use adjutant_rules::{DataError, FamilyEntry, Rules};

/// How the Seven Years' War joins the judge.
pub const ENTRY: FamilyEntry = FamilyEntry {
    name: "syw",
    rulesets: &["seven-years-war"],
    owns: owns_ruleset,
    load: load_ruleset,
    scenarios: crate::shipped_scenarios::<SevenYearsWar>,
    run_case,
    options: &[],
};

fn owns_ruleset(id: &str) -> bool {
    id == "seven-years-war"
        || id
            .strip_prefix("seven-years-war")
            .is_some_and(|rest| rest.starts_with('-'))
}

fn load_ruleset(id: &str, text: Option<(&str, &str)>) -> Result<Rules, DataError> {
    Ok(match text {
        Some((text, file)) => Rules::new(from_toml(text, file)?),
        None if id == "seven-years-war" => Rules::new(builtin()?),
        None => return Err(DataError::UnknownRuleset(id.to_string())),
    })
}

/// A rules case, run by the Seven Years' War.
fn run_case(text: &str, file: &str) -> adjutant_rules::CaseResult {
    case::run_case_as(text, file, |id| match id {
        "seven-years-war" => builtin(),
        other => Err(DataError::UnknownRuleset(other.to_string())),
    })
}
