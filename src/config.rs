//! `adjutant.toml`: validated once, at the edge.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The commented default written by `adjutant init`.
pub const DEFAULT_TOML: &str = r#"# Adjutant configuration. Paths are relative to this file's folder.

[judge]
# The address players write to. Every mail the judge sends comes from it, and
# replies go to a per-seat form of it (judge+TOKEN@example.org), so the mail
# server must deliver plus-addressed mail to this mailbox.
address = "judge@localhost"
# The name shown in From:.
name = "Adjutant"
# The SQLite database holding every game's whole history (back it up: see docs/host.md).
database = "adjutant.db"
# Mails larger than this are refused with a reply, not read (10 MB: room for
# orders sent from a phone with a photo attached, which the judge skips).
max_message_bytes = 10000000
# Seconds between polls of the mailbox when running `adjutant serve`.
poll_seconds = 30
# The picture of the board in a report until a seat chooses with PICTURE:
# png (an inline PNG every mail client shows), svg (inline SVG: smaller, but
# Gmail and Outlook drop it), both (PNG, and the SVG attached) or none.
picture = "png"

[limits]
# Every answer the judge sends to a mail (receipts, replies, error answers,
# notices) counts against these caps; a mail over a cap is still handled
# (orders are kept) but not answered, and the log says so. One mail gets
# at most one answer, whatever it asks.
# Answers one address may get in an hour (the first mail over it is told so, once).
answers_per_address_hour = 60
# Answers one address may get in a day.
answers_per_address_day = 300
# Error answers one address may get in a day (a mail-loop brake).
error_answers_per_address_day = 10
# Answers to everyone together, an hour and a day (a brake on a runaway
# judge; set them above your busiest hour: every receipt counts).
answers_per_hour = 10000
answers_per_day = 100000
# Commands one mail may give; more are listed as not done.
commands_per_mail = 10
# The largest text attachment read (bytes), and the deepest nesting of MIME
# parts; a mail over either (or over judge.max_message_bytes) is not read,
# is logged, and its sender is told the limit once.
max_attachment_bytes = 500000
max_mime_depth = 10

[standings]
# Addresses left out of the club's standings (`adjutant standings` and the
# STANDINGS mail command; a player may ask with PRIVATE). Their games still
# count for their opponents.
leave_out = []

[inbound]
# maildir (the default: a local Maildir, e.g. fed by your MTA), imap, or none
# (none: mail comes only through `adjutant receive`).
kind = "maildir"
maildir = "mail/inbox"
# For kind = "imap", uncomment:
# [inbound.imap]
# host = "imap.example.org"
# port = 993                  # default: 993 for implicit TLS, 143 otherwise
# tls = "implicit"            # implicit | starttls | none (none only on loopback)
# user = "judge@example.org"
# password_env = "ADJUTANT_IMAP_PASSWORD"   # the variable holding the password
# password = "..."            # the password itself (doctor warns: prefer password_env)
# mailbox = "INBOX"
# ca_file = "tls/ca.pem"      # a private CA's PEM (relative: from this folder)
# timeout_secs = 60           # connect, read and write timeout
# allow_plaintext_remote = false   # tls = "none" to a host off loopback
# idle = true                 # wait in IMAP IDLE where offered; false: poll only

[outbound]
# file (the default: one .eml per sent message in `dir`), smtp, or sendmail
kind = "file"
dir = "mail/outbox"
# Hours a delivered mail's bytes stay in the database (to look at or resend
# one); its row (recipient, kind, Message-ID, times) stays for ever. 0 drops
# them at delivery: they carry the seat's reply token and sometimes a fresh
# secret, which the database otherwise never holds (docs/host.md).
keep_sent_hours = 0
# Days a mail is retried while the mail server is unreachable or refuses the
# judge's login (every hour at most, after a back-off from two minutes); only
# then, or when the recipient's server refuses the mail, is it given up as
# dead. `adjutant outbox` lists the queue; `adjutant outbox retry` puts dead
# mail back.
retry_days = 7
# For kind = "sendmail":
# command = "/usr/sbin/sendmail"
# For kind = "smtp", uncomment:
# [outbound.smtp]
# host = "smtp.example.org"
# port = 587
# security = "starttls"       # starttls | tls | none (none only on loopback)
# user = "judge@example.org"   # log in with AUTH (no user: no login)
# password_env = "ADJUTANT_SMTP_PASSWORD"
# password = "..."            # the password itself (doctor warns: prefer password_env)
# hello_name = "judge.example.org"   # the EHLO name (default: this machine's)
# ca_file = "tls/ca.pem"      # a private CA's PEM (relative: from this folder)
# timeout_secs = 60
# allow_plaintext_remote = false   # security = "none" to a host off loopback
"#;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub judge: JudgeConfig,
    #[serde(default)]
    pub limits: LimitsConfig,
    #[serde(default)]
    pub inbound: InboundConfig,
    #[serde(default)]
    pub outbound: OutboundConfig,
    #[serde(default)]
    pub standings: StandingsConfig,
    /// The folder the config file is in; relative paths resolve against it.
    #[serde(skip)]
    pub base: PathBuf,
}

/// The club's standings (`[standings]`, docs/standings.md).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StandingsConfig {
    /// Addresses not listed (their games still count for their opponents).
    pub leave_out: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JudgeConfig {
    pub address: String,
    pub name: String,
    pub database: String,
    pub max_message_bytes: usize,
    pub poll_seconds: u64,
    /// What a seat's mails show of the board until it sends PICTURE:
    /// `png` (the default), `svg`, `both` or `none` (docs/reports.md).
    pub picture: crate::report::picture::Picture,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig {
            address: "judge@localhost".into(),
            name: "Adjutant".into(),
            database: "adjutant.db".into(),
            max_message_bytes: 10_000_000,
            poll_seconds: 30,
            picture: crate::report::picture::Picture::Png,
        }
    }
}

/// Caps on what the judge sends and reads (`[limits]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    pub answers_per_address_hour: i64,
    pub answers_per_address_day: i64,
    pub error_answers_per_address_day: i64,
    pub answers_per_hour: i64,
    pub answers_per_day: i64,
    pub commands_per_mail: usize,
    pub max_attachment_bytes: usize,
    pub max_mime_depth: usize,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            answers_per_address_hour: 60,
            answers_per_address_day: 300,
            error_answers_per_address_day: crate::service::MAX_ERROR_REPLIES_A_DAY,
            answers_per_hour: 10_000,
            answers_per_day: 100_000,
            commands_per_mail: 10,
            max_attachment_bytes: 500_000,
            max_mime_depth: 10,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InboundConfig {
    pub kind: String,
    pub maildir: String,
    pub imap: Option<crate::mail::imap::ImapConfig>,
}

impl Default for InboundConfig {
    fn default() -> Self {
        InboundConfig {
            kind: "maildir".into(),
            maildir: "mail/inbox".into(),
            imap: None,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutboundConfig {
    pub kind: String,
    pub dir: String,
    pub command: String,
    pub smtp: Option<crate::mail::smtp::SmtpConfig>,
    /// Hours a delivered mail's bytes are kept (0: dropped at delivery).
    pub keep_sent_hours: u32,
    /// Days a mail whose delivery fails for a reason that may pass (the
    /// server unreachable, a wrong password, TLS) is retried before it is
    /// given up as dead (`adjutant outbox retry` puts it back).
    pub retry_days: u32,
}

impl Default for OutboundConfig {
    fn default() -> Self {
        OutboundConfig {
            kind: "file".into(),
            dir: "mail/outbox".into(),
            command: "/usr/sbin/sendmail".into(),
            smtp: None,
            keep_sent_hours: 0,
            retry_days: 7,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{0}: {1}")]
    Invalid(String, String),
}

/// 1-based line and column of a byte offset.
pub use crate::rules::line_col;

impl Config {
    /// Read and validate a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read(path.into(), e))?;
        let mut cfg = Self::parse(&text, &path.display().to_string())?;
        cfg.base = path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        // A relative ca_file is from the config's folder, as every path.
        let base = cfg.base.clone();
        let resolve = |p: &mut Option<PathBuf>| {
            if let Some(rel) = p.as_mut().filter(|p| p.is_relative()) {
                *rel = base.join(&*rel);
            }
        };
        if let Some(i) = cfg.inbound.imap.as_mut() {
            resolve(&mut i.ca_file);
        }
        if let Some(s) = cfg.outbound.smtp.as_mut() {
            resolve(&mut s.ca_file);
        }
        Ok(cfg)
    }

    /// Parse config text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
            ConfigError::Syntax {
                file: file.into(),
                line,
                column,
                message: e.message().to_string(),
            }
        })?;
        let bad = |what: &str| Err(ConfigError::Invalid(file.into(), what.into()));
        if !cfg.judge.address.contains('@') {
            return bad("judge.address must be an email address");
        }
        if !["maildir", "imap", "none"].contains(&cfg.inbound.kind.as_str()) {
            return bad("inbound.kind must be maildir, imap or none");
        }
        if !["file", "smtp", "sendmail"].contains(&cfg.outbound.kind.as_str()) {
            return bad("outbound.kind must be file, smtp or sendmail");
        }
        if cfg.inbound.kind == "imap" && cfg.inbound.imap.is_none() {
            return bad(
                "inbound.kind = \"imap\" needs an [inbound.imap] table (host, user, password_env)",
            );
        }
        if cfg.outbound.kind == "smtp" && cfg.outbound.smtp.is_none() {
            return bad(
                "outbound.kind = \"smtp\" needs an [outbound.smtp] table (host, port, security)",
            );
        }
        Ok(cfg)
    }

    #[must_use]
    pub fn path(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
    #[must_use]
    pub fn database_path(&self) -> PathBuf {
        self.path(&self.judge.database)
    }
    #[must_use]
    pub fn maildir(&self) -> PathBuf {
        self.path(&self.inbound.maildir)
    }
    #[must_use]
    pub fn outbox_dir(&self) -> PathBuf {
        self.path(&self.outbound.dir)
    }
    /// Where mail really comes from and goes to, for the start-up line:
    /// `(inbound, outbound)`.
    #[must_use]
    pub fn describe_mail(&self) -> (String, String) {
        let port = |p: Option<u16>| p.map_or(String::new(), |p| format!(":{p}"));
        let inbound = match (self.inbound.kind.as_str(), &self.inbound.imap) {
            ("imap", Some(i)) => format!(
                "IMAP {} at {}{} mailbox {} (tls = \"{}\")",
                i.user,
                i.host,
                port(i.port),
                i.mailbox,
                match i.tls {
                    crate::mail::imap::ImapTls::Implicit => "implicit",
                    crate::mail::imap::ImapTls::StartTls => "starttls",
                    crate::mail::imap::ImapTls::None => "none",
                }
            ),
            ("maildir", _) => format!("the Maildir {}/new", self.maildir().display()),
            _ => "only `adjutant receive` (standard input)".to_string(),
        };
        let outbound = match (self.outbound.kind.as_str(), &self.outbound.smtp) {
            ("smtp", Some(s)) => format!(
                "SMTP {}{} (security = \"{}\")",
                s.host,
                port(s.port),
                match s.security {
                    crate::mail::smtp::SmtpSecurity::Tls => "tls",
                    crate::mail::smtp::SmtpSecurity::StartTls => "starttls",
                    crate::mail::smtp::SmtpSecurity::None => "none",
                }
            ),
            ("sendmail", _) => format!("the program {}", self.outbound.command),
            _ => format!("files in {}", self.outbox_dir().display()),
        };
        (inbound, outbound)
    }

    /// The domain of the judge's address.
    #[must_use]
    pub fn domain(&self) -> &str {
        self.judge.address.rsplit('@').next().unwrap_or("localhost")
    }
    /// The local part of the judge's address.
    #[must_use]
    pub fn local_part(&self) -> &str {
        self.judge.address.split('@').next().unwrap_or("judge")
    }
}

/// Every key of `adjutant.toml`, dotted (`judge.address`,
/// `inbound.imap.ca_file`), read from the structs' own serde field lists,
/// so it cannot drift from what the parser accepts (every other key is
/// refused with its line and column). docs/host.md lists each one (a test
/// checks it).
#[must_use]
pub fn keys() -> Vec<String> {
    let mut out = Vec::new();
    let mut section = |prefix: &str, fields: &[&str], nested: &[&str]| {
        for f in fields {
            if !nested.contains(f) {
                out.push(format!("{prefix}.{f}"));
            }
        }
    };
    section("judge", &fields_of::<JudgeConfig>(), &[]);
    section("limits", &fields_of::<LimitsConfig>(), &[]);
    section("standings", &fields_of::<StandingsConfig>(), &[]);
    section("inbound", &fields_of::<InboundConfig>(), &["imap"]);
    section(
        "inbound.imap",
        &fields_of::<crate::mail::imap::ImapConfig>(),
        &[],
    );
    section("outbound", &fields_of::<OutboundConfig>(), &["smtp"]);
    section(
        "outbound.smtp",
        &fields_of::<crate::mail::smtp::SmtpConfig>(),
        &[],
    );
    out
}

/// The field names serde's derive gives a struct (after renames, without
/// skipped fields): a deserializer that asks for nothing but them.
fn fields_of<'de, T: Deserialize<'de>>() -> Vec<&'static str> {
    use serde::de::{self, Visitor};
    struct Capture(Vec<&'static str>);
    impl<'de> de::Deserializer<'de> for &mut Capture {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.extend_from_slice(fields);
            Err(de::Error::custom("fields captured"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut c = Capture(Vec::new());
    let _ = T::deserialize(&mut c);
    c.0
}

/// What `adjutant doctor` warns about: the judge's files that others on the
/// host can read (the database holds every seat's credentials, the config
/// may hold passwords, the outbox holds players' mail), and passwords
/// written in the config instead of `password_env`.
#[must_use]
pub fn doctor(cfg: &Config, config_path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    // The judge's folder first: a restore copied in with `cp` or made by
    // `mkdir` under a 022 umask is 0755, and others may then list it.
    let folder = config_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut files: Vec<PathBuf> = vec![folder.to_path_buf(), config_path.to_path_buf()];
    let db = cfg.database_path();
    for suffix in ["", "-wal", "-shm", "-journal", ".key"] {
        let mut p = db.clone().into_os_string();
        p.push(suffix);
        files.push(PathBuf::from(p));
    }
    let mut dirs = vec![cfg.outbox_dir()];
    if cfg.inbound.kind == "maildir" {
        for sub in ["new", "cur", "tmp"] {
            dirs.push(cfg.maildir().join(sub));
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // A folder others cannot enter keeps its mails private whatever
        // their modes; one they can enter is checked mail by mail.
        for dir in &dirs {
            let Ok(meta) = std::fs::metadata(dir) else {
                continue;
            };
            files.push(dir.clone());
            if meta.permissions().mode() & 0o011 == 0 {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(dir) {
                let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                names.sort();
                files.extend(names);
            }
        }
        for f in &files {
            let Ok(meta) = std::fs::metadata(f) else {
                continue;
            };
            let mode = meta.permissions().mode() & 0o777;
            let open = if meta.is_dir() { 0o055 } else { 0o044 };
            if mode & open != 0 {
                out.push(format!(
                    "{} is readable by others (mode {mode:04o}): chmod {} {}",
                    f.display(),
                    if meta.is_dir() { "700" } else { "600" },
                    f.display()
                ));
            }
        }
    }
    let imap = cfg
        .inbound
        .imap
        .as_ref()
        .is_some_and(|i| i.password.is_some());
    let smtp = cfg
        .outbound
        .smtp
        .as_ref()
        .is_some_and(|s| s.password.is_some());
    for (yes, table, var) in [
        (imap, "[inbound.imap]", "ADJUTANT_IMAP_PASSWORD"),
        (smtp, "[outbound.smtp]", "ADJUTANT_SMTP_PASSWORD"),
    ] {
        if yes {
            out.push(format!(
                "{}: {table} holds a password; set password_env = \"{var}\" and put the password in that environment variable",
                config_path.display()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_file_parses() {
        let c = Config::parse(DEFAULT_TOML, "adjutant.toml").unwrap();
        assert_eq!(c.inbound.kind, "maildir");
        assert_eq!(c.outbound.kind, "file");
        assert_eq!(c.domain(), "localhost");
    }

    #[test]
    fn keys_come_from_the_structs() {
        let keys = keys();
        for k in [
            "judge.address",
            "limits.max_mime_depth",
            "inbound.kind",
            "inbound.imap.ca_file",
            "outbound.smtp.hello_name",
            "outbound.retry_days",
        ] {
            assert!(keys.iter().any(|x| x == k), "{k} not in {keys:?}");
        }
        assert!(!keys
            .iter()
            .any(|x| x == "inbound.imap" || x.ends_with(".base")));
    }

    #[test]
    fn a_relative_ca_file_is_from_the_configs_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("adjutant.toml");
        std::fs::write(
            &path,
            "[inbound]\nkind = \"imap\"\n[inbound.imap]\nhost = \"h\"\nuser = \"u\"\nca_file = \"tls/ca.pem\"\n",
        )
        .unwrap();
        let cfg = Config::load(&path).unwrap();
        assert_eq!(
            cfg.inbound.imap.unwrap().ca_file.unwrap(),
            dir.path().join("tls/ca.pem")
        );
    }

    #[test]
    fn a_typo_in_a_nested_table_is_named_with_line_and_column() {
        let e = Config::parse(
            "[inbound]\nkind = \"imap\"\n[inbound.imap]\nhost = \"h\"\nuser = \"u\"\n  pasword_env = \"X\"\n",
            "x.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("x.toml:6:3: unknown field `pasword_env`"),
            "{e}"
        );
    }

    #[test]
    fn errors_carry_line_and_column() {
        let e = Config::parse("[judge]\naddress = \"a@b\"\nbogus = 1\n", "x.toml").unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("x.toml:3:1:"), "{s}");
        let e = Config::parse("[outbound]\nkind = \"pigeon\"\n", "x.toml").unwrap_err();
        assert!(e.to_string().contains("outbound.kind"));
        let e = Config::parse("[inbound]\nkind = \"imap\"\n", "x.toml").unwrap_err();
        assert!(e.to_string().contains("[inbound.imap]"));
        let ok = Config::parse(
            "[inbound]\nkind = \"imap\"\n[inbound.imap]\nhost = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nuser = \"judge\"\npassword = \"x\"\n",
            "x.toml",
        )
        .unwrap();
        assert_eq!(ok.inbound.imap.unwrap().port, Some(1143));
    }
}
