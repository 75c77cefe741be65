pub mod imap;
pub mod smtp;
