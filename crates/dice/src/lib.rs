//! Honest, verifiable dice.
//!
//! A game has one secret master seed. From it we derive, by SHA-256 with a
//! domain label, one *turn seed* per turn and one *deck seed* for hidden
//! shuffles. Each turn seed is committed (its SHA-256 mailed) before that
//! turn's orders may arrive, and revealed afterwards, so a player can re-run
//! the turn's dice from what they received. Within a turn each phase draws from
//! its own ChaCha20 stream keyed by (turn seed, phase name): one phase's dice
//! never depend on how many dice another phase rolled.
//!
//! Dice are sampled by our own code from `next_u32` with rejection sampling,
//! so an upgrade of the `rand` crates cannot change the history of a game.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

/// 32 bytes of secret randomness behind a game.
pub type Seed = [u8; 32];

/// A source of dice and shuffles for the pure engine.
///
/// `roll(n)` returns a value in `1..=n`. Implementations never panic; a
/// [`ForcedDice`] that runs out of faces records it (see [`Dice::exhausted`]).
pub trait Dice {
    /// One die with `sides` faces, numbered from 1.
    fn roll(&mut self, sides: u32) -> u32;
    /// How many dice have been rolled so far.
    fn rolled(&self) -> usize;
    /// True when a forced sequence was asked for more faces than it held.
    fn exhausted(&self) -> bool {
        false
    }
}

/// SHA-256 of `label || 0x00 || parts...`, each part length-prefixed.
#[must_use]
pub fn derive(label: &str, parts: &[&[u8]]) -> Seed {
    let mut h = Sha256::new();
    h.update(label.as_bytes());
    h.update([0u8]);
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// Lower-case hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The public commitment to a seed: hex of SHA-256(seed).
#[must_use]
pub fn commitment(seed: &Seed) -> String {
    sha256_hex(seed)
}

/// The seed of turn `turn` (numbered from 1; turn 0 is the set-up).
#[must_use]
pub fn turn_seed(master: &Seed, turn: u32) -> Seed {
    derive("adjutant/turn", &[master, &turn.to_be_bytes()])
}

/// The seed for hidden shuffles (the deck). Revealed only when the game ends.
#[must_use]
pub fn deck_seed(master: &Seed) -> Seed {
    derive("adjutant/deck", &[master])
}

/// Parse 64 hex digits into a seed.
pub fn parse_seed(hex_text: &str) -> Option<Seed> {
    let bytes = hex::decode(hex_text.trim()).ok()?;
    bytes.try_into().ok()
}

/// Dice drawn from ChaCha20.
pub struct ChaChaDice {
    rng: ChaCha20Rng,
    rolled: usize,
}

impl ChaChaDice {
    /// The stream of one phase of one turn: ChaCha20 keyed by
    /// SHA-256("adjutant/phase", turn seed, phase).
    #[must_use]
    pub fn stream(turn_seed: &Seed, phase: &str) -> Self {
        Self::from_seed(derive("adjutant/phase", &[turn_seed, phase.as_bytes()]))
    }

    /// A stream keyed directly by a seed (tests and shuffles).
    #[must_use]
    pub fn from_seed(seed: Seed) -> Self {
        ChaChaDice {
            rng: ChaCha20Rng::from_seed(seed),
            rolled: 0,
        }
    }

    /// A uniform value in `0..n` by rejection sampling on `next_u32`.
    fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        // Accept only x below the largest multiple of n in 0..2^32, so every
        // residue is equally likely.
        let range = 1u64 << 32;
        let limit = range - range % u64::from(n);
        loop {
            let x = u64::from(self.rng.next_u32());
            if x < limit {
                return (x % u64::from(n)) as u32;
            }
        }
    }
}

impl Dice for ChaChaDice {
    fn roll(&mut self, sides: u32) -> u32 {
        self.rolled += 1;
        self.below(sides.max(1)) + 1
    }
    fn rolled(&self) -> usize {
        self.rolled
    }
}

/// Dice with faces forced by a test or a rules case. Running out is recorded,
/// never papered over with random faces.
#[derive(Debug, Clone, Default)]
pub struct ForcedDice {
    faces: Vec<u32>,
    next: usize,
    exhausted: bool,
}

impl ForcedDice {
    /// Faces to return in order, each in `1..=sides` of the die asked for.
    #[must_use]
    pub fn new(faces: Vec<u32>) -> Self {
        ForcedDice {
            faces,
            next: 0,
            exhausted: false,
        }
    }
    /// Faces forced but never rolled.
    #[must_use]
    pub fn unused(&self) -> usize {
        self.faces.len().saturating_sub(self.next)
    }
}

impl Dice for ForcedDice {
    fn roll(&mut self, sides: u32) -> u32 {
        let face = match self.faces.get(self.next) {
            Some(f) => (*f).clamp(1, sides.max(1)),
            None => {
                self.exhausted = true;
                1
            }
        };
        self.next += 1;
        face
    }
    fn rolled(&self) -> usize {
        self.next
    }
    fn exhausted(&self) -> bool {
        self.exhausted
    }
}

/// Shuffle `items` in place with Fisher-Yates drawing from `dice`.
pub fn shuffle<T>(items: &mut [T], dice: &mut dyn Dice) {
    for i in (1..items.len()).rev() {
        let j = (dice.roll((i + 1) as u32) - 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_and_repeatable() {
        let m = [7u8; 32];
        let t = turn_seed(&m, 3);
        let a: Vec<u32> = {
            let mut d = ChaChaDice::stream(&t, "battle");
            (0..20).map(|_| d.roll(6)).collect()
        };
        let b: Vec<u32> = {
            let mut d = ChaChaDice::stream(&t, "battle");
            (0..20).map(|_| d.roll(6)).collect()
        };
        assert_eq!(a, b);
        let mut other = ChaChaDice::stream(&t, "ambush");
        let c: Vec<u32> = (0..20).map(|_| other.roll(6)).collect();
        assert_ne!(a, c);
        assert!(a.iter().all(|f| (1..=6).contains(f)));
        assert_ne!(turn_seed(&m, 3), turn_seed(&m, 4));
    }

    /// Golden values: if this fails, a dependency changed how dice are drawn
    /// and every stored game's history would change. Do not update lightly.
    #[test]
    fn golden_stream() {
        let mut d = ChaChaDice::stream(&turn_seed(&[0u8; 32], 1), "battle");
        let faces: Vec<u32> = (0..12).map(|_| d.roll(6)).collect();
        assert_eq!(faces, GOLDEN);
    }
    const GOLDEN: [u32; 12] = [2, 6, 6, 6, 5, 2, 2, 6, 3, 4, 2, 3];

    #[test]
    fn forced_dice_report_exhaustion() {
        let mut d = ForcedDice::new(vec![4, 6]);
        assert_eq!(d.roll(6), 4);
        assert_eq!(d.roll(6), 6);
        assert!(!d.exhausted());
        d.roll(6);
        assert!(d.exhausted());
        assert_eq!(d.rolled(), 3);
    }

    #[test]
    fn commitment_matches_sha256() {
        let s = [1u8; 32];
        assert_eq!(commitment(&s).len(), 64);
        assert_eq!(parse_seed(&hex::encode(s)), Some(s));
        assert_eq!(parse_seed("zz"), None);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v: Vec<u32> = (0..60).collect();
        shuffle(&mut v, &mut ChaChaDice::from_seed([9; 32]));
        let mut s = v.clone();
        s.sort_unstable();
        assert_eq!(s, (0..60).collect::<Vec<_>>());
        assert_ne!(v, s);
    }
}
