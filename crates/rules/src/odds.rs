//! Exact odds from dice, shared by the families' PREDICT (issue 32):
//! each face of one die scored by the family's own code, convolved over
//! the number of dice, and the answer's percentages.

use std::collections::BTreeMap;

/// The joint distribution of (hits, second result: flags or retreats) of
/// `n` dice whose faces score `one` each, as counts out of `one.len()^n`.
#[must_use]
pub fn convolve(one: &[(u32, u32)], n: u32) -> BTreeMap<(u32, u32), u64> {
    let mut dist: BTreeMap<(u32, u32), u64> = BTreeMap::from([((0, 0), 1)]);
    for _ in 0..n {
        let mut next = BTreeMap::new();
        for ((h, f), c) in &dist {
            for (dh, df) in one {
                *next.entry((h + dh, f + df)).or_insert(0) += c;
            }
        }
        dist = next;
    }
    dist
}

/// Counts by one coordinate of the joint distribution.
pub fn marginal(
    joint: &BTreeMap<(u32, u32), u64>,
    key: impl Fn((u32, u32)) -> u32,
) -> BTreeMap<u32, u64> {
    let mut m = BTreeMap::new();
    for (k, c) in joint {
        *m.entry(key(*k)).or_insert(0) += c;
    }
    m
}

/// "0 hits 25.0%, 1 hit 50.0%, 2 hits 25.0%".
#[must_use]
pub fn shares(m: &BTreeMap<u32, u64>, total: u64, one: &str, many: &str) -> String {
    m.iter()
        .map(|(k, c)| {
            let w = if *k == 1 { one } else { many };
            format!("{k} {w} {}", pct(*c, total))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A share as a percentage with one decimal: "25.0%".
#[must_use]
pub fn pct(count: u64, total: u64) -> String {
    if total == 0 {
        return "0.0%".into();
    }
    format!("{:.1}%", count as f64 * 100.0 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two dice each hitting on half the faces: 0, 1, 2 hits as 1:2:1.
    #[test]
    fn two_dice_of_even_chance() {
        let one = [(1, 0), (1, 0), (1, 0), (0, 0), (0, 0), (0, 1)];
        let d = convolve(&one, 2);
        assert_eq!(d.values().sum::<u64>(), 36);
        let hits = marginal(&d, |(h, _)| h);
        assert_eq!(
            shares(&hits, 36, "hit", "hits"),
            "0 hits 25.0%, 1 hit 50.0%, 2 hits 25.0%"
        );
        assert_eq!(pct(1, 3), "33.3%");
        assert_eq!(pct(0, 0), "0.0%");
    }
}

/// A rules case's `[expect.predict]` (docs/testing.md), the same in every
/// family's case format: the side asking and the orders to predict (each
/// format says their defaults) and text the answer must contain.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectPredict {
    /// The side asking.
    #[serde(default)]
    pub side: Option<String>,
    /// The orders to predict.
    #[serde(default)]
    pub orders: Option<String>,
    /// Text the answer must contain, each (a line wrapped in the answer is
    /// read joined).
    #[serde(default)]
    pub lines: Vec<String>,
    /// Text PREDICT's refusal must contain: the orders are refused, as the
    /// judge would refuse them, and no odds are given.
    #[serde(default)]
    pub refused: Option<String>,
}

impl ExpectPredict {
    /// The side asking and its orders: as the expectation names them,
    /// else the case's one side's orders (`orders`, by side, in the
    /// case's section `section`: `[move]`, `[phase]`). Err: the problem.
    pub fn side_and_orders(
        &self,
        orders: &std::collections::BTreeMap<String, String>,
        section: &str,
    ) -> Result<(String, String), String> {
        let side = self
            .side
            .clone()
            .or_else(|| match orders.keys().collect::<Vec<_>>()[..] {
                [only] => Some(only.clone()),
                _ => None,
            })
            .map(|s| s.to_ascii_lowercase())
            .ok_or_else(|| {
                format!("[expect.predict] names no side (and {section} has not one side's orders)")
            })?;
        let orders = self
            .orders
            .clone()
            .or_else(|| {
                orders
                    .iter()
                    .find(|(s, _)| s.eq_ignore_ascii_case(&side))
                    .map(|(_, o)| o.clone())
            })
            .unwrap_or_default();
        Ok((side, orders))
    }

    /// The case's problems with PREDICT's answer (or its refusal): each
    /// expected text it lacks, and then the whole answer.
    #[must_use]
    pub fn problems(&self, answer: Result<String, crate::Rejection>) -> Vec<String> {
        let answer = match (answer, &self.refused) {
            (Ok(a), None) => a,
            (Err(e), None) => return vec![format!("PREDICT refused the orders: {e}")],
            (Err(e), Some(want)) => {
                let msg = e.to_string();
                if msg.to_lowercase().contains(&want.to_lowercase()) {
                    return Vec::new();
                }
                return vec![format!(
                    "PREDICT refused the orders, but \"{msg}\" does not contain \"{want}\""
                )];
            }
            (Ok(a), Some(want)) => {
                return vec![format!(
                    "PREDICT answered, but a refusal containing \"{want}\" was expected:\n{a}"
                )]
            }
        };
        let joined = answer.replace("\n    ", " ");
        let missing: Vec<String> = self
            .lines
            .iter()
            .filter(|l| !joined.contains(l.as_str()))
            .map(|l| format!("PREDICT: no \"{l}\""))
            .collect();
        if missing.is_empty() {
            return missing;
        }
        vec![format!(
            "{}\n  PREDICT answered:\n{answer}",
            missing.join("; ")
        )]
    }
}
