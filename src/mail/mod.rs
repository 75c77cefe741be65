//! Mail in and out. Nothing here knows the rules of any game.
pub mod maildir;
pub mod outbound;
pub mod parse;
