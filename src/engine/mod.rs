//! The generic, pure core: dice and grids. No I/O, no clock, no global RNG.
pub mod dice;
