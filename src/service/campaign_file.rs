//! Campaign files (issue 33): a campaign written once in TOML and shared
//! between groups. The file names ROLES (`player-1`, `player-2`, or team
//! names), says which role plays which side in each battle (so each pair
//! can play both sides), the battles in order with their options, and
//! optional branches on a battle's winner. `campaign new --file` binds the
//! roles to addresses with `--player ROLE=EMAIL`. docs/campaigns.md
//! describes the format.
//!
//! [`check`] reads a file and reports its first mistake at its line and
//! column (a [`DataError::At`], as `check-scenario` does); what it gives
//! back, a [`Plan`], is what the campaign stores: enough to create each
//! next battle, branch included, when the one before it ends.

use crate::rules::{line_col, DataError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// A campaign file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<Spanned<String>>,
    #[serde(default)]
    description: Option<String>,
    roles: Spanned<Vec<Spanned<String>>>,
    /// true: every battle must have pre-battle rules; false: none are
    /// rolled; absent: rolled where the rulebook has them.
    pre_battle_dice: Option<Spanned<bool>>,
    /// Game options of every battle (a battle's own win over them).
    #[serde(default)]
    options: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(rename = "battle")]
    battles: Spanned<Vec<FileBattle>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBattle {
    id: Spanned<String>,
    scenario: Spanned<String>,
    /// side = role
    sides: Spanned<BTreeMap<Spanned<String>, Spanned<String>>>,
    #[serde(default)]
    options: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    next: Option<Spanned<String>>,
    #[serde(default)]
    next_if_won_by: BTreeMap<Spanned<String>, Spanned<String>>,
    last: Option<Spanned<bool>>,
}

/// A checked campaign file, as the campaign stores it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub roles: Vec<String>,
    /// None: pre-battle dice where the rulebook has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_battle_dice: Option<bool>,
    pub battles: Vec<PlanBattle>,
}

/// One battle of a [`Plan`].
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PlanBattle {
    pub id: String,
    /// A shipped scenario id, or a file's path resolved from the campaign
    /// file's folder.
    pub scenario: String,
    /// side -> role
    pub sides: BTreeMap<String, String>,
    /// The game options of this battle, the campaign's included.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
    /// The battle after it whoever wins (None: the next in the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// winner's side -> the battle after it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub next_if_won_by: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub last: bool,
}

impl Plan {
    fn index(&self, id: &str) -> Option<usize> {
        self.battles.iter().position(|b| b.id == id)
    }

    /// The battle after battle `i` (None: the campaign ends), given its
    /// winner ("" for a draw, None while it is not known); None when the
    /// next battle depends on a winner not known yet.
    fn after(&self, i: usize, winner: Option<&str>) -> Option<Option<usize>> {
        let b = &self.battles[i];
        if b.last {
            return Some(None);
        }
        if !b.next_if_won_by.is_empty() {
            if let Some(to) = b.next_if_won_by.get(winner?) {
                return Some(self.index(to));
            }
        }
        Some(match &b.next {
            Some(to) => self.index(to),
            None => (i + 1 < self.battles.len()).then_some(i + 1),
        })
    }

    /// The battles of the campaign as far as they are known, given the
    /// winners of the battles played (in order; "" for a draw): the first,
    /// then each next one until one waits for a winner or the campaign ends.
    #[must_use]
    pub fn path(&self, winners: &[Option<String>]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = Some(0);
        while let Some(i) = at {
            if out.contains(&i) || out.len() > self.battles.len() {
                break; // a loop: check() refuses those
            }
            out.push(i);
            let w = winners.get(out.len() - 1).cloned().flatten();
            at = self.after(i, w.as_deref()).flatten();
        }
        out
    }

    /// side -> role of the battle with plan index `i`.
    #[must_use]
    pub fn sides(&self, i: usize) -> &BTreeMap<String, String> {
        &self.battles[i].sides
    }
}

/// A mistake at a span of the file.
struct At(Range<usize>, String);

/// Read and check a campaign file: its first mistake at line and column.
pub fn check(text: &str, file: &str) -> Result<Plan, DataError> {
    let at = |span: Range<usize>, message: String| {
        let (line, column) = line_col(text, span.start);
        DataError::At {
            file: file.to_string(),
            line,
            column,
            message,
        }
    };
    let parsed: File = toml::from_str(text)
        .map_err(|e| at(e.span().unwrap_or(0..0), e.message().trim_end().to_string()))?;
    let dir = Path::new(file).parent().unwrap_or(Path::new("."));
    let default_name = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("campaign")
        .to_string();
    check_file(&parsed, dir, default_name).map_err(|At(span, m)| at(span, m))
}

fn check_file(f: &File, dir: &Path, default_name: String) -> Result<Plan, At> {
    let name = match &f.name {
        Some(n) => {
            let v = n.get_ref();
            if v.is_empty() || v.contains(char::is_whitespace) || v.len() > 64 {
                return Err(At(
                    n.span(),
                    "a campaign name is one word of at most 64 characters".into(),
                ));
            }
            v.clone()
        }
        None => default_name,
    };
    let mut roles: Vec<String> = Vec::new();
    for r in f.roles.get_ref() {
        let v = r.get_ref().to_ascii_lowercase();
        if v.is_empty() || v.contains(char::is_whitespace) || v.contains('=') {
            return Err(At(r.span(), format!("'{v}' is not a role: one word")));
        }
        if roles.contains(&v) {
            return Err(At(r.span(), format!("the role '{v}' is named twice")));
        }
        roles.push(v);
    }
    if roles.is_empty() {
        return Err(At(
            f.roles.span(),
            "a campaign needs at least one role".into(),
        ));
    }
    if f.battles.get_ref().is_empty() {
        return Err(At(
            f.battles.span(),
            "a campaign needs at least one [[battle]]".into(),
        ));
    }
    let common = options(&f.options)?;
    let mut plan = Plan {
        name,
        description: f.description.clone().unwrap_or_default(),
        roles: roles.clone(),
        pre_battle_dice: f.pre_battle_dice.as_ref().map(|p| *p.get_ref()),
        battles: Vec::new(),
    };
    for b in f.battles.get_ref() {
        if plan.battles.iter().any(|p| p.id == *b.id.get_ref()) {
            return Err(At(
                b.id.span(),
                format!("two battles have the id '{}'", b.id.get_ref()),
            ));
        }
        plan.battles.push(check_battle(b, &roles, &common, dir)?);
    }
    check_pre_battle(f, &plan)?;
    check_links(f, &plan)?;
    for r in f.roles.get_ref() {
        let v = r.get_ref().to_ascii_lowercase();
        if !plan
            .battles
            .iter()
            .any(|b| b.sides.values().any(|x| *x == v))
        {
            return Err(At(
                r.span(),
                format!("the role '{v}' is given a side in no battle"),
            ));
        }
    }
    Ok(plan)
}

/// Game options as the family reads them: strings, a bare `true` as "true".
fn options(
    o: &BTreeMap<Spanned<String>, Spanned<toml::Value>>,
) -> Result<BTreeMap<String, (String, Range<usize>)>, At> {
    let mut out = BTreeMap::new();
    for (k, v) in o {
        let text = match v.get_ref() {
            toml::Value::String(s) => s.clone(),
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::Integer(i) => i.to_string(),
            _ => {
                return Err(At(
                    v.span(),
                    format!(
                        "game option {}: a string, number or true/false",
                        k.get_ref()
                    ),
                ))
            }
        };
        out.insert(k.get_ref().to_ascii_lowercase(), (text, k.span()));
    }
    Ok(out)
}

fn check_battle(
    b: &FileBattle,
    roles: &[String],
    common: &BTreeMap<String, (String, Range<usize>)>,
    dir: &Path,
) -> Result<PlanBattle, At> {
    let id = b.id.get_ref().clone();
    if id.is_empty() || id.contains(char::is_whitespace) {
        return Err(At(
            b.id.span(),
            format!("'{id}' is not a battle id: one word"),
        ));
    }
    let mut scenario = b.scenario.get_ref().clone();
    // A scenario file is found from the campaign file's folder, and kept
    // by its full path: the judge creates later battles from elsewhere.
    if scenario.ends_with(".toml") && Path::new(&scenario).is_relative() {
        let path = dir.join(&scenario);
        scenario = std::fs::canonicalize(&path)
            .unwrap_or(path)
            .display()
            .to_string();
    }
    let (rules, source) =
        super::load_scenario(&scenario).map_err(|e| At(b.scenario.span(), e.to_string()))?;
    let state = super::setup_state(&rules, &source, &[0; 32])
        .map_err(|e| At(b.scenario.span(), e.to_string()))?;
    let theirs = rules.sides(&state);
    let mut sides = BTreeMap::new();
    for (s, r) in b.sides.get_ref() {
        let side = s.get_ref().to_ascii_lowercase();
        if !theirs.contains(&side) {
            return Err(At(
                s.span(),
                format!(
                    "{} has no side '{side}' (its sides: {})",
                    b.scenario.get_ref(),
                    theirs.join(", ")
                ),
            ));
        }
        let role = r.get_ref().to_ascii_lowercase();
        if !roles.contains(&role) {
            return Err(At(
                r.span(),
                format!(
                    "'{role}' is not one of the campaign's roles ({})",
                    roles.join(", ")
                ),
            ));
        }
        if sides.values().any(|x| *x == role) {
            return Err(At(r.span(), format!("the role '{role}' plays two sides")));
        }
        sides.insert(side, role);
    }
    if let Some(missing) = theirs.iter().find(|s| !sides.contains_key(*s)) {
        return Err(At(
            b.sides.span(),
            format!(
                "no role plays the side '{missing}' of {}",
                b.scenario.get_ref()
            ),
        ));
    }
    let mut opts = common.clone();
    opts.extend(options(&b.options)?);
    let options: BTreeMap<String, String> = opts
        .iter()
        .map(|(k, (v, _))| (k.clone(), v.clone()))
        .collect();
    // Options the rulebook does not take: each one alone, to point at it.
    let try_opts = |o: BTreeMap<String, String>| {
        let mut src = source.clone();
        src.options = o;
        super::setup_state(&rules, &src, &[0; 32])
    };
    if let Err(e) = try_opts(options.clone()) {
        for (k, (v, span)) in &opts {
            if let Err(e) = try_opts(BTreeMap::from([(k.clone(), v.clone())])) {
                return Err(At(span.clone(), plain(&e)));
            }
        }
        return Err(At(b.id.span(), plain(&e)));
    }
    let mut next_if_won_by = BTreeMap::new();
    for (s, to) in &b.next_if_won_by {
        let side = s.get_ref().to_ascii_lowercase();
        if !theirs.contains(&side) {
            return Err(At(
                s.span(),
                format!(
                    "{} has no side '{side}' to win it (its sides: {})",
                    b.scenario.get_ref(),
                    theirs.join(", ")
                ),
            ));
        }
        next_if_won_by.insert(side, to.get_ref().clone());
    }
    let last = b.last.as_ref().is_some_and(|l| *l.get_ref());
    if last && (b.next.is_some() || !next_if_won_by.is_empty()) {
        return Err(At(
            b.last.as_ref().map_or(b.id.span(), Spanned::span),
            "a battle with `last = true` has no next battle".into(),
        ));
    }
    Ok(PlanBattle {
        id,
        scenario,
        sides,
        options,
        next: b.next.as_ref().map(|n| n.get_ref().clone()),
        next_if_won_by,
        last,
    })
}

/// A family's refusal without the scenario file's name in front.
fn plain(e: &super::ServiceError) -> String {
    match e {
        super::ServiceError::Data(DataError::Invalid { message, .. }) => message.clone(),
        e => e.to_string(),
    }
}

/// `pre_battle_dice = true` asks for the Simplified Campaign Rules: every
/// battle's rulebook must have them.
fn check_pre_battle(f: &File, plan: &Plan) -> Result<(), At> {
    let Some(p) = f.pre_battle_dice.as_ref().filter(|p| *p.get_ref()) else {
        return Ok(());
    };
    for b in &plan.battles {
        if !super::campaign::rulebook_has_pre_battle_rules(&b.scenario, &b.options) {
            return Err(At(
                p.span(),
                format!(
                    "pre-battle dice are asked for, but battle '{}' ({}) is of a rulebook without pre-battle rules",
                    b.id, b.scenario
                ),
            ));
        }
    }
    Ok(())
}

/// Every branch goes to a battle of the file, and no battle comes round
/// again.
fn check_links(f: &File, plan: &Plan) -> Result<(), At> {
    for b in f.battles.get_ref() {
        for t in b.next.iter().chain(b.next_if_won_by.values()) {
            if plan.index(t.get_ref()).is_none() {
                return Err(At(
                    t.span(),
                    format!("there is no battle '{}' to go to", t.get_ref()),
                ));
            }
        }
    }
    // Depth-first from every battle: a link back to a battle on the way is
    // a loop.
    let n = plan.battles.len();
    let links = |i: usize| -> Vec<(usize, Range<usize>)> {
        let fb = &f.battles.get_ref()[i];
        let b = &plan.battles[i];
        let mut out = Vec::new();
        if b.last {
            return out;
        }
        for t in fb.next_if_won_by.values() {
            out.push((plan.index(t.get_ref()).unwrap_or(0), t.span()));
        }
        match &fb.next {
            Some(t) => out.push((plan.index(t.get_ref()).unwrap_or(0), t.span())),
            None if i + 1 < n => out.push((i + 1, fb.id.span())),
            None => {}
        }
        out
    };
    fn walk(
        i: usize,
        on_way: &mut Vec<usize>,
        done: &mut Vec<bool>,
        links: &dyn Fn(usize) -> Vec<(usize, Range<usize>)>,
        plan: &Plan,
    ) -> Result<(), At> {
        on_way.push(i);
        for (j, span) in links(i) {
            if on_way.contains(&j) {
                return Err(At(
                    span,
                    format!(
                        "a loop of battles: after '{}' comes '{}' again",
                        plan.battles[i].id, plan.battles[j].id
                    ),
                ));
            }
            if !done[j] {
                walk(j, on_way, done, links, plan)?;
            }
        }
        on_way.pop();
        done[i] = true;
        Ok(())
    }
    let mut done = vec![false; n];
    walk(0, &mut Vec::new(), &mut done, &links, plan)?;
    if let Some(i) = done.iter().position(|d| !d) {
        return Err(At(
            f.battles.get_ref()[i].id.span(),
            format!(
                "the battle '{}' is never reached from the first battle",
                plan.battles[i].id
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Plan {
        check(text, "t.toml").unwrap_or_else(|e| panic!("{e}"))
    }

    const BRANCH: &str = r#"
roles = ["a", "b"]
[[battle]]
id = "one"
scenario = "pegasus-bridge"
sides = { allies = "a", axis = "b" }
next_if_won_by = { axis = "three" }
[[battle]]
id = "two"
scenario = "pegasus-bridge"
sides = { allies = "b", axis = "a" }
last = true
[[battle]]
id = "three"
scenario = "sainte-mere-eglise"
sides = { allies = "a", axis = "b" }
"#;

    #[test]
    fn the_path_waits_for_the_winner_then_follows_it() {
        let p = plan(BRANCH);
        assert_eq!(p.name, "t");
        assert_eq!(p.path(&[]), [0]);
        assert_eq!(p.path(&[None]), [0]);
        assert_eq!(p.path(&[Some("axis".into())]), [0, 2]);
        // Allies or a draw: not in next_if_won_by, so the next in the file.
        assert_eq!(p.path(&[Some("allies".into())]), [0, 1]);
        assert_eq!(p.path(&[Some(String::new())]), [0, 1]);
    }

    #[test]
    fn a_stored_plan_reads_back_the_same() {
        let p = plan(BRANCH);
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Plan>(&text).unwrap(), p);
    }
}
