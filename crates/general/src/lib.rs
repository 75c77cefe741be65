//! The judge's own general (issue 58, docs/general.md): the orders of a seat
//! the judge plays, for every rules family, through the rules interface
//! only.
//!
//! How it decides, for one side in one phase:
//! 1. it takes the position as that side may know it
//!    ([`adjutant_rules::ErasedFamily::knowledge`]) and never looks at the
//!    true state again, so what its side cannot see cannot change its orders;
//! 2. it draws candidate order sets with the family's own generator
//!    (`random_orders`), keeps those `check` accepts, and adds the side's pass
//!    orders;
//! 3. it plays each candidate out on that position with a few dice streams
//!    of its own (the other sides of a phase played at once giving their pass
//!    orders) and scores what follows: the game won or lost, the victory
//!    points (`score`) each side holds, the strength (`strength`) each side
//!    has left;
//! 4. it gives the candidate with the best mean.
//!
//! Every die it draws comes from ChaCha20 streams seeded by the game's
//! master seed, the judge's phase count and the side, under labels of their
//! own (`adjutant/general...`): a replay gives the same orders, and the
//! general's dice are not the game's (which are derived under other labels).
//! Pure: no I/O, no clock, no global random source.

use adjutant_dice::{derive, ChaChaDice, Seed};
use adjutant_rules::{Chance, Orders, Rules, State};
use std::collections::BTreeSet;

/// How hard the general thinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Candidate order sets drawn from the family's generator.
    pub candidates: usize,
    /// Dice streams each candidate is played out with.
    pub streams: usize,
    /// The side's own next move looked at after each candidate (the
    /// enemy passing in between): the best of this many generated orders.
    /// 0: the position when the side's next phase comes (the enemy's
    /// passing answer), no move of its own looked at.
    pub replies: usize,
    /// At most this many lines the best candidate is tried without, one at
    /// a time, a line kept out when the orders do better without it (a
    /// unit that held rather than marched into the enemy's fire). 0: none.
    pub refine: usize,
    /// Where the family deals the enemy a hand in the general's own
    /// look-ahead ([`adjutant_rules::ErasedFamily::deal_unseen`]), the
    /// enemy's reply there is the best for the enemy of its pass and up to
    /// this many of the family's own orders for it (`general_orders`),
    /// scored one ply deep; elsewhere the enemy passes. 0 (the default):
    /// nothing is dealt and the enemy passes, the look-ahead as before it
    /// (measured at 3: some ten times the cost of a decision and no
    /// stronger at 40 games, docs/general.md).
    pub answers: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            candidates: 24,
            streams: 3,
            replies: 4,
            refine: 8,
            answers: 0,
        }
    }
}

impl Settings {
    /// The settings for a ruleset: the default, but for the Seven Years'
    /// War, whose adjudication of a player-turn costs some ten times a
    /// Memoir '44 turn's, where fewer candidates and streams keep a
    /// decision under a second (docs/general.md has the figures).
    #[must_use]
    pub fn for_rules(rules: &Rules) -> Settings {
        if rules.costly() {
            Settings {
                candidates: 12,
                streams: 2,
                replies: 0,
                refine: 24,
                answers: 0,
            }
        } else {
            Settings::default()
        }
    }
}

/// What the general decided, and on how much.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The orders, as a player would mail them.
    pub orders: String,
    /// The candidate's mean score (see [`value`]).
    pub value: f64,
    /// How many distinct candidates were played out.
    pub considered: usize,
}

/// Where a won or lost game puts a position's value: beyond any count of
/// points or strength.
const DECIDED: f64 = 1.0e6;
/// One victory point (a medal, a unit destroyed, a man removed) against one
/// figure, strength point or man on the board.
const POINT: f64 = 10.0;

/// The orders the general gives for `side` in the phase `state` is in, with
/// the ruleset's [`Settings::for_rules`]; `None` if the phase does not wait for `side`
/// or the family can give it no orders.
#[must_use]
pub fn orders(rules: &Rules, state: &State, side: &str, seed: &Seed, turn: u32) -> Option<String> {
    decide(rules, state, side, seed, turn, Settings::for_rules(rules)).map(|d| d.orders)
}

/// The general's decision for `side` in the phase `state` is in; `turn` is
/// the judge's count of phases played (the next phase's number less one),
/// which with `seed` keys its dice.
#[must_use]
pub fn decide(
    rules: &Rules,
    state: &State,
    side: &str,
    seed: &Seed,
    turn: u32,
    settings: Settings,
) -> Option<Decision> {
    if rules.result(state).is_some() || !rules.phase(state).sides.iter().any(|s| s == side) {
        return None;
    }
    let known = rules.knowledge(state, side);
    let candidates = candidates(rules, &known, side, seed, turn, settings.candidates);
    let look = Look {
        rules,
        side,
        seed,
        turn,
        settings,
        dealt: if settings.answers == 0 {
            Vec::new()
        } else {
            deal(rules, &known, side, seed, turn, settings.streams)
        },
    };
    let mut best: Option<Decision> = None;
    let considered = candidates.len();
    for text in candidates {
        let Some(v) = look.play_out(&known, &text) else {
            continue;
        };
        if best.as_ref().is_none_or(|b| v > b.value) {
            best = Some(Decision {
                orders: text,
                value: v,
                considered,
            });
        }
    }
    if let Some(b) = best.take() {
        best = Some(refine(&look, &known, b));
    }
    best.or_else(|| {
        rules.pass_orders(&known, side).map(|orders| Decision {
            orders,
            value: 0.0,
            considered,
        })
    })
}

/// The seed of one of the general's streams: `what` names its use.
fn stream_seed(seed: &Seed, what: &str, turn: u32, side: &str, n: u32) -> Seed {
    derive(
        "adjutant/general",
        &[
            seed,
            what.as_bytes(),
            &turn.to_be_bytes(),
            side.as_bytes(),
            &n.to_be_bytes(),
        ],
    )
}

/// Per dice stream, the general's guess at what `side` cannot see
/// (`deal_unseen`: the enemy's hand dealt from the cards the side has not
/// seen), drawn with a stream of its own from the known position alone;
/// `None` where the family deals nothing. Every candidate is played out on
/// the same guesses, so they are compared on the same footing.
fn deal(
    rules: &Rules,
    known: &State,
    side: &str,
    seed: &Seed,
    turn: u32,
    streams: usize,
) -> Vec<Option<State>> {
    (0..streams.max(1))
        .map(|n| {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            let mut dice = ChaChaDice::from_seed(stream_seed(seed, "hand", turn, side, n));
            rules.deal_unseen(known, side, &mut dice)
        })
        .collect()
}

/// The pass orders and up to `k` distinct generated orders `check` accepts
/// on the known position, in the order drawn.
fn candidates(
    rules: &Rules,
    known: &State,
    side: &str,
    seed: &Seed,
    turn: u32,
    k: usize,
) -> Vec<String> {
    let mut rng = ChaChaDice::from_seed(stream_seed(seed, "candidates", turn, side, 0));
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut out = Vec::new();
    let mut keep = |text: String, out: &mut Vec<String>| {
        if let Ok(canon) = rules.check(known, side, &text) {
            if seen.insert(canon) {
                out.push(text);
            }
        }
    };
    if let Some(pass) = rules.pass_orders(known, side) {
        keep(pass, &mut out);
    }
    // Half the candidates the family's own sensible orders, where it has
    // them (a measured table's: every unit that can fire fires).
    for v in 0..u32::try_from(k / 2).unwrap_or(0) {
        match rules.general_orders(known, side, &mut rng, v) {
            Some(text) => keep(text, &mut out),
            None => break,
        }
    }
    // A few more draws than candidates: the generator repeats itself in a
    // position with few choices, and some of its orders may be refused.
    for _ in 0..k * 2 {
        if out.len() > k {
            break;
        }
        match rules.random_orders(known, side, &mut rng) {
            Some(text) => keep(text, &mut out),
            None => break,
        }
    }
    out
}

/// The best candidate tried without each of its lines in turn (up to
/// `settings.refine` tries): a shorter set `check` accepts that plays out
/// better is kept and tried further. A random candidate orders every unit
/// somewhere; this is what lets the general's good line (a battery firing
/// from where it stands) go without the bad ones drawn with it.
fn refine(look: &Look<'_>, known: &State, mut best: Decision) -> Decision {
    let (rules, side, settings) = (look.rules, look.side, look.settings);
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    if let Ok(canon) = rules.check(known, side, &best.orders) {
        seen.insert(canon);
    }
    let mut i = 0;
    let mut tries = 0;
    loop {
        let lines: Vec<&str> = best.orders.lines().collect();
        if i >= lines.len() || lines.len() < 2 || tries >= settings.refine {
            best.considered += tries;
            return best;
        }
        let mut text = String::new();
        for (k, l) in lines.iter().enumerate() {
            if k != i {
                text.push_str(l);
                text.push('\n');
            }
        }
        let fresh = rules
            .check(known, side, &text)
            .is_ok_and(|canon| seen.insert(canon));
        if fresh {
            tries += 1;
            if let Some(v) = look.play_out(known, &text) {
                if v > best.value {
                    best.orders = text;
                    best.value = v;
                    continue;
                }
            }
        }
        i += 1;
    }
}

/// One decision's look-ahead: whose, keyed how, and the guesses at the
/// hidden it plays on.
struct Look<'a> {
    rules: &'a Rules,
    side: &'a str,
    seed: &'a Seed,
    turn: u32,
    settings: Settings,
    /// Per stream, the known position with the enemy's hand dealt
    /// ([`deal`]); `None`: the known position itself.
    dealt: Vec<Option<State>>,
}

/// How a look-ahead past the side's move ended.
enum Ahead {
    /// The game ended in the enemy's reply: its [`value`].
    Ended(f64),
    /// The side's own next move: the best [`value`] of its replies.
    Next(f64),
}

impl Look<'_> {
    /// A pair of the general's streams (dice, deck) under `what`.
    fn chance(&self, what: &str, k: u32) -> (ChaChaDice, ChaChaDice) {
        let (seed, turn, side) = (self.seed, self.turn, self.side);
        (
            ChaChaDice::from_seed(stream_seed(seed, &format!("{what}dice"), turn, side, k)),
            ChaChaDice::from_seed(stream_seed(seed, &format!("{what}deck"), turn, side, k)),
        )
    }

    /// The mean [`value`] for the side of playing `text` on the known
    /// position with `settings.streams` dice streams, each on its guess of
    /// the hidden; `None` if the orders cannot be played.
    fn play_out(&self, known: &State, text: &str) -> Option<f64> {
        let rules = self.rules;
        let phase = rules.phase(known);
        let mut total = 0.0;
        let streams = self.settings.streams.max(1);
        for n in 0..streams {
            let world = self.dealt.get(n).and_then(Option::as_ref);
            let dealt = world.is_some();
            let world = world.unwrap_or(known);
            let mut orders = Vec::new();
            for s in &phase.sides {
                let t = if s == self.side {
                    text.to_string()
                } else {
                    rules.pass_orders(world, s)?
                };
                orders.push(Orders {
                    side: s.clone(),
                    text: t,
                });
            }
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            let (mut dice, mut deck) = self.chance("", n);
            let mut chance = Chance {
                dice: &mut dice,
                deck: &mut deck,
            };
            let after = rules.adjudicate(world, &orders, &mut chance).ok()?;
            let now = value(rules, &after.state, self.side);
            let ahead = rules
                .result(&after.state)
                .is_none()
                .then(|| self.next_move(after.state, n, dealt))
                .flatten();
            // What the move reaps now, and what it sets up for the side's
            // own next move, weighed alike; where the enemy's reply was
            // played and ended the game, that end is the move's worth (a
            // fifth medal the enemy's last turn takes back is no win).
            total += match ahead {
                None => now,
                Some(Ahead::Ended(v)) if dealt => v,
                Some(Ahead::Ended(v) | Ahead::Next(v)) => (now + v) / 2.0,
            };
        }
        Some(total / streams as f64)
    }

    /// One phase of the look-ahead: `mine` the side's orders, the other
    /// sides pass.
    fn play(&self, s: &State, mine: Option<&str>, k: u32) -> Option<State> {
        let rules = self.rules;
        let mut orders = Vec::new();
        for x in rules.phase(s).sides {
            let text = match mine {
                Some(t) if x == self.side => t.to_string(),
                _ => rules.pass_orders(s, &x)?,
            };
            orders.push(Orders { side: x, text });
        }
        let (mut dice, mut deck) = self.chance("next-", k);
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        rules
            .adjudicate(s, &orders, &mut chance)
            .ok()
            .map(|a| a.state)
    }

    /// The enemy's reply in a phase that waits for one other side only:
    /// the position after the best, for that side ([`value`] one ply deep),
    /// of its pass and up to `settings.answers` of the family's own orders
    /// for it, all rolled with the same dice; `None` if none can be played.
    fn answer(&self, s: &State, enemy: &str, k: u32) -> Option<State> {
        let rules = self.rules;
        let seed = stream_seed(self.seed, "answer-orders", self.turn, self.side, k);
        let mut rng = ChaChaDice::from_seed(seed);
        let mut texts: Vec<String> = rules.pass_orders(s, enemy).into_iter().collect();
        for v in 0..u32::try_from(self.settings.answers).unwrap_or(0) {
            match rules.general_orders(s, enemy, &mut rng, v) {
                Some(t) if !texts.contains(&t) => texts.push(t),
                Some(_) => {}
                None => break,
            }
        }
        let mut best: Option<(f64, State)> = None;
        for text in texts {
            let (mut dice, mut deck) = self.chance("answer-", k);
            let mut chance = Chance {
                dice: &mut dice,
                deck: &mut deck,
            };
            let orders = [Orders {
                side: enemy.to_string(),
                text,
            }];
            let r = rules.adjudicate(s, &orders, &mut chance);
            if let Ok(a) = r {
                let v = value(rules, &a.state, enemy);
                if best.as_ref().is_none_or(|(b, _)| v > *b) {
                    best = Some((v, a.state));
                }
            }
        }
        best.map(|(_, s)| s)
    }

    /// After a candidate: the other sides reply until the side's own next
    /// phase (at most four phases: an initiative roll, an artillery
    /// phase), then the best [`value`] of `replies` of its generated
    /// orders there; `None` when that cannot be played. With `answered`
    /// (the family dealt the enemy a hand) a phase of one enemy side is its
    /// [`Look::answer`]; else the other sides pass.
    fn next_move(&self, mut s: State, n: u32, answered: bool) -> Option<Ahead> {
        let (rules, side) = (self.rules, self.side);
        let key = n.saturating_mul(64);
        for step in 0..4u32 {
            if rules.result(&s).is_some() {
                return Some(Ahead::Ended(value(rules, &s, side)));
            }
            let sides = rules.phase(&s).sides;
            if sides.iter().any(|x| x == side) {
                break;
            }
            s = match sides.as_slice() {
                [enemy] if answered && self.settings.answers > 0 => {
                    self.answer(&s, enemy, key + step)?
                }
                _ => self.play(&s, None, key + step)?,
            };
        }
        if answered && rules.result(&s).is_some() {
            return Some(Ahead::Ended(value(rules, &s, side)));
        }
        if !rules.phase(&s).sides.iter().any(|x| x == side) {
            return None;
        }
        if self.settings.replies == 0 {
            // The enemy's answer only (a measured table's player-turn).
            return Some(Ahead::Next(value(rules, &s, side)));
        }
        let seed = stream_seed(self.seed, "next-orders", self.turn, side, n);
        let mut rng = ChaChaDice::from_seed(seed);
        let mut best: Option<f64> = None;
        for r in 0..self.settings.replies {
            let text = rules.random_orders(&s, side, &mut rng)?;
            let k = key + 4 + u32::try_from(r).unwrap_or(0);
            if let Some(after) = self.play(&s, Some(&text), k) {
                let v = value(rules, &after, side);
                best = Some(best.map_or(v, |b: f64| b.max(v)));
            }
        }
        best.map(Ahead::Next)
    }
}

/// How good a position is for `side`: a won game [`DECIDED`], a lost one
/// minus that, a draw 0; else its victory points less the enemy's (each
/// worth [`POINT`]) and its strength left less the enemy's.
#[must_use]
pub fn value(rules: &Rules, s: &State, side: &str) -> f64 {
    if let Some(w) = rules.result(s) {
        return if w == side {
            DECIDED
        } else if w.is_empty() {
            0.0
        } else {
            -DECIDED
        };
    }
    let balance = |pairs: Vec<(String, u32)>| -> f64 {
        pairs
            .iter()
            .map(|(s, n)| {
                if s == side {
                    f64::from(*n)
                } else {
                    -f64::from(*n)
                }
            })
            .sum()
    };
    if let Some(v) = rules.general_value(s, side) {
        return v;
    }
    POINT * balance(rules.score(s)) + balance(rules.strength(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_general_streams_are_its_own_and_keyed_by_turn_and_side() {
        let seed = [7u8; 32];
        let a = stream_seed(&seed, "dice", 3, "allies", 0);
        assert_ne!(a, stream_seed(&seed, "dice", 4, "allies", 0));
        assert_ne!(a, stream_seed(&seed, "dice", 3, "axis", 0));
        assert_ne!(a, stream_seed(&seed, "deck", 3, "allies", 0));
        assert_ne!(a, adjutant_dice::turn_seed(&seed, 3));
    }
}
