//! Mail in and out. Nothing here knows the rules of any game.
pub mod html;
pub mod idle;
pub mod imap;
pub mod maildir;
pub mod outbound;
pub mod parse;
pub mod quote;
pub mod smtp;
