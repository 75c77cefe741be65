//! IMAP polling: fetch what arrived since the last poll, then mark it seen (or
//! move it) once the caller has committed it.
//!
//! The caller keeps an [`ImapCursor`] (UIDVALIDITY and the last UID it
//! committed) in its store. [`fetch_new`] uses `BODY.PEEK[]` on a read-only
//! `EXAMINE`, so nothing changes on the server until [`mark_seen`] or
//! [`move_to`] is called after the commit. When the mailbox's UIDVALIDITY has
//! changed, every message is fetched again: exactly-once processing then rests
//! on the store's Message-ID / content-hash check.
//!
//! TLS (implicit, as on port 993, or STARTTLS) uses rustls with the Mozilla
//! roots plus an optional `ca_file`; plaintext is meant for loopback only.
//! Passwords never appear in errors, logs or `Debug` output.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde::Deserialize;

/// How the IMAP connection is protected.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ImapTls {
    /// Plaintext: only for a server on loopback.
    None,
    /// TLS from the first byte (IMAPS, port 993).
    #[default]
    Implicit,
    /// Plaintext greeting, then `STARTTLS` before anything else (port 143).
    #[serde(alias = "start_tls")]
    StartTls,
}

/// The `[mail.imap]` settings.
#[derive(Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    /// Defaults to 993 with implicit TLS, 143 otherwise.
    #[serde(default)]
    pub port: Option<u16>,
    pub user: String,
    /// The password itself (prefer `password_env`).
    #[serde(default)]
    pub password: Option<String>,
    /// Name of an environment variable holding the password; wins over `password`.
    #[serde(default)]
    pub password_env: Option<String>,
    /// The mailbox to poll.
    #[serde(default = "default_mailbox")]
    pub mailbox: String,
    #[serde(default)]
    pub tls: ImapTls,
    /// Extra PEM certificates to trust (a private CA or a self-signed server).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// Connect, read and write timeout.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// `tls = "none"` to a host that is not on loopback: refused unless
    /// this is set (the password would cross the network in clear).
    #[serde(default)]
    pub allow_plaintext_remote: bool,
    /// Wait for new mail with IDLE (RFC 2177) where the server offers it
    /// (crate::idle); false polls every `judge.poll_seconds` as with a
    /// server without IDLE.
    #[serde(default = "default_idle")]
    pub idle: bool,
}

fn default_idle() -> bool {
    true
}

fn default_mailbox() -> String {
    "INBOX".to_string()
}

fn default_timeout() -> u64 {
    60
}

impl ImapConfig {
    /// A configuration with the defaults for everything but the server and account.
    pub fn new(host: &str, port: u16, user: &str, password: &str, tls: ImapTls) -> Self {
        ImapConfig {
            host: host.to_string(),
            port: Some(port),
            user: user.to_string(),
            password: Some(password.to_string()),
            password_env: None,
            mailbox: default_mailbox(),
            tls,
            ca_file: None,
            timeout_secs: default_timeout(),
            allow_plaintext_remote: false,
            idle: default_idle(),
        }
    }

    /// The port, or the usual one for the TLS mode.
    pub fn effective_port(&self) -> u16 {
        self.port.unwrap_or(match self.tls {
            ImapTls::Implicit => 993,
            ImapTls::None | ImapTls::StartTls => 143,
        })
    }

    /// The password from `password_env` if set, else `password`.
    pub fn resolve_password(&self) -> Result<String, MailboxError> {
        resolve_password(self.password.as_deref(), self.password_env.as_deref())
            .map_err(MailboxError::Config)?
            .ok_or_else(|| {
                MailboxError::Config(format!(
                    "no IMAP password for {} (set password or password_env)",
                    self.user
                ))
            })
    }

    fn server(&self) -> String {
        format!("{}:{}", self.host, self.effective_port())
    }
}

impl fmt::Debug for ImapConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field("password_env", &self.password_env)
            .field("mailbox", &self.mailbox)
            .field("tls", &self.tls)
            .field("ca_file", &self.ca_file)
            .field("timeout_secs", &self.timeout_secs)
            .field("allow_plaintext_remote", &self.allow_plaintext_remote)
            .field("idle", &self.idle)
            .finish()
    }
}

/// Password lookup shared by the IMAP and SMTP settings: the environment
/// variable named by `env` wins; a named but unset variable is an error unless
/// a literal password is also given.
pub fn resolve_password(
    literal: Option<&str>,
    env: Option<&str>,
) -> Result<Option<String>, String> {
    if let Some(name) = env {
        match std::env::var(name) {
            Ok(value) => return Ok(Some(value)),
            Err(_) if literal.is_some() => {}
            Err(std::env::VarError::NotPresent) => {
                return Err(format!("environment variable {name} is not set"))
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(format!("environment variable {name} is not valid UTF-8"))
            }
        }
    }
    Ok(literal.map(str::to_string))
}

/// Where the last poll stopped; persisted by the caller after each commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct ImapCursor {
    pub uid_validity: u32,
    pub last_uid: u32,
}

/// What can go wrong with a mailbox.
#[derive(Debug, thiserror::Error)]
pub enum MailboxError {
    #[error("mail configuration: {0}")]
    Config(String),
    #[error("cannot reach IMAP server {server}: {source}")]
    Connect { server: String, source: io::Error },
    #[error("TLS with IMAP server {server}: {detail}")]
    Tls { server: String, detail: String },
    #[error("IMAP server {server} refused the login of {user}: {detail}")]
    Auth {
        server: String,
        user: String,
        detail: String,
        transient: bool,
    },
    #[error("IMAP mailbox {mailbox:?}: {detail}")]
    Mailbox { mailbox: String, detail: String },
    #[error("UIDVALIDITY of {mailbox:?} changed from {expected} to {actual}: fetch again")]
    UidValidityChanged {
        mailbox: String,
        expected: u32,
        actual: u32,
    },
    #[error("IMAP connection: {0}")]
    Io(#[from] io::Error),
    #[error("IMAP connection lost: {0}")]
    Disconnected(String),
    #[error("IMAP protocol: {0}")]
    Protocol(String),
}

impl MailboxError {
    /// True when trying again later may succeed without anyone changing the
    /// configuration (network trouble, a server restarting). False for wrong
    /// credentials, TLS verification failures, a missing mailbox, protocol
    /// errors and a changed UIDVALIDITY (fetch again instead).
    pub fn is_transient(&self) -> bool {
        match self {
            MailboxError::Connect { .. } | MailboxError::Io(_) | MailboxError::Disconnected(_) => {
                true
            }
            MailboxError::Auth { transient, .. } => *transient,
            MailboxError::Config(_)
            | MailboxError::Tls { .. }
            | MailboxError::Mailbox { .. }
            | MailboxError::UidValidityChanged { .. }
            | MailboxError::Protocol(_) => false,
        }
    }
}

impl From<imap::Error> for MailboxError {
    fn from(e: imap::Error) -> Self {
        match e {
            imap::Error::Io(e) => MailboxError::Io(e),
            imap::Error::ConnectionLost => MailboxError::Disconnected("connection closed".into()),
            imap::Error::Bye(b) => MailboxError::Disconnected(format!("server said BYE: {b}")),
            other => MailboxError::Protocol(other.to_string()),
        }
    }
}

/// The transport under the IMAP session.
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

pub(crate) type Session = imap::Session<Stream>;

/// The IDLE wait sets its own read timeout on the socket (crate::idle).
impl imap::extensions::idle::SetReadTimeout for Stream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::Result<()> {
        let tcp = match self {
            Stream::Plain(s) => &*s,
            Stream::Tls(s) => &s.sock,
        };
        tcp.set_read_timeout(timeout).map_err(imap::Error::Io)
    }
}

fn tls_config(cfg: &ImapConfig) -> Result<Arc<rustls::ClientConfig>, MailboxError> {
    let server = cfg.server();
    let tls_err = |detail: String| MailboxError::Tls {
        server: server.clone(),
        detail,
    };
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = &cfg.ca_file {
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| MailboxError::Config(format!("ca_file {}: {e}", path.display())))?;
        if certs.is_empty() {
            return Err(MailboxError::Config(format!(
                "ca_file {}: no certificate in it",
                path.display()
            )));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| MailboxError::Config(format!("ca_file {}: {e}", path.display())))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_err(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Wraps `tcp` in TLS and completes the handshake, so that certificate
/// problems show up here as [`MailboxError::Tls`].
fn handshake(cfg: &ImapConfig, tcp: TcpStream) -> Result<Stream, MailboxError> {
    let server = cfg.server();
    let config = tls_config(cfg)?;
    let name = ServerName::try_from(cfg.host.clone()).map_err(|e| MailboxError::Tls {
        server: server.clone(),
        detail: format!("invalid server name: {e}"),
    })?;
    let conn = rustls::ClientConnection::new(config, name).map_err(|e| MailboxError::Tls {
        server: server.clone(),
        detail: e.to_string(),
    })?;
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    while tls.conn.is_handshaking() {
        if let Err(e) = tls.conn.complete_io(&mut tls.sock) {
            let is_tls = e
                .get_ref()
                .is_some_and(|inner| inner.downcast_ref::<rustls::Error>().is_some());
            return Err(if is_tls {
                MailboxError::Tls {
                    server,
                    detail: e.to_string(),
                }
            } else {
                MailboxError::Io(e)
            });
        }
    }
    Ok(Stream::Tls(Box::new(tls)))
}

fn connect_tcp(cfg: &ImapConfig) -> Result<TcpStream, MailboxError> {
    let server = cfg.server();
    let timeout = Duration::from_secs(cfg.timeout_secs.max(1));
    let connect_err = |source: io::Error| MailboxError::Connect {
        server: server.clone(),
        source,
    };
    let addrs = (cfg.host.as_str(), cfg.effective_port())
        .to_socket_addrs()
        .map_err(connect_err)?;
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address for host");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(tcp) => {
                tcp.set_read_timeout(Some(timeout)).map_err(connect_err)?;
                tcp.set_write_timeout(Some(timeout)).map_err(connect_err)?;
                // Commands are short writes each awaiting an answer: no
                // Nagle delay behind an unacknowledged one.
                tcp.set_nodelay(true).map_err(connect_err)?;
                return Ok(tcp);
            }
            Err(e) => last = e,
        }
    }
    Err(connect_err(last))
}

/// Reads one line (up to LF) byte by byte, so nothing after it is consumed.
fn read_line(tcp: &mut TcpStream) -> Result<String, MailboxError> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 16 * 1024 {
        if tcp.read(&mut byte)? == 0 {
            return Err(MailboxError::Disconnected("connection closed".into()));
        }
        line.push(byte[0]);
        if byte[0] == b'\n' {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&line).trim_end().to_string())
}

/// The plaintext part of a STARTTLS connection (RFC 3501 6.2.1): greeting,
/// `STARTTLS`, tagged OK. The imap crate keeps its own version private.
fn starttls(cfg: &ImapConfig, mut tcp: TcpStream) -> Result<TcpStream, MailboxError> {
    let greeting = read_line(&mut tcp)?;
    if !greeting.starts_with("* OK") {
        return Err(MailboxError::Protocol(format!(
            "unexpected greeting: {greeting}"
        )));
    }
    tcp.write_all(b"a0 STARTTLS\r\n")?;
    loop {
        let line = read_line(&mut tcp)?;
        if let Some(status) = line.strip_prefix("a0 ") {
            if status.starts_with("OK") {
                return Ok(tcp);
            }
            return Err(MailboxError::Tls {
                server: cfg.server(),
                detail: format!("STARTTLS refused: {status}"),
            });
        }
        // Untagged lines (a CAPABILITY, say) before the tagged answer.
    }
}

/// Connects, secures and logs in.
fn open(cfg: &ImapConfig) -> Result<Session, MailboxError> {
    open_keeping(cfg).map(|(session, _)| session)
}

/// [`open`], also returning a handle on the session's TCP socket: shutting
/// it down from another thread ends a read blocked on the session (an IDLE
/// wait, crate::idle).
pub(crate) fn open_keeping(cfg: &ImapConfig) -> Result<(Session, TcpStream), MailboxError> {
    let password = cfg.resolve_password()?;
    let tcp = connect_tcp(cfg)?;
    let handle = tcp.try_clone()?;
    let client = match cfg.tls {
        ImapTls::None => {
            let mut client = imap::Client::new(Stream::Plain(tcp));
            client.read_greeting()?;
            client
        }
        ImapTls::Implicit => {
            let mut client = imap::Client::new(handshake(cfg, tcp)?);
            client.read_greeting()?;
            client
        }
        ImapTls::StartTls => {
            let tcp = starttls(cfg, tcp)?;
            let mut client = imap::Client::new(handshake(cfg, tcp)?);
            // No second greeting after STARTTLS.
            client.greeting_read = true;
            client
        }
    };
    let session = client.login(&cfg.user, &password).map_err(|(e, _client)| {
        let detail = match &e {
            imap::Error::No(no) => no.information.clone(),
            imap::Error::Bad(bad) => bad.information.clone(),
            other => other.to_string(),
        };
        match e {
            imap::Error::No(_) | imap::Error::Bad(_) => MailboxError::Auth {
                server: cfg.server(),
                user: cfg.user.clone(),
                // RFC 5530: UNAVAILABLE / INUSE mean "try again later".
                transient: detail.contains("[UNAVAILABLE]") || detail.contains("[INUSE]"),
                detail,
            },
            other => MailboxError::from(other),
        }
    })?;
    Ok((session, handle))
}

pub(crate) fn mailbox_error(cfg: &ImapConfig, e: imap::Error) -> MailboxError {
    match e {
        imap::Error::No(no) => MailboxError::Mailbox {
            mailbox: cfg.mailbox.clone(),
            detail: no.information,
        },
        other => MailboxError::from(other),
    }
}

/// Runs `f` in a logged-in session and logs out whatever happens.
fn with_session<T>(
    cfg: &ImapConfig,
    f: impl FnOnce(&mut Session) -> Result<T, MailboxError>,
) -> Result<T, MailboxError> {
    let mut session = open(cfg)?;
    let result = f(&mut session);
    let _ = session.logout();
    result
}

/// Connects, secures, logs in and examines the mailbox, changing nothing:
/// the check `serve` makes before it starts.
pub fn check_login(cfg: &ImapConfig) -> Result<(), MailboxError> {
    with_session(cfg, |session| {
        session
            .examine(&cfg.mailbox)
            .map(|_| ())
            .map_err(|e| mailbox_error(cfg, e))
    })
}

/// One fetched message: its UID and its raw RFC 5322 bytes.
pub type Fetched = (u32, Vec<u8>);

/// Fetches, in UID order, at most `max` messages (0: no limit) with a UID above
/// the cursor's, or every message when there is no cursor or the mailbox's
/// UIDVALIDITY differs from the cursor's. Returns them with the mailbox's
/// current UIDVALIDITY. Flags are not touched (`EXAMINE`, `BODY.PEEK[]`).
pub fn fetch_new(
    cfg: &ImapConfig,
    cursor: Option<ImapCursor>,
    max: usize,
) -> Result<(Vec<Fetched>, u32), MailboxError> {
    with_session(cfg, |session| fetch_in(session, cfg, cursor, max))
}

/// A cursor past every message now in the mailbox: a judge given a
/// mailbox that already holds mail starts from now with it (`adjutant
/// skip-old-mail`), and fetches only what arrives later. Also the number
/// of messages it leaves behind.
pub fn cursor_at_end(cfg: &ImapConfig) -> Result<(ImapCursor, u32), MailboxError> {
    with_session(cfg, |session| {
        let mailbox = session
            .examine(&cfg.mailbox)
            .map_err(|e| mailbox_error(cfg, e))?;
        let uid_validity = mailbox.uid_validity.ok_or_else(|| {
            MailboxError::Protocol(format!("no UIDVALIDITY for mailbox {:?}", cfg.mailbox))
        })?;
        let last_uid = if mailbox.exists == 0 {
            mailbox.uid_next.map_or(0, |n| n.saturating_sub(1))
        } else {
            // The highest UID there (UIDNEXT may be ahead of it after an
            // expunge, and is optional).
            session
                .uid_search("1:*")?
                .into_iter()
                .max()
                .unwrap_or(0)
                .max(mailbox.uid_next.map_or(0, |n| n.saturating_sub(1)))
        };
        Ok((
            ImapCursor {
                uid_validity,
                last_uid,
            },
            mailbox.exists,
        ))
    })
}

/// [`fetch_new`] over this thread's kept session ([`with_kept`]).
pub fn fetch_new_kept(
    cfg: &ImapConfig,
    cursor: Option<ImapCursor>,
    max: usize,
) -> Result<(Vec<Fetched>, u32), MailboxError> {
    with_kept(cfg, |session| fetch_in(session, cfg, cursor, max))
}

/// [`fetch_new`] in an open session.
fn fetch_in(
    session: &mut Session,
    cfg: &ImapConfig,
    cursor: Option<ImapCursor>,
    max: usize,
) -> Result<(Vec<Fetched>, u32), MailboxError> {
    let mailbox = session
        .examine(&cfg.mailbox)
        .map_err(|e| mailbox_error(cfg, e))?;
    let uid_validity = mailbox.uid_validity.ok_or_else(|| {
        MailboxError::Protocol(format!("no UIDVALIDITY for mailbox {:?}", cfg.mailbox))
    })?;
    let after = match cursor {
        Some(c) if c.uid_validity == uid_validity => c.last_uid,
        _ => 0,
    };
    let Some(first) = after.checked_add(1) else {
        return Ok((Vec::new(), uid_validity));
    };
    if mailbox.exists == 0 || mailbox.uid_next.is_some_and(|next| next <= first) {
        return Ok((Vec::new(), uid_validity));
    }
    // "N:*" also matches the highest UID when it is below N: filter.
    let found: BTreeSet<u32> = session
        .uid_search(format!("UID {first}:*"))?
        .into_iter()
        .filter(|&uid| uid > after)
        .collect();
    let limit = if max == 0 { usize::MAX } else { max };
    let wanted: Vec<u32> = found.into_iter().take(limit).collect();
    if wanted.is_empty() {
        return Ok((Vec::new(), uid_validity));
    }
    let fetches = session.uid_fetch(uid_set(&wanted), "(UID BODY.PEEK[])")?;
    let mut messages = BTreeMap::new();
    for fetch in fetches.iter() {
        let Some(uid) = fetch.uid else { continue };
        if wanted.binary_search(&uid).is_err() {
            continue;
        }
        // An answer without a body is an unsolicited FETCH (another
        // session changed the message's flags, RFC 3501 7.4.2), not ours:
        // the body comes in its own answer.
        let Some(body) = fetch.body() else { continue };
        messages.insert(uid, body.to_vec());
    }
    // A message expunged between SEARCH and FETCH is simply not returned;
    // one still there whose body did not come must not be passed over (the
    // cursor moves to the last UID handled): the pass stops before it.
    let missing: Vec<u32> = wanted
        .iter()
        .copied()
        .filter(|u| !messages.contains_key(u))
        .collect();
    let still_there: BTreeSet<u32> = if missing.is_empty() {
        BTreeSet::new()
    } else {
        session
            .uid_search(format!("UID {}", uid_set(&missing)))?
            .into_iter()
            .collect()
    };
    Ok((up_to_a_gap(&wanted, messages, &still_there), uid_validity))
}

/// The fetched messages in UID order, up to (not including) the first
/// wanted UID that came without a body and is still in the mailbox, so
/// that the cursor never moves past it; it is fetched again next pass.
fn up_to_a_gap(
    wanted: &[u32],
    mut messages: BTreeMap<u32, Vec<u8>>,
    still_there: &BTreeSet<u32>,
) -> Vec<Fetched> {
    let gap = wanted
        .iter()
        .find(|u| !messages.contains_key(u) && still_there.contains(u));
    if let Some(gap) = gap {
        tracing::warn!(
            "imap: the server sent no body for UID {gap}: it is fetched again next pass"
        );
        messages.retain(|u, _| u < gap);
    }
    messages.into_iter().collect()
}

thread_local! {
    /// The session [`with_kept`] keeps open between calls, with its settings.
    static KEPT: RefCell<Option<(ImapConfig, Session)>> = const { RefCell::new(None) };
}

/// Runs `f` in this thread's kept session for `cfg`, logging in first
/// when there is none (issue 31: the judge's passes reuse one session
/// instead of paying a connection, a TLS handshake and a login for each
/// fetch and each marking, which at 20 mails a second held the answers
/// back). A kept session that fails for a reason that may pass (the server
/// closed it, or restarted) is dropped and `f` is tried once more in a new
/// one, so a stale connection is never reported as an outage; any other
/// error drops the session too, and is returned. `f` must be safe to run
/// twice (fetching reads only; marking seen is idempotent).
fn with_kept<T>(
    cfg: &ImapConfig,
    mut f: impl FnMut(&mut Session) -> Result<T, MailboxError>,
) -> Result<T, MailboxError> {
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some((old, mut session)) = kept.take() {
            if &old == cfg {
                // What the server said between two calls (EXISTS, flags
                // others changed) is not wanted: it would only pile up.
                session.take_all_unsolicited().for_each(drop);
                match f(&mut session) {
                    Ok(v) => {
                        *kept = Some((old, session));
                        return Ok(v);
                    }
                    Err(e) if e.is_transient() => {
                        tracing::debug!("imap: the kept session failed ({e}); logging in again");
                    }
                    Err(e) => return Err(e),
                }
            } else {
                let _ = session.logout();
            }
        }
        let mut session = open(cfg)?;
        let v = f(&mut session)?;
        *kept = Some((cfg.clone(), session));
        Ok(v)
    })
}

/// Closes this thread's kept session, if any (logging out).
pub fn close_kept() {
    if let Some((_, mut session)) = KEPT.with(|kept| kept.borrow_mut().take()) {
        let _ = session.logout();
    }
}

/// Selects the mailbox read-write and checks its UIDVALIDITY.
fn select_checked(
    session: &mut Session,
    cfg: &ImapConfig,
    uid_validity: u32,
) -> Result<(), MailboxError> {
    let mailbox = session
        .select(&cfg.mailbox)
        .map_err(|e| mailbox_error(cfg, e))?;
    match mailbox.uid_validity {
        Some(actual) if actual == uid_validity => Ok(()),
        Some(actual) => Err(MailboxError::UidValidityChanged {
            mailbox: cfg.mailbox.clone(),
            expected: uid_validity,
            actual,
        }),
        None => Err(MailboxError::Protocol(format!(
            "no UIDVALIDITY for mailbox {:?}",
            cfg.mailbox
        ))),
    }
}

/// Sets `\Seen` on `uids`, provided the mailbox's UIDVALIDITY is still
/// `uid_validity` (otherwise [`MailboxError::UidValidityChanged`] and nothing
/// is changed). UIDs that no longer exist are ignored.
pub fn mark_seen(cfg: &ImapConfig, uid_validity: u32, uids: &[u32]) -> Result<(), MailboxError> {
    if uids.is_empty() {
        return Ok(());
    }
    with_session(cfg, |session| {
        select_checked(session, cfg, uid_validity)?;
        session.uid_store(uid_set(uids), "+FLAGS.SILENT (\\Seen)")?;
        Ok(())
    })
}

/// [`mark_seen`] over this thread's kept session ([`with_kept`]).
pub fn mark_seen_kept(
    cfg: &ImapConfig,
    uid_validity: u32,
    uids: &[u32],
) -> Result<(), MailboxError> {
    if uids.is_empty() {
        return Ok(());
    }
    with_kept(cfg, |session| {
        select_checked(session, cfg, uid_validity)?;
        session.uid_store(uid_set(uids), "+FLAGS.SILENT (\\Seen)")?;
        Ok(())
    })
}

/// How [`move_to`] moves messages on a server with the given capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Moving {
    /// `UID MOVE` (RFC 6851).
    Move,
    /// `UID COPY`, `\Deleted` on those UIDs, `UID EXPUNGE` of those UIDs
    /// (UIDPLUS, RFC 4315).
    CopyAndExpungeThese,
    /// `UID COPY` and `\Deleted` only: a plain `EXPUNGE` would remove every
    /// message anyone flagged `\Deleted` in the mailbox, so the originals
    /// stay, seen and flagged, for the mailbox's owner to expunge.
    CopyAndFlag,
}

fn moving(has_move: bool, has_uidplus: bool) -> Moving {
    match (has_move, has_uidplus) {
        (true, _) => Moving::Move,
        (false, true) => Moving::CopyAndExpungeThese,
        (false, false) => Moving::CopyAndFlag,
    }
}

/// Moves `uids` to the mailbox `target` (which must exist), marking them seen,
/// provided the UIDVALIDITY is unchanged. Uses `MOVE` (RFC 6851) when the
/// server has it, else COPY, `\Deleted` and `UID EXPUNGE` of those UIDs
/// (UIDPLUS); never a plain `EXPUNGE` ([`Moving::CopyAndFlag`]).
pub fn move_to(
    cfg: &ImapConfig,
    uid_validity: u32,
    uids: &[u32],
    target: &str,
) -> Result<(), MailboxError> {
    if uids.is_empty() {
        return Ok(());
    }
    with_session(cfg, |session| {
        select_checked(session, cfg, uid_validity)?;
        let set = uid_set(uids);
        session.uid_store(&set, "+FLAGS.SILENT (\\Seen)")?;
        let caps = session.capabilities()?;
        let no_target = |e: imap::Error| match e {
            imap::Error::No(no) => MailboxError::Mailbox {
                mailbox: target.to_string(),
                detail: no.information,
            },
            other => MailboxError::from(other),
        };
        match moving(caps.has_str("MOVE"), caps.has_str("UIDPLUS")) {
            Moving::Move => session.uid_mv(&set, target).map_err(no_target)?,
            how => {
                session.uid_copy(&set, target).map_err(no_target)?;
                session.uid_store(&set, "+FLAGS.SILENT (\\Deleted)")?;
                if how == Moving::CopyAndExpungeThese {
                    session.uid_expunge(&set)?;
                }
            }
        }
        Ok(())
    })
}

/// A compact UID set: `[1, 2, 3, 7, 9, 10]` becomes `"1:3,7,9:10"`.
pub fn uid_set(uids: &[u32]) -> String {
    let sorted: BTreeSet<u32> = uids.iter().copied().collect();
    let mut parts: Vec<String> = Vec::new();
    let mut run: Option<(u32, u32)> = None;
    for uid in sorted {
        run = match run {
            Some((start, end)) if end.checked_add(1) == Some(uid) => Some((start, uid)),
            Some(done) => {
                parts.push(range(done));
                Some((uid, uid))
            }
            None => Some((uid, uid)),
        };
    }
    if let Some(done) = run {
        parts.push(range(done));
    }
    parts.join(",")
}

fn range((start, end): (u32, u32)) -> String {
    if start == end {
        start.to_string()
    } else {
        format!("{start}:{end}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message whose body did not come and is still in the mailbox stops
    /// the pass before it (the cursor must not pass it); one expunged
    /// meanwhile does not.
    #[test]
    fn a_message_without_its_body_is_not_passed_over() {
        let got = |uids: &[u32]| -> BTreeMap<u32, Vec<u8>> {
            uids.iter().map(|u| (*u, vec![b'x'])).collect()
        };
        let uids = |f: Vec<Fetched>| f.iter().map(|m| m.0).collect::<Vec<u32>>();
        let wanted = [3, 4, 5, 6];
        let all = up_to_a_gap(&wanted, got(&[3, 4, 5, 6]), &BTreeSet::new());
        assert_eq!(uids(all), vec![3, 4, 5, 6]);
        let gap = up_to_a_gap(&wanted, got(&[3, 5, 6]), &BTreeSet::from([4]));
        assert_eq!(uids(gap), vec![3], "stops before UID 4");
        let expunged = up_to_a_gap(&wanted, got(&[3, 5, 6]), &BTreeSet::new());
        assert_eq!(
            uids(expunged),
            vec![3, 5, 6],
            "4 is gone: nothing waits for it"
        );
    }

    /// A server without MOVE or UIDPLUS gets no plain EXPUNGE, which would
    /// remove every message anyone flagged deleted (issue 35).
    #[test]
    fn moving_never_expunges_the_whole_mailbox() {
        assert_eq!(moving(true, true), Moving::Move);
        assert_eq!(moving(true, false), Moving::Move);
        assert_eq!(moving(false, true), Moving::CopyAndExpungeThese);
        assert_eq!(moving(false, false), Moving::CopyAndFlag);
    }

    #[test]
    fn uid_sets_are_compact_and_sorted() {
        assert_eq!(uid_set(&[]), "");
        assert_eq!(uid_set(&[5]), "5");
        assert_eq!(uid_set(&[10, 9, 1, 2, 3, 7, 3]), "1:3,7,9:10");
        assert_eq!(uid_set(&[u32::MAX, 1]), format!("1,{}", u32::MAX));
    }

    #[test]
    fn config_from_toml_with_defaults_and_redacted_debug() {
        let cfg: ImapConfig = toml::from_str(
            r#"
            host = "imap.example.org"
            user = "judge@example.org"
            password = "hunter2"
            "#,
        )
        .unwrap();
        assert_eq!(cfg.tls, ImapTls::Implicit);
        assert_eq!(cfg.effective_port(), 993);
        assert_eq!(cfg.mailbox, "INBOX");
        let debug = format!("{cfg:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("<redacted>"));

        let cfg: ImapConfig = toml::from_str(
            r#"
            host = "127.0.0.1"
            user = "judge"
            password_env = "ADJUTANT_TEST_UNSET_VARIABLE_IMAP"
            tls = "starttls"
            "#,
        )
        .unwrap();
        assert_eq!(cfg.tls, ImapTls::StartTls);
        assert_eq!(cfg.effective_port(), 143);
        let err = cfg.resolve_password().unwrap_err();
        assert!(!err.is_transient());
        assert!(err
            .to_string()
            .contains("ADJUTANT_TEST_UNSET_VARIABLE_IMAP"));
    }

    #[test]
    fn password_env_wins_over_literal() {
        // PATH is always set; its value stands in for a password here.
        let path = std::env::var("PATH").unwrap();
        assert_eq!(
            resolve_password(Some("literal"), Some("PATH")).unwrap(),
            Some(path)
        );
        assert_eq!(
            resolve_password(Some("literal"), Some("ADJUTANT_TEST_UNSET_VARIABLE")).unwrap(),
            Some("literal".to_string())
        );
        assert_eq!(resolve_password(None, None).unwrap(), None);
    }

    #[test]
    fn connection_refused_is_transient() {
        // Port 9 (discard) on loopback is closed on any test machine.
        let cfg = ImapConfig::new("127.0.0.1", 9, "u", "p", ImapTls::None);
        let err = fetch_new(&cfg, None, 10).unwrap_err();
        assert!(err.is_transient(), "{err}");
    }
}
