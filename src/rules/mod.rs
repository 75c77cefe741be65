//! The rules families the judge knows, behind one interface.
//!
//! The interface (`adjutant-rules`: [`Family`], [`Rules`], [`State`],
//! [`Viewer`], ...) and each family (`adjutant-memoir44`,
//! `adjutant-memoir-grid`, `adjutant-measured` for Charge!, `adjutant-syw`
//! for the Seven Years' War, both on `adjutant-measured-core`) are crates
//! of their own; this
//! module is where they meet: the one list of families ([`families`]), and
//! what needs that list: loading a ruleset by id or from a club's file
//! ([`Load`]), the order words of every family, the case runner, the shipped
//! scenarios. Paths stay as they were before the split
//! (`adjutant::rules::memoir44::...`).

pub use adjutant_measured as measured;
pub use adjutant_memoir44 as memoir44;
pub use adjutant_memoir_grid as memoir_grid;
pub use adjutant_rules::*;
pub use adjutant_syw as syw;

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

/// Every rules family the judge knows.
#[must_use]
pub fn families() -> &'static [FamilyEntry] {
    static FAMILIES: &[FamilyEntry] = &[
        memoir44::ENTRY,
        memoir_grid::ENTRY,
        measured::ENTRY,
        syw::ENTRY,
    ];
    FAMILIES
}

fn family_of(id: &str) -> Option<&'static FamilyEntry> {
    families().iter().find(|f| (f.owns)(id))
}

/// What the family of `ruleset` counts its score in, as a heading: Memoir
/// '44's medals, the other families' victory points (units destroyed, or
/// rank and file or figures removed).
#[must_use]
pub fn score_word(ruleset: &str) -> &'static str {
    match family_of(ruleset) {
        Some(f) if f.name == memoir44::ENTRY.name => "Medals",
        _ => "Victory points",
    }
}

/// The ruleset ids we ship.
#[must_use]
pub fn rulesets() -> Vec<&'static str> {
    families()
        .iter()
        .flat_map(|f| f.rulesets.iter().copied())
        .collect()
}

/// The words an order line may start with, in any family (the mail protocol
/// uses them to tell orders from the chatter around them, before it knows
/// the game).
#[must_use]
pub fn order_words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut w: Vec<&'static str> = Vec::new();
        for f in families() {
            for id in f.rulesets {
                if let Ok(r) = Rules::load(id) {
                    w.extend(r.order_words());
                }
            }
        }
        w.sort_unstable();
        w.dedup();
        w
    })
}

/// Rulesets already parsed, by (id, SHA-256 of a variant's text).
type Cache = Mutex<BTreeMap<(String, String), Rules>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(BTreeMap::new()))
}

/// At most this many rulesets are kept parsed (variants are few; a bound
/// keeps a judge with many odd variants from growing without end).
const CACHE_MAX: usize = 64;

fn cached(
    key: (String, String),
    make: impl FnOnce() -> Result<Rules, DataError>,
) -> Result<Rules, DataError> {
    if let Some(r) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(r);
    }
    let r = make()?;
    if let Ok(mut c) = cache().lock() {
        if c.len() >= CACHE_MAX {
            c.clear();
        }
        c.insert(key, r.clone());
    }
    Ok(r)
}

/// What needs the list of families: a ruleset by id, from a club's file, of
/// a stored game or of a shipped scenario, and its family's name. (A trait
/// because [`Rules`] is the interface crate's type; `use
/// adjutant::rules::Load` to call `Rules::load`.)
pub trait Load: Sized {
    /// Load a shipped ruleset by id.
    fn load(id: &str) -> Result<Rules, DataError>;
    /// A ruleset from a file's text (a club's house-rule variant). Its `id`
    /// names the family it varies: a shipped id, or one followed by
    /// `-<anything>`.
    fn from_text(text: &str, file: &str) -> Result<Rules, DataError>;
    /// The ruleset of a stored game: its variant text if it has one.
    fn of_game(id: &str, text: Option<&str>) -> Result<Rules, DataError>;
    /// Which ruleset a shipped scenario id belongs to.
    fn for_scenario(scenario: &str) -> Result<Rules, DataError>;
    /// The name of the family this ruleset belongs to.
    fn family(&self) -> &'static str;
}

impl Load for Rules {
    fn load(id: &str) -> Result<Rules, DataError> {
        let f = family_of(id).ok_or_else(|| DataError::UnknownRuleset(id.to_string()))?;
        if !f.rulesets.contains(&id) {
            return Err(DataError::UnknownRuleset(id.to_string()));
        }
        cached((id.to_string(), String::new()), || (f.load)(id, None))
    }

    fn from_text(text: &str, file: &str) -> Result<Rules, DataError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let (line, column) = e.span().map_or((1, 1), |sp| line_col(text, sp.start));
            DataError::At {
                file: file.to_string(),
                line,
                column,
                message: e.message().to_string(),
            }
        })?;
        let id = table
            .get("id")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let Some(f) = family_of(&id) else {
            return Err(DataError::Invalid {
                file: file.to_string(),
                message: format!(
                    "the ruleset id '{id}' names no known family (it must be one of {} or start with one of them and a '-')",
                    rulesets().join(", ")
                ),
            });
        };
        let key = (id.clone(), adjutant_dice::sha256_hex(text.as_bytes()));
        cached(key, || (f.load)(&id, Some((text, file))))
    }

    fn of_game(id: &str, text: Option<&str>) -> Result<Rules, DataError> {
        match text {
            Some(t) => Rules::from_text(t, &format!("{id}.toml")),
            None => Rules::load(id),
        }
    }

    fn for_scenario(scenario: &str) -> Result<Rules, DataError> {
        for f in families() {
            if let Some((_, rs)) = (f.scenarios)().into_iter().find(|(s, _)| s == scenario) {
                return Rules::load(&rs);
            }
        }
        Err(DataError::UnknownScenario(
            scenario.to_string(),
            all_scenarios().join(", "),
        ))
    }

    fn family(&self) -> &'static str {
        family_of(self.id()).map_or("unknown", |f| f.name)
    }
}

/// Run a case file: its `ruleset` key chooses the family (default memoir44,
/// the format's first family, so the first cases stay valid as written).
#[must_use]
pub fn run_case_path(path: &std::path::Path) -> CaseResult {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => run_case_text(&text, &file),
        Err(e) => CaseResult {
            name: file.clone(),
            passed: false,
            detail: format!("{file}: cannot read: {e}"),
        },
    }
}

/// Run a case from its text.
#[must_use]
pub fn run_case_text(text: &str, file: &str) -> CaseResult {
    let ruleset = text
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| {
            t.get("ruleset")
                .and_then(|v| v.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| families()[0].rulesets[0].to_string());
    match family_of(&ruleset) {
        Some(f) => (f.run_case)(text, file),
        None => CaseResult {
            name: file.to_string(),
            passed: false,
            detail: format!(
                "{file}: unknown ruleset '{ruleset}' (known: {})",
                rulesets().join(", ")
            ),
        },
    }
}

/// Every shipped scenario id, of every family.
#[must_use]
pub fn all_scenarios() -> Vec<String> {
    families()
        .iter()
        .flat_map(|f| (f.scenarios)().into_iter().map(|(s, _)| s))
        .collect()
}
