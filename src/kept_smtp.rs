//! One SMTP connection kept between mails (issue 31): lettre's pool keeps
//! it open and re-dials when the server has closed it, so a burst of
//! answers does not pay a connection, a TLS handshake and a login each.
//! Each thread that delivers (the pass, the courier) keeps its own sender,
//! made again when the settings change.

use std::cell::RefCell;

use crate::mail::smtp::{SendError, SmtpConfig, SmtpSender};

thread_local! {
    static SENDER: RefCell<Option<(SmtpConfig, SmtpSender)>> = const { RefCell::new(None) };
}

/// Sends `raw` to `to` over this thread's kept connection for `cfg`.
pub fn send(cfg: &SmtpConfig, from: &str, to: &[String], raw: &[u8]) -> Result<(), SendError> {
    SENDER.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.as_ref().is_none_or(|(c, _)| c != cfg) {
            *kept = Some((cfg.clone(), SmtpSender::new(cfg)?));
        }
        let (_, sender) = kept.as_ref().expect("just made");
        sender.send(from, to, raw)
    })
}
