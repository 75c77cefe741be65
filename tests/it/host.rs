//! The host's path (issue 40, docs/host.md): `serve --once` refuses to
//! start on what cannot work, with one line naming the fix and the
//! database untouched; every config key and environment variable is
//! documented; and scripts/host-check.sh follows docs/host.md against the
//! loopback Postfix + Dovecot.

use crate::common::{self, Site};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Every row of every table, and the key file: what "the database is
/// unchanged" compares (read only, so reading changes nothing).
pub(crate) fn snapshot(site: &Site) -> String {
    use rusqlite::OpenFlags;
    let db = site.path().join("adjutant.db");
    let mut out = String::new();
    let key = site.path().join("adjutant.db.key");
    out.push_str(&format!("key: {:?}\n", std::fs::read(&key).ok()));
    let conn = rusqlite::Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("the database");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(tables.iter().any(|t| t == "games"), "{tables:?}");
    for t in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                (0..n)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap();
        for row in rows {
            out.push_str(&format!("{t}: {}\n", row.unwrap().join(" | ")));
        }
    }
    out
}

/// A judge with a mail waiting in its Maildir (which a start would handle).
pub(crate) fn site_with_mail() -> Site {
    let site = Site::new();
    site.drop_mail(
        "1.host-check",
        &common::mail(
            "carol@example.org",
            "judge@localhost",
            "help",
            "host-waiting@example.org",
            "HELP\n",
        ),
    );
    site
}

/// Replaces `from` (which must be there) with `to` in the site's config.
pub(crate) fn edit_config(site: &Site, from: &str, to: &str) {
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    assert!(cfg.contains(from), "no {from:?} in the config");
    std::fs::write(site.config(), cfg.replacen(from, to, 1)).unwrap();
}

/// Inbound by IMAP with the `table` lines for `[inbound.imap]`.
pub(crate) fn imap_inbound(site: &Site, table: &str) {
    edit_config(site, "kind = \"maildir\"", "kind = \"imap\"");
    edit_config(
        site,
        "# [inbound.imap]",
        &format!("[inbound.imap]\n{table}"),
    );
}

/// Outbound by SMTP with the `table` lines for `[outbound.smtp]`.
pub(crate) fn smtp_outbound(site: &Site, table: &str) {
    edit_config(site, "kind = \"file\"", "kind = \"smtp\"");
    edit_config(
        site,
        "# [outbound.smtp]",
        &format!("[outbound.smtp]\n{table}"),
    );
}

/// `serve --once` with `env` set (and the variables of `unset` removed).
pub(crate) fn serve_once(site: &Site, env: &[(&str, &str)], unset: &[&str]) -> Output {
    let mut c = site.command(&["serve", "--once"]);
    for (k, v) in env {
        c.env(k, v);
    }
    for k in unset {
        c.env_remove(k);
    }
    c.output().unwrap()
}

/// `serve --once` refuses: exit 78, one line on stderr holding every one
/// of `fix`, the database and the waiting mail untouched.
pub(crate) fn assert_refused(
    site: &Site,
    env: &[(&str, &str)],
    unset: &[&str],
    fix: &[&str],
) -> String {
    let before = snapshot(site);
    let waiting = std::fs::read_dir(site.inbox_new()).unwrap().count();
    let out = serve_once(site, env, unset);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(78), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(lines[0].starts_with("adjutant: "), "{stderr}");
    for f in fix {
        assert!(lines[0].contains(f), "{f:?} not in: {stderr}");
    }
    assert_eq!(snapshot(site), before, "the database changed");
    assert_eq!(
        std::fs::read_dir(site.inbox_new()).unwrap().count(),
        waiting,
        "a waiting mail was touched"
    );
    lines[0].to_string()
}

#[test]
fn a_missing_password_variable_refuses_the_start() {
    let site = site_with_mail();
    imap_inbound(
        &site,
        "host = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nuser = \"judge@adjutant.test\"\npassword_env = \"ADJ_HOST_TEST_UNSET\"\n",
    );
    assert_refused(
        &site,
        &[],
        &["ADJ_HOST_TEST_UNSET"],
        &["[inbound.imap]", "ADJ_HOST_TEST_UNSET", "not set", "export"],
    );
    // The same for SMTP's.
    let site = site_with_mail();
    smtp_outbound(
        &site,
        "host = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"judge@adjutant.test\"\npassword_env = \"ADJ_HOST_TEST_UNSET\"\n",
    );
    assert_refused(
        &site,
        &[],
        &["ADJ_HOST_TEST_UNSET"],
        &["[outbound.smtp]", "ADJ_HOST_TEST_UNSET", "not set"],
    );
}

#[test]
fn a_missing_ca_file_refuses_the_start() {
    let site = site_with_mail();
    imap_inbound(
        &site,
        "host = \"127.0.0.1\"\nport = 1143\ntls = \"starttls\"\nuser = \"judge@adjutant.test\"\npassword_env = \"ADJ_HOST_TEST_PW\"\nca_file = \"tls/ca.pem\"\n",
    );
    // A relative ca_file is from the config's folder, and named so.
    let line = assert_refused(
        &site,
        &[("ADJ_HOST_TEST_PW", "secret")],
        &[],
        &["ca_file", "does not exist", "PEM file of the CA"],
    );
    let expected = site.path().join("tls/ca.pem");
    assert!(line.contains(&expected.display().to_string()), "{line}");
}

#[test]
fn plaintext_to_a_host_off_loopback_refuses_the_start() {
    let site = site_with_mail();
    smtp_outbound(
        &site,
        "host = \"192.0.2.25\"\nport = 25\nsecurity = \"none\"\ntimeout_secs = 2\n",
    );
    assert_refused(
        &site,
        &[],
        &[],
        &[
            "[outbound.smtp]",
            "192.0.2.25",
            "not on loopback",
            "security = \"starttls\"",
        ],
    );
    let site = site_with_mail();
    imap_inbound(
        &site,
        "host = \"192.0.2.25\"\ntls = \"none\"\nuser = \"judge\"\npassword_env = \"ADJ_HOST_TEST_PW\"\n",
    );
    assert_refused(
        &site,
        &[("ADJ_HOST_TEST_PW", "x")],
        &[],
        &[
            "[inbound.imap]",
            "tls = \"starttls\"",
            "allow_plaintext_remote",
        ],
    );
    // Plaintext to loopback starts (the relay's absence is only logged: it
    // may come back), and the waiting mail is answered.
    let site = site_with_mail();
    smtp_outbound(
        &site,
        "host = \"127.0.0.1\"\nport = 1\nsecurity = \"none\"\ntimeout_secs = 2\n",
    );
    let out = serve_once(&site, &[], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
}

#[test]
fn a_missing_key_with_games_refuses_the_start_and_makes_no_key() {
    let site = site_with_mail();
    site.pegasus_bridge(&[]);
    let key = site.path().join("adjutant.db.key");
    let saved = std::fs::read(&key).unwrap();
    std::fs::remove_file(&key).unwrap();
    assert_refused(
        &site,
        &[],
        &[],
        &[
            "adjutant.db.key",
            "missing",
            "1 games",
            "restore it from your backup",
        ],
    );
    assert!(!key.exists(), "a new key was made");
    // Nor does a read-only command make one.
    let out = site.run(&["games"]);
    assert!(!out.status.success());
    assert!(!key.exists(), "`games` made a new key");
    // The key put back, the judge starts and answers.
    std::fs::write(&key, saved).unwrap();
    site.ok(&["serve", "--once"]);
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 0);
}

#[test]
fn a_second_judge_on_the_same_database_is_refused() {
    let site = Site::new();
    site.pegasus_bridge(&[]);
    let mut first = site
        .command(&["serve"])
        .env("ADJUTANT_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It holds the lock once it says where mail comes from.
    let mut err = std::io::BufReader::new(first.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        let n = std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        assert!(n > 0, "the first judge ended before serving");
        if line.contains("Adjutant serving") {
            break;
        }
    }
    // Keep reading its log so it never blocks on a full pipe.
    let drain = std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let before = snapshot(&site);
    let fix = [
        "another `adjutant serve` runs on",
        "adjutant.db.lock",
        "stop the other one first",
    ];
    // Not while the first judge runs; CLI reads go on as ever.
    let out = site.run(&["serve", "--once"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for f in fix {
        assert!(stderr.contains(f), "{f:?} not in {stderr}");
    }
    let second = site.run(&["serve"]);
    assert_eq!(second.status.code(), Some(78));
    assert!(site.ok(&["games"]).contains("pegasus-bridge"));
    assert_eq!(snapshot(&site), before, "the database changed");
    assert!(common::terminate(&mut first).success());
    drain.join().unwrap().unwrap();
    // Once the first judge has stopped, the lock is free again; two
    // `serve --once` side by side share it.
    let a = site
        .command(&["serve", "--once"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let b = site.command(&["serve", "--once"]).output().unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    assert!(a.wait_with_output().unwrap().status.success());
}

/// Run under the loopback mail server (skipped without it, but not under CI).
#[test]
fn an_untrusted_certificate_refuses_the_start() {
    if !common::mailserver() {
        return;
    }
    let judge = common::mail_address("judge");
    let site = site_with_mail();
    imap_inbound(
        &site,
        &format!("host = \"127.0.0.1\"\nport = 1143\ntls = \"starttls\"\nuser = \"{judge}\"\npassword_env = \"ADJ_HOST_TEST_PW\"\ntimeout_secs = 10\n"),
    );
    assert_refused(
        &site,
        &[("ADJ_HOST_TEST_PW", "secret")],
        &[],
        &[
            "IMAP server 127.0.0.1:1143",
            "not signed by a CA the judge trusts",
            "set ca_file in [inbound.imap]",
        ],
    );
    // doctor says the same (and exits 1).
    let doctor = site
        .command(&["doctor"])
        .env("ADJ_HOST_TEST_PW", "secret")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1), "{text}");
    assert!(text.contains("set ca_file in [inbound.imap]"), "{text}");
    let site = site_with_mail();
    smtp_outbound(
        &site,
        &format!("host = \"127.0.0.1\"\nport = 2525\nsecurity = \"starttls\"\nuser = \"{judge}\"\npassword_env = \"ADJ_HOST_TEST_PW\"\ntimeout_secs = 10\n"),
    );
    assert_refused(
        &site,
        &[("ADJ_HOST_TEST_PW", "secret")],
        &[],
        &[
            "SMTP server 127.0.0.1:2525",
            "set ca_file in [outbound.smtp]",
        ],
    );
}

/// The `KEY =` lines of each `[table]` of the init template (commented
/// or not).
fn template_has(key: &str) -> bool {
    let (table, leaf) = key.rsplit_once('.').unwrap();
    let mut current = String::new();
    for line in adjutant::config::DEFAULT_TOML.lines() {
        let l = line.trim_start_matches('#').trim();
        if let Some(t) = l.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = t.to_string();
        } else if current == table && l.starts_with(&format!("{leaf} =")) {
            return true;
        }
    }
    false
}

/// The environment variables the code reads: `env::var("X")`,
/// `var_os("X")`, clap's `env = "X"` and tracing's `from_env("X")`, in
/// src/ and crates/*/src (unit tests left out).
fn variables_read() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    for e in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        if e.path().join("src").is_dir() {
            walk(&e.path().join("src"), &mut files);
        }
    }
    let mut vars = std::collections::BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        for pat in ["env::var(\"", "var_os(\"", "env = \"", "from_env(\""] {
            for (i, _) in code.match_indices(pat) {
                let rest = &code[i + pat.len()..];
                let name = &rest[..rest.find('"').unwrap()];
                if name.chars().all(|c| c.is_ascii_uppercase() || c == '_') && !name.is_empty() {
                    vars.insert(name.to_string());
                }
            }
        }
    }
    vars.into_iter().collect()
}

#[test]
fn every_config_key_and_variable_is_in_docs_host_md() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/host.md"))
        .unwrap();
    let keys = adjutant::config::keys();
    assert!(keys.len() > 30, "{keys:?}");
    let undocumented: Vec<&String> = keys
        .iter()
        .filter(|k| !docs.contains(&format!("`{k}`")))
        .collect();
    assert!(
        undocumented.is_empty(),
        "not in docs/host.md: {undocumented:?}"
    );
    let untemplated: Vec<&String> = keys.iter().filter(|k| !template_has(k)).collect();
    assert!(
        untemplated.is_empty(),
        "not in the init template: {untemplated:?}"
    );
    let vars = variables_read();
    for v in ["ADJUTANT_CONFIG", "ADJUTANT_LOG", "ADJUTANT_NOW"] {
        assert!(vars.iter().any(|x| x == v), "the scan missed {v}: {vars:?}");
    }
    let undocumented: Vec<&String> = vars
        .iter()
        .filter(|v| !docs.contains(&format!("`{v}`")))
        .collect();
    assert!(
        undocumented.is_empty(),
        "not in docs/host.md: {undocumented:?}"
    );
}

#[test]
fn a_typo_in_a_key_is_refused_with_line_and_column() {
    let site = Site::new();
    edit_config(&site, "poll_seconds = 30", "pol_seconds = 30");
    let out = site.run(&["serve", "--once"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    let line = format!("{}:", site.config().display());
    assert!(stderr.contains(&line), "{stderr}");
    assert!(stderr.contains("unknown field `pol_seconds`"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// scripts/host-check.sh: docs/host.md followed literally against the
/// loopback Postfix + Dovecot with its private CA.
#[test]
fn the_documented_path_works_against_a_real_server() {
    if !common::mailserver() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(root.join("scripts/host-check.sh"))
        .arg(work.path())
        .env("ADJUTANT", common::bin())
        .env("JUDGE_USER", common::mail_user("judge"))
        .env("ALICE_USER", common::mail_user("alice"))
        .env("BOB_USER", common::mail_user("bob"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scripts/host-check.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `adjutant backup DIR`: database, key and config, private, in a new
/// folder; a copy restored elsewhere is the same judge; a folder that is
/// not empty is refused; `new-key` makes a key only where none is.
#[test]
fn backup_restores_the_same_judge_and_new_key_never_replaces_one() {
    use std::os::unix::fs::PermissionsExt;
    let site = Site::new();
    site.pegasus_bridge(&[]);
    let dir = site.path().join("backups/today");
    let out = site.ok(&["backup", dir.to_str().unwrap()]);
    assert_eq!(out.lines().count(), 3, "{out}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    for f in ["adjutant.db", "adjutant.db.key", "adjutant.toml"] {
        assert_eq!(mode(&dir.join(f)), 0o600, "{f}");
    }
    let again = site.run(&["backup", dir.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
    // Restored into a new folder: the same games, the same reply tokens.
    let restored = tempfile::tempdir().unwrap();
    for f in ["adjutant.db", "adjutant.db.key", "adjutant.toml"] {
        std::fs::copy(dir.join(f), restored.path().join(f)).unwrap();
    }
    let cfg = restored.path().join("adjutant.toml");
    let run = |args: &[&str]| {
        Command::new(common::bin())
            .arg("--config")
            .arg(&cfg)
            .args(args)
            .output()
            .unwrap()
    };
    let games = |o: Output| String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(games(run(&["games"])), site.ok(&["games"]));
    let key = |dir: &Path| std::fs::read(dir.join("adjutant.db.key")).unwrap();
    assert_eq!(key(restored.path()), key(site.path()));
    // new-key: refused while a key is there; without one, a new key.
    let refused = run(&["new-key"]);
    assert!(!refused.status.success());
    assert_eq!(key(restored.path()), key(site.path()));
    std::fs::remove_file(restored.path().join("adjutant.db.key")).unwrap();
    assert!(
        !run(&["games"]).status.success(),
        "a games list without the key"
    );
    assert!(run(&["new-key"]).status.success());
    assert_ne!(key(restored.path()), key(site.path()));
    assert!(run(&["games"]).status.success());
}
