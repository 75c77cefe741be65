//! The second move of melee (docs/rules/charge.md, "Second move of
//! mêlée"): "each throws a D6 to determine who moves first. The winner may
//! move 4 figures of infantry or 2 of cavalry into contact. Once contacted,
//! a figure is *pinned*. The other side then does the same … until all
//! that can make contact within *normal* move distances have done so."
//!
//! Worked on counts of figures: a figure moving up contacts an enemy figure
//! not yet in a combat (which is then pinned: it fights there and moves no
//! more) or, when none is left, joins a combat its side may still add to
//! under the COMBAT MODIFIERS table ("Same troop types cannot exceed 2 to
//! 1", one horseman against up to three foot).

use crate::charge::Ruleset;
use crate::events::SecondMove;

/// May a side of `x_class` add one figure to a combat of `xn` of its own
/// against `yn` of `y_class`? Only against a single figure, and only to a
/// grouping the table lists.
fn may_join(r: &Ruleset, x_class: &str, xn: u32, y_class: &str, yn: u32) -> bool {
    yn == 1
        && r.combats.iter().any(|c| {
            (c.a_n == 1 && c.a_class == y_class && c.b_class == x_class && c.b_n == xn + 1)
                || (c.b_n == 1 && c.b_class == y_class && c.a_class == x_class && c.a_n == xn + 1)
        })
}

/// Figures a side moves into contact at a time.
fn batch(r: &Ruleset, class: &str) -> u32 {
    r.melee.second_move.get(class).copied().unwrap_or(4).max(1)
}

/// The combats of a second (or later) move of melee between `na` attacking
/// figures of `a_class` and `nd` defending figures of `d_class`: (attacker
/// figures, defender figures) each, and what happened, for the report.
/// `roll` throws a D6.
pub fn second_move(
    r: &Ruleset,
    a_class: &str,
    na: u32,
    d_class: &str,
    nd: u32,
    roll: &mut dyn FnMut() -> u32,
) -> (Vec<(u32, u32)>, SecondMove) {
    // Who moves first: a tie is thrown again (the book does not say; a
    // judgement), at most ten times, then the attacker.
    let mut throws = Vec::new();
    let mut first = 0usize;
    for k in 0..10 {
        let a = roll();
        let d = roll();
        throws.push([a, d]);
        if a != d {
            first = usize::from(d > a);
            break;
        }
        if k == 9 {
            first = 0;
        }
    }
    let class = [a_class, d_class];
    let mut free = [na, nd];
    let mut combats: Vec<[u32; 2]> = Vec::new();
    let mut stalled = [false, false];
    let mut batches = Vec::new();
    let mut x = first;
    while !(stalled[0] && stalled[1]) {
        let y = 1 - x;
        let mut placed = 0;
        for _ in 0..batch(r, class[x]) {
            if free[x] == 0 {
                break;
            }
            if free[y] > 0 {
                // Contact an enemy figure not yet fighting: it is pinned.
                free[y] -= 1;
                let mut c = [0, 0];
                c[x] = 1;
                c[y] = 1;
                combats.push(c);
            } else {
                // Join the combat with the fewest of one's own figures that
                // the table still allows.
                let best = combats
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| may_join(r, class[x], c[x], class[y], c[y]))
                    .min_by_key(|(k, c)| (c[x], *k))
                    .map(|(k, _)| k);
                let Some(k) = best else { break };
                combats[k][x] += 1;
            }
            free[x] -= 1;
            placed += 1;
        }
        stalled[x] = placed == 0;
        if placed > 0 {
            let who = if x == 0 { "attacker" } else { "defender" };
            batches.push((who.to_string(), placed));
        }
        x = y;
    }
    let info = SecondMove {
        throws,
        first: if first == 0 { "attacker" } else { "defender" }.into(),
        batches,
        idle: [free[0], free[1]],
    };
    (combats.into_iter().map(|c| (c[0], c[1])).collect(), info)
}
