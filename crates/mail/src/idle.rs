//! IMAP IDLE (RFC 2177): a connection of its own that only waits for the
//! server to announce new mail, so that the judge fetches it at once
//! instead of at its next poll.
//!
//! The [`Idler`] never fetches or changes anything: it `EXAMINE`s the
//! mailbox (read-only) and waits in IDLE. The caller fetches with
//! [`crate::imap::fetch_new_kept`] when told of new mail. A wait ends
//! on new mail (an untagged `EXISTS` or `RECENT`), at its timeout (the
//! caller re-issues IDLE: RFC 2177 says a server may drop an idle client
//! after 30 minutes, so [`RENEW`] stays under 29), on an error (the server
//! went away: reconnect), or when [`Interrupt::interrupt`] shuts the socket
//! from another thread.

use std::io;
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use imap::extensions::idle::WaitOutcome;
use imap::types::UnsolicitedResponse;

use crate::imap::{mailbox_error, open_keeping, ImapConfig, MailboxError, Session};

/// How long one IDLE lasts before it is ended and issued again: under the
/// 29 minutes RFC 2177 allows.
pub const RENEW: Duration = Duration::from_secs(25 * 60);

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// The server announced new mail.
    NewMail,
    /// The timeout passed without news (a mail announced while IDLE was
    /// being re-issued may be missed: the caller looks once anyway).
    Quiet,
}

/// A logged-in session examining the mailbox, ready to IDLE.
pub struct Idler {
    session: Session,
    tcp: Arc<TcpStream>,
    /// The connection's read timeout outside IDLE (`timeout_secs`).
    timeout: Duration,
}

/// Ends an [`Idler`]'s wait from another thread (the judge stopping).
#[derive(Clone)]
pub struct Interrupt(Arc<TcpStream>);

impl Interrupt {
    /// Shuts the IDLE connection: the wait returns an error at once.
    pub fn interrupt(&self) {
        let _ = self.0.shutdown(Shutdown::Both);
    }
}

/// Whether to IDLE: the host has not turned it off (`idle = false`) and the
/// server offers it in its capabilities after login.
pub fn wanted(cfg: &ImapConfig, server_offers_idle: bool) -> bool {
    cfg.idle && server_offers_idle
}

impl Idler {
    /// Connects, logs in and examines the mailbox. `Ok(None)` when the
    /// server does not offer IDLE or the host turned it off: poll instead.
    pub fn open(cfg: &ImapConfig) -> Result<Option<Idler>, MailboxError> {
        let (mut session, tcp) = open_keeping(cfg)?;
        let offers = session.capabilities()?.has_str("IDLE");
        if !wanted(cfg, offers) {
            let _ = session.logout();
            return Ok(None);
        }
        session
            .examine(&cfg.mailbox)
            .map_err(|e| mailbox_error(cfg, e))?;
        Ok(Some(Idler {
            session,
            tcp: Arc::new(tcp),
            timeout: Duration::from_secs(cfg.timeout_secs.max(1)),
        }))
    }

    /// A handle that ends this idler's waits from another thread.
    pub fn interrupter(&self) -> Interrupt {
        Interrupt(Arc::clone(&self.tcp))
    }

    /// Issues IDLE and waits for new mail, at most `timeout`; then ends the
    /// IDLE (`DONE`).
    pub fn wait(&mut self, timeout: Duration) -> Result<Waited, MailboxError> {
        let outcome = {
            let mut handle = self.session.idle();
            handle.timeout(timeout).keepalive(false);
            let outcome = handle.wait_while(|r| {
                !matches!(
                    r,
                    UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_)
                )
            });
            // The wait leaves the socket without a read timeout; the DONE
            // that ends the IDLE (when `handle` drops) must not wait for
            // ever on a server that went silent.
            self.tcp.set_read_timeout(Some(self.timeout))?;
            outcome?
        };
        // Announcements read outside the wait (while IDLE was ended).
        let buffered = self.session.take_all_unsolicited().any(|r| {
            matches!(
                r,
                UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_)
            )
        });
        Ok(match outcome {
            WaitOutcome::MailboxChanged => Waited::NewMail,
            WaitOutcome::TimedOut if buffered => Waited::NewMail,
            WaitOutcome::TimedOut => Waited::Quiet,
        })
    }
}

impl std::fmt::Debug for Idler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Idler")
            .field("peer", &self.tcp.peer_addr().ok())
            .finish()
    }
}

/// An error of the IDLE connection that is worth no more than a debug line
/// (the judge stopping shut the socket).
pub fn is_interrupted(e: &MailboxError) -> bool {
    match e {
        MailboxError::Io(e) => matches!(
            e.kind(),
            io::ErrorKind::NotConnected | io::ErrorKind::BrokenPipe | io::ErrorKind::UnexpectedEof
        ),
        MailboxError::Disconnected(_) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::imap::ImapTls;

    #[test]
    fn idle_only_when_the_server_offers_it_and_the_host_wants_it() {
        let mut cfg = ImapConfig::new("127.0.0.1", 1143, "u", "p", ImapTls::None);
        assert!(cfg.idle, "IDLE is on by default");
        assert!(wanted(&cfg, true));
        assert!(!wanted(&cfg, false));
        cfg.idle = false;
        assert!(!wanted(&cfg, true));
    }

    #[test]
    fn renew_is_under_the_29_minutes_of_rfc_2177() {
        assert!(RENEW < Duration::from_secs(29 * 60));
    }
}
