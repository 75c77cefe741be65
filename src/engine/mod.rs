//! The generic, pure core: dice (the `adjutant-dice` crate). No I/O, no
//! clock, no global RNG.
pub use adjutant_dice as dice;
