//! How Charge! joins the judge: its family entry (ruleset ids `charge*`),
//! its ruleset files and its rules cases.

use crate::charge::tables::ChargeRuleset;
use crate::charge::Ruleset;
use crate::{case, Charge};
use adjutant_rules::{DataError, FamilyEntry, Rules};

/// How Charge! joins the judge.
pub const ENTRY: FamilyEntry = FamilyEntry {
    name: "measured",
    rulesets: &["charge"],
    owns: owns_ruleset,
    load: load_ruleset,
    scenarios: crate::shipped_scenarios::<Charge>,
    run_case,
    options: &[],
};

fn owns_ruleset(id: &str) -> bool {
    id == "charge"
        || id
            .strip_prefix("charge")
            .is_some_and(|rest| rest.starts_with('-'))
}

fn load_ruleset(id: &str, text: Option<(&str, &str)>) -> Result<Rules, DataError> {
    Ok(match text {
        Some((text, file)) => Rules::new(Ruleset::from_toml(text, file)?),
        None => Rules::new(Ruleset::builtin(id)?),
    })
}

/// A rules case, run by Charge!.
fn run_case(text: &str, file: &str) -> adjutant_rules::CaseResult {
    case::run_case_as(text, file, Ruleset::builtin)
}
