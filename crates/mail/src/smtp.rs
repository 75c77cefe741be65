//! Sending pre-formatted RFC 5322 messages: SMTP submission (plaintext on
//! loopback, STARTTLS or implicit TLS with rustls, optional AUTH) or a local
//! `sendmail` binary.
//!
//! The message bytes are sent as they are: the envelope (MAIL FROM / RCPT TO)
//! is given separately, so the outbox can store exactly what goes out.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use lettre::address::Envelope;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::transport::smtp::SmtpTransport;
use lettre::{Address, SendmailTransport, Transport};
use serde::Deserialize;

use super::imap::resolve_password;

/// How the SMTP connection is protected.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SmtpSecurity {
    /// Plaintext: only for a relay on loopback.
    None,
    /// Plaintext greeting, then a required `STARTTLS` (submission, port 587).
    #[default]
    #[serde(alias = "start_tls")]
    StartTls,
    /// TLS from the first byte (submissions, port 465).
    Tls,
}

/// The `[mail.smtp]` settings.
#[derive(Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    pub host: String,
    /// Defaults to 587 with STARTTLS, 465 with TLS, 25 without.
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub security: SmtpSecurity,
    /// Log in with AUTH when set.
    #[serde(default)]
    pub user: Option<String>,
    /// The password itself (prefer `password_env`).
    #[serde(default)]
    pub password: Option<String>,
    /// Name of an environment variable holding the password; wins over `password`.
    #[serde(default)]
    pub password_env: Option<String>,
    /// The name given in EHLO (default: this machine's host name).
    #[serde(default)]
    pub hello_name: Option<String>,
    /// Extra PEM certificates to trust (a private CA or a self-signed server).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// `security = "none"` to a host that is not on loopback: refused
    /// unless this is set (the password would cross the network in clear).
    #[serde(default)]
    pub allow_plaintext_remote: bool,
}

fn default_timeout() -> u64 {
    60
}

impl SmtpConfig {
    /// A configuration with the defaults for everything but the server.
    pub fn new(host: &str, port: u16, security: SmtpSecurity) -> Self {
        SmtpConfig {
            host: host.to_string(),
            port: Some(port),
            security,
            user: None,
            password: None,
            password_env: None,
            hello_name: None,
            ca_file: None,
            timeout_secs: default_timeout(),
            allow_plaintext_remote: false,
        }
    }

    /// The port, or the usual one for the security mode.
    pub fn effective_port(&self) -> u16 {
        self.port.unwrap_or(match self.security {
            SmtpSecurity::None => 25,
            SmtpSecurity::StartTls => 587,
            SmtpSecurity::Tls => 465,
        })
    }
}

impl fmt::Debug for SmtpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field("password_env", &self.password_env)
            .field("hello_name", &self.hello_name)
            .field("ca_file", &self.ca_file)
            .field("timeout_secs", &self.timeout_secs)
            .field("allow_plaintext_remote", &self.allow_plaintext_remote)
            .finish()
    }
}

/// What can go wrong when sending.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("mail configuration: {0}")]
    Config(String),
    #[error("invalid address {address:?}: {detail}")]
    Address { address: String, detail: String },
    #[error("invalid envelope: {0}")]
    Envelope(String),
    #[error("SMTP: {0}")]
    Smtp(#[from] lettre::transport::smtp::Error),
    #[error("sendmail: {0}")]
    Sendmail(#[from] lettre::transport::sendmail::Error),
}

impl SendError {
    /// True when the same message may go through later: a 4xx answer, a
    /// network failure or timeout, a failing sendmail command. False when the
    /// server rejected it for good (5xx) or the envelope is invalid, and for
    /// configuration problems ([`SendError::is_config`]).
    pub fn is_transient(&self) -> bool {
        match self {
            SendError::Smtp(e) => {
                if e.is_transient() {
                    true
                } else if e.is_permanent() {
                    false
                } else {
                    !self.is_config()
                }
            }
            SendError::Sendmail(_) => true,
            SendError::Config(_) | SendError::Address { .. } | SendError::Envelope(_) => false,
        }
    }

    /// True when the fault is the server's or the settings', not this
    /// message's: a refused login, TLS, a server that cannot be reached or
    /// does not answer. Every other message to the same server would meet
    /// it now, so a deliverer stops trying until its next pass (as
    /// Postfix's queue manager defers a dead destination) rather than
    /// knock on the server once for each mail in the queue.
    pub fn is_server_wide(&self) -> bool {
        match self {
            SendError::Config(_) => true,
            SendError::Smtp(e) => {
                self.is_config()
                    || e.status().is_none()
                    // 421: the service is not available (too many
                    // connections, shutting down): the server says so for
                    // every mail, not this one (issue 52).
                    || e.status().is_some_and(|code| code.to_string() == "421")
            }
            SendError::Address { .. } | SendError::Envelope(_) | SendError::Sendmail(_) => false,
        }
    }

    /// True when the host must fix the settings (wrong credentials, TLS
    /// verification, no usable AUTH mechanism, missing password): the message
    /// itself is fine and should stay queued rather than be marked failed.
    pub fn is_config(&self) -> bool {
        match self {
            SendError::Config(_) => true,
            SendError::Smtp(e) => {
                e.is_tls()
                    || caused_by_tls(e)
                    || e.is_client()
                    // 530 auth required, 534 mechanism too weak, 535 bad credentials,
                    // 538 encryption required.
                    || e.status()
                        .is_some_and(|code| matches!(code.to_string().as_str(), "530" | "534" | "535" | "538"))
            }
            SendError::Address { .. } | SendError::Envelope(_) | SendError::Sendmail(_) => false,
        }
    }
}

/// Does a rustls error (certificate, handshake) sit in the chain? lettre
/// reports those as network errors.
fn caused_by_tls(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.downcast_ref::<rustls::Error>().is_some() {
            return true;
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if io
                .get_ref()
                .is_some_and(|inner| inner.downcast_ref::<rustls::Error>().is_some())
            {
                return true;
            }
        }
        source = err.source();
    }
    false
}

/// The DATA payload as lettre wants it: CRLF line ends (a bare LF is refused
/// by strict servers), and without the final CRLF, which lettre adds itself
/// before the terminating dot. The message then arrives byte for byte.
pub fn smtp_data(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 32);
    let mut prev = 0u8;
    for &b in raw {
        if b == b'\n' && prev != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        prev = b;
    }
    if out.ends_with(b"\r\n") {
        out.truncate(out.len() - 2);
    }
    out
}

/// `MAIL FROM` and `RCPT TO`. An empty `from` is the null sender `<>`.
pub fn envelope(from: &str, to: &[String]) -> Result<Envelope, SendError> {
    let parse = |address: &str| -> Result<Address, SendError> {
        address
            .trim()
            .parse::<Address>()
            .map_err(|e| SendError::Address {
                address: address.to_string(),
                detail: e.to_string(),
            })
    };
    let from = if from.trim().is_empty() {
        None
    } else {
        Some(parse(from)?)
    };
    let to = to.iter().map(|a| parse(a)).collect::<Result<Vec<_>, _>>()?;
    Envelope::new(from, to).map_err(|e| SendError::Envelope(e.to_string()))
}

/// An SMTP connection setup that can be kept and reused (lettre pools the
/// connections).
#[derive(Clone)]
pub struct SmtpSender {
    transport: SmtpTransport,
}

impl SmtpSender {
    pub fn new(cfg: &SmtpConfig) -> Result<Self, SendError> {
        let mut builder =
            SmtpTransport::builder_dangerous(cfg.host.clone()).port(cfg.effective_port());
        if cfg.security != SmtpSecurity::None {
            let mut params = TlsParameters::builder(cfg.host.clone());
            if let Some(path) = &cfg.ca_file {
                let pem = std::fs::read(path)
                    .map_err(|e| SendError::Config(format!("ca_file {}: {e}", path.display())))?;
                let cert = Certificate::from_pem(&pem)
                    .map_err(|e| SendError::Config(format!("ca_file {}: {e}", path.display())))?;
                params = params.add_root_certificate(cert);
            }
            let params = params.build_rustls()?;
            builder = builder.tls(match cfg.security {
                SmtpSecurity::Tls => Tls::Wrapper(params),
                _ => Tls::Required(params),
            });
        }
        if let Some(user) = &cfg.user {
            let password = resolve_password(cfg.password.as_deref(), cfg.password_env.as_deref())
                .map_err(SendError::Config)?
                .ok_or_else(|| {
                    SendError::Config(format!(
                        "no SMTP password for {user} (set password or password_env)"
                    ))
                })?;
            builder = builder.credentials(Credentials::new(user.clone(), password));
        }
        if let Some(name) = &cfg.hello_name {
            builder = builder.hello_name(ClientId::Domain(name.clone()));
        }
        builder = builder.timeout(Some(Duration::from_secs(cfg.timeout_secs.max(1))));
        Ok(SmtpSender {
            transport: builder.build(),
        })
    }

    /// Sends `raw` (a complete RFC 5322 message, CRLF or LF line ends) to `to`.
    pub fn send(&self, from: &str, to: &[String], raw: &[u8]) -> Result<(), SendError> {
        let envelope = envelope(from, to)?;
        self.transport.send_raw(&envelope, &smtp_data(raw))?;
        Ok(())
    }

    /// Connects (and logs in when configured) without sending anything.
    pub fn test_connection(&self) -> Result<bool, SendError> {
        Ok(self.transport.test_connection()?)
    }
}

/// Sends one message over SMTP with a fresh connection.
pub fn send(cfg: &SmtpConfig, from: &str, to: &[String], raw: &[u8]) -> Result<(), SendError> {
    SmtpSender::new(cfg)?.send(from, to, raw)
}

/// Hands one message to a local `sendmail`-compatible program (`path`, for
/// example `/usr/sbin/sendmail`), which is called as `path -i -f FROM -- TO...`
/// with the message on its standard input.
pub fn sendmail(path: &str, from: &str, to: &[String], raw: &[u8]) -> Result<(), SendError> {
    let envelope = envelope(from, to)?;
    SendmailTransport::new_with_command(path).send_raw(&envelope, raw)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_from_toml_with_defaults_and_redacted_debug() {
        let cfg: SmtpConfig = toml::from_str(
            r#"
            host = "smtp.example.org"
            user = "judge@example.org"
            password = "hunter2"
            "#,
        )
        .unwrap();
        assert_eq!(cfg.security, SmtpSecurity::StartTls);
        assert_eq!(cfg.effective_port(), 587);
        let debug = format!("{cfg:?}");
        assert!(!debug.contains("hunter2"), "{debug}");

        let cfg: SmtpConfig = toml::from_str(
            r#"
            host = "smtp.example.org"
            security = "tls"
            "#,
        )
        .unwrap();
        assert_eq!(cfg.effective_port(), 465);
        assert!(toml::from_str::<SmtpConfig>("host = \"h\"\nsecurity = \"ssl\"").is_err());
    }

    #[test]
    fn envelopes() {
        let env = envelope("judge@example.org", &["a@example.org".to_string()]).unwrap();
        assert_eq!(env.from().unwrap().to_string(), "judge@example.org");
        let env = envelope("", &["a@example.org".to_string()]).unwrap();
        assert!(env.from().is_none());
        let err = envelope("judge@example.org", &[]).unwrap_err();
        assert!(!err.is_transient());
        let err = envelope("judge@example.org", &["not an address".to_string()]).unwrap_err();
        assert!(matches!(err, SendError::Address { .. }));
        assert!(!err.is_transient());
        assert!(!err.is_server_wide(), "this mail's own fault");
    }

    #[test]
    fn smtp_data_normalises_line_ends() {
        assert_eq!(smtp_data(b"a\r\nb\r\n"), b"a\r\nb");
        assert_eq!(smtp_data(b"a\nb\n"), b"a\r\nb");
        assert_eq!(smtp_data(b"a\nb"), b"a\r\nb");
        assert_eq!(smtp_data(b"a\n\n"), b"a\r\n");
        assert_eq!(smtp_data(b""), b"");
    }

    #[test]
    fn missing_password_is_config() {
        let mut cfg = SmtpConfig::new("127.0.0.1", 9, SmtpSecurity::None);
        cfg.user = Some("judge".into());
        cfg.password_env = Some("ADJUTANT_TEST_UNSET_VARIABLE_SMTP".into());
        let err = SmtpSender::new(&cfg).err().unwrap();
        assert!(err.is_config() && !err.is_transient(), "{err}");
        assert!(err.is_server_wide(), "every mail would meet it: {err}");
    }

    #[test]
    fn connection_refused_is_transient() {
        let mut cfg = SmtpConfig::new("127.0.0.1", 9, SmtpSecurity::None);
        cfg.timeout_secs = 5;
        let err = send(
            &cfg,
            "judge@example.org",
            &["a@example.org".into()],
            b"Subject: x\r\n\r\nx\r\n",
        )
        .unwrap_err();
        assert!(err.is_transient() && !err.is_config(), "{err}");
        assert!(err.is_server_wide(), "every mail would meet it: {err}");
    }
}
