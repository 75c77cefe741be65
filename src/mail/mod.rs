//! Reading inbound mail: [`parse::parse`] turns raw bytes into an [`parse::Envelope`]
//! (sender, ids, auto-reply verdict and the new text); [`html`] and [`quote`]
//! do the text work. Policy: `docs/mail-reading.md`.
pub mod html;
pub mod parse;
pub mod quote;
