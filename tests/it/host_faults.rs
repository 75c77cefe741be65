//! The host's path, second round (issue 54; issue 52 item 6): exit codes a
//! service manager understands, answers that keep the seat, a restore of a
//! judge whose database path is absolute, and the CLI's small faults, each
//! tried from outside, by the command line and by mail.

use crate::common::{self, Site};
use crate::host::{edit_config, imap_inbound, site_with_mail, smtp_outbound};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `out` is a refusal for a configuration fault: exit 78 (EX_CONFIG) and
/// one line on standard error holding `needle`.
#[track_caller]
fn assert_config_fault(what: &str, out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(78), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: one line: {err}");
    assert!(err.contains(needle), "{what}: {needle:?} not in {err}");
}

/// `adjutant init DIR`, as the unit's ExecStartPre runs it.
fn init(dir: &Path) -> Output {
    Command::new(common::bin())
        .arg("init")
        .arg(dir)
        .env("ADJUTANT_LOG", "warn")
        .output()
        .unwrap()
}

/// Issue 54 item 1: a typo, a restore without the key, no config at all:
/// every command (the unit's `init` and `serve` among them) exits 78, so
/// `RestartPreventExitStatus=78` stops systemd restarting a judge that
/// can only refuse again.
#[test]
fn every_configuration_fault_exits_78_in_every_command() {
    let site = Site::new();
    site.pegasus_bridge(&[]);
    edit_config(&site, "poll_seconds = 30", "pol_seconds = 30");
    let backup = site.path().join("backup-dir");
    let commands: [&[&str]; 8] = [
        &["serve", "--once"],
        &["serve"],
        &["games"],
        &["doctor"],
        &["outbox"],
        &["pause", "1"],
        &["new-key"],
        &["backup", backup.to_str().unwrap()],
    ];
    for args in commands {
        assert_config_fault(
            &format!("{args:?}"),
            &site.run(args),
            "unknown field `pol_seconds`",
        );
    }
    assert_config_fault("init", &init(site.path()), "unknown field `pol_seconds`");
    // receive keeps its documented 75: the MTA keeps the mail.
    let mut rx = site
        .command(&["receive"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut i = rx.stdin.take().unwrap();
        // receive may refuse the configuration and exit before it reads the
        // mail: the pipe is then closed under the write (a race the MTA
        // meets too; what it reads is the exit status below).
        let written = i.write_all(&common::mail(
            "carol@example.org",
            "judge@localhost",
            "help",
            "typo-receive@example.org",
            "HELP\n",
        ));
        if let Err(e) = written {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    assert_eq!(rx.wait_with_output().unwrap().status.code(), Some(75));
    edit_config(&site, "pol_seconds = 30", "poll_seconds = 30");
    // A restore without the key: the unit's init and serve refuse with 78.
    std::fs::remove_file(site.path().join("adjutant.db.key")).unwrap();
    assert_config_fault(
        "init without the key",
        &init(site.path()),
        "adjutant.db.key",
    );
    assert_config_fault(
        "serve without the key",
        &site.run(&["serve"]),
        "adjutant.db.key",
    );
    assert_config_fault(
        "games without the key",
        &site.run(&["games"]),
        "adjutant.db.key",
    );
    assert!(
        !site.path().join("adjutant.db.key").exists(),
        "a key was made"
    );
    // No config where --config points.
    let out = Command::new(common::bin())
        .arg("--config")
        .arg(site.path().join("nothere.toml"))
        .arg("games")
        .output()
        .unwrap();
    assert_config_fault("no config", &out, "nothere.toml");
}

/// A pipe whose reading end is already closed: what `| head` or `| true`
/// leaves a command writing to.
fn closed_pipe() -> Stdio {
    let (r, w) = std::io::pipe().unwrap();
    drop(r);
    w.into()
}

/// Issue 54 item 11, issue 52 item 6: a listing piped into `head` or
/// `true` ends quietly (no panic, no backtrace), and `receive` with a
/// closed standard output exits 0 once the mail is recorded (not 101,
/// which the MTA would bounce), and still delivers its answer.
#[test]
fn a_closed_standard_output_neither_panics_nor_bounces_a_mail() {
    let site = Site::new();
    site.pegasus_bridge(&[]);
    site.drop_mail(
        "1.pipe",
        &common::mail(
            "carol@example.org",
            "judge@localhost",
            "help",
            "pipe-1@example.org",
            "HELP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let commands: [&[&str]; 7] = [
        &["outbox"],
        &["games"],
        &["log"],
        &["scenarios"],
        &["show", "1"],
        &["export", "1"],
        &["doctor"],
    ];
    for args in commands {
        let out = site
            .command(args)
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
    let sent_before = site.outbox().len();
    let mut rx = site
        .command(&["receive"])
        .stdin(Stdio::piped())
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut i = rx.stdin.take().unwrap();
        i.write_all(&common::mail(
            "dave@example.org",
            "judge@localhost",
            "help",
            "pipe-receive@example.org",
            "HELP\n",
        ))
        .unwrap();
    }
    let out = rx.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(site.ok(&["log"]).contains("pipe-receive@example.org"));
    assert_eq!(
        site.outbox().len(),
        sent_before + 1,
        "the answer was not sent"
    );
}

/// Issue 54 item 6, by real mail: HELP and STATUS mailed to a seat's
/// address are answered with that address as Reply-To, so the player who
/// replies to them still plays his seat.
#[test]
fn help_and_status_answers_keep_the_seats_reply_to() {
    use common::mail_client::{client, inbox, real_server_site, reply_to, serve, text, wait_for};
    if !common::mailserver() {
        return;
    }
    let site = real_server_site(&["alice", "bob"]);
    let alice = common::mail_address("alice");
    let bob = common::mail_address("bob");
    site.new_game(
        "pegasus-bridge",
        &[&format!("allies={alice}"), &format!("axis={bob}")],
        &[],
    );
    let welcome = wait_for(&alice, 1)[0].clone();
    let seat = reply_to(&welcome);
    assert!(seat.contains('+'), "{seat}");
    for (n, command) in [(2, "HELP"), (3, "STATUS")] {
        client(
            &["send", &alice, &seat, &format!("Re: {command}")],
            Some(&format!("{command}\n")),
        );
        let mut got = inbox(&alice);
        for _ in 0..100 {
            serve(&site);
            got = inbox(&alice);
            if got.len() >= n {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let answer = got
            .get(n - 1)
            .unwrap_or_else(|| panic!("no answer to {command}"));
        assert_eq!(
            reply_to(answer),
            seat,
            "{command}'s answer: {}",
            text(answer, "subject")
        );
    }
    // Replying to the STATUS answer reaches the seat: MAP is answered with
    // the board, not with "which game and seat".
    let status = inbox(&alice)[2].clone();
    client(
        &["send", &alice, &reply_to(&status), "Re: map"],
        Some("MAP\n"),
    );
    let mut got = inbox(&alice);
    for _ in 0..100 {
        serve(&site);
        got = inbox(&alice);
        if got.len() >= 4 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let map = got.get(3).expect("an answer to MAP");
    let body = text(map, "body");
    assert!(
        !body.contains("could not tell which game and seat"),
        "{body}"
    );
}

/// Issue 54 item 5: a judge whose config names its database by an
/// absolute path, backed up and restored into a new folder (the old one
/// gone, as on another machine), is the same judge: its games, doctor ok;
/// never a new empty database at the old path.
#[test]
fn a_backup_with_an_absolute_database_path_restores_the_same_judge() {
    use std::os::unix::fs::PermissionsExt;
    let site = Site::new();
    let abs = site.path().join("adjutant.db");
    edit_config(
        &site,
        "database = \"adjutant.db\"",
        &format!("database = \"{}\"", abs.display()),
    );
    site.pegasus_bridge(&[]);
    let games = site.ok(&["games"]);
    let backups = tempfile::tempdir().unwrap();
    let dir = backups.path().join("today");
    let out = site.run(&["backup", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The old judge's folder is gone (another machine).
    let old = site.path().to_path_buf();
    let moved = tempfile::tempdir().unwrap();
    let away = moved.path().join("old");
    std::fs::rename(&old, &away).unwrap();
    // Restored as docs/host.md says: into a new folder of mode 0700.
    let restored = tempfile::tempdir().unwrap();
    std::fs::set_permissions(restored.path(), PermissionsExt::from_mode(0o700)).unwrap();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        std::fs::copy(e.path(), restored.path().join(e.file_name())).unwrap();
    }
    let cfg = restored.path().join("adjutant.toml");
    let run = |args: &[&str]| {
        Command::new(common::bin())
            .arg("--config")
            .arg(&cfg)
            .args(args)
            .env("ADJUTANT_LOG", "warn")
            .output()
            .unwrap()
    };
    let doctor = run(&["doctor"]);
    assert!(doctor.status.success(), "{}", stdout(&doctor));
    assert_eq!(stdout(&run(&["games"])), games);
    assert!(
        !old.exists(),
        "a new database at the old path: {}",
        old.display()
    );
    std::fs::rename(&away, &old).unwrap();
}

/// Issue 54 item 5: a config naming a database that is not there, while
/// its folder holds a judge's key or database (a restore whose config
/// points elsewhere), is refused by init, serve and doctor, and no empty
/// database is made.
#[test]
fn a_missing_database_beside_a_judges_key_is_refused() {
    let site = site_with_mail();
    site.pegasus_bridge(&[]);
    let elsewhere = tempfile::tempdir().unwrap();
    let gone = elsewhere.path().join("srv/adjutant.db");
    edit_config(
        &site,
        "database = \"adjutant.db\"",
        &format!("database = \"{}\"", gone.display()),
    );
    for (what, out) in [
        ("serve --once", site.run(&["serve", "--once"])),
        ("serve", site.run(&["serve"])),
        ("init", init(site.path())),
        ("games", site.run(&["games"])),
    ] {
        assert_config_fault(what, &out, "judge.database");
    }
    let doctor = site.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1), "{}", stdout(&doctor));
    assert!(
        stdout(&doctor).contains("judge.database"),
        "{}",
        stdout(&doctor)
    );
    assert!(!gone.exists(), "an empty database was made");
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 1);
}

/// Issue 54 item 10: doctor lists every fault, the logins included, not
/// only the first kind it meets.
#[test]
fn doctor_lists_every_fault_the_logins_included() {
    let site = Site::new();
    imap_inbound(
        &site,
        "host = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nuser = \"judge\"\npassword_env = \"ADJ_DOCTOR_UNSET\"\n",
    );
    smtp_outbound(
        &site,
        "host = \"127.0.0.1\"\nport = 1\nsecurity = \"none\"\ntimeout_secs = 2\n",
    );
    let out = site
        .command(&["doctor"])
        .env_remove("ADJ_DOCTOR_UNSET")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("ADJ_DOCTOR_UNSET"), "{text}");
    assert!(text.contains("SMTP server 127.0.0.1:1"), "{text}");
}

/// Issue 54 item 3: a `ca_file` the judge's user cannot read (in a folder
/// only root may enter, as /etc/adjutant is) is reported as such, not as
/// missing. Runs the judge as `nobody` (the tests run as root).
#[test]
fn a_ca_file_the_judge_cannot_read_is_named_so() {
    use std::os::unix::fs::{chown, PermissionsExt};
    if !Path::new("/usr/bin/setpriv").exists() || unsafe { libc::geteuid() } != 0 {
        return;
    }
    let site = site_with_mail();
    let secret = site.path().join("etc/adjutant");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("ca.pem"), "not read\n").unwrap();
    imap_inbound(
        &site,
        &format!(
            "host = \"127.0.0.1\"\nport = 1143\ntls = \"starttls\"\nuser = \"judge\"\npassword = \"x\"\nca_file = \"{}\"\n",
            secret.join("ca.pem").display()
        ),
    );
    // Everything but etc/ belongs to nobody, as a dynamic user's folder.
    fn give(p: &Path) {
        chown(p, Some(65534), Some(65534)).unwrap();
        if p.is_dir() {
            for e in std::fs::read_dir(p).unwrap().flatten() {
                if e.file_name() != "etc" {
                    give(&e.path());
                }
            }
        }
    }
    give(site.path());
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o700)).unwrap();
    let as_nobody = |args: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(common::bin())
            .arg("--config")
            .arg(site.config())
            .args(args)
            .env("ADJUTANT_LOG", "warn")
            .output()
            .unwrap()
    };
    let out = as_nobody(&["serve", "--once"]);
    assert_config_fault("serve --once", &out, "cannot read");
    assert!(!stderr(&out).contains("does not exist"), "{}", stderr(&out));
    let doctor = as_nobody(&["doctor"]);
    assert!(
        stdout(&doctor).contains("cannot read"),
        "{}",
        stdout(&doctor)
    );
}

/// Issue 54 item 2: STARTTLS (or plain) asked of a port that speaks
/// implicit TLS, and implicit TLS of a port that greets in plain text:
/// refused at once, naming `tls`/`security` and `port`, not served anyway
/// after a minute's wait.
#[test]
fn a_tls_mode_that_does_not_fit_the_port_is_refused_naming_it() {
    if !common::mailserver() {
        return;
    }
    let judge = common::mail_address("judge");
    let site = site_with_mail();
    imap_inbound(
        &site,
        &format!("host = \"127.0.0.1\"\nport = 1993\ntls = \"starttls\"\nuser = \"{judge}\"\npassword = \"secret\"\ntimeout_secs = 4\n"),
    );
    let started = std::time::Instant::now();
    let out = site.run(&["serve", "--once"]);
    assert_config_fault("IMAP STARTTLS to IMAPS", &out, "tls = \"implicit\"");
    assert!(stderr(&out).contains("port"), "{}", stderr(&out));
    assert!(started.elapsed().as_secs() < 8, "{:?}", started.elapsed());
    assert_eq!(std::fs::read_dir(site.inbox_new()).unwrap().count(), 1);
    let site = site_with_mail();
    smtp_outbound(
        &site,
        &format!("host = \"127.0.0.1\"\nport = 2465\nsecurity = \"starttls\"\nuser = \"{judge}\"\npassword = \"secret\"\ntimeout_secs = 4\n"),
    );
    let out = site.run(&["serve", "--once"]);
    assert_config_fault("SMTP STARTTLS to SMTPS", &out, "security = \"tls\"");
    let site = site_with_mail();
    imap_inbound(
        &site,
        &format!("host = \"127.0.0.1\"\nport = 1143\ntls = \"implicit\"\nuser = \"{judge}\"\npassword = \"secret\"\ntimeout_secs = 4\n"),
    );
    let out = site.run(&["serve", "--once"]);
    assert_config_fault("IMAPS to a STARTTLS port", &out, "tls = \"starttls\"");
}

/// Issue 54 item 8: a host command that mails (`new-game`, `pause`)
/// without the SMTP password changes nothing and exits 78, rather than
/// queue mail that goes out late.
#[test]
fn host_commands_without_the_smtp_password_change_nothing() {
    let site = Site::new();
    site.pegasus_bridge(&[]);
    smtp_outbound(
        &site,
        "host = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"judge\"\npassword_env = \"ADJ_HOSTCMD_UNSET\"\n",
    );
    let games = site.ok(&["games"]);
    let rows = |site: &Site| -> i64 {
        site.db()
            .query_row("SELECT count(*) FROM outbox", [], |r| r.get(0))
            .unwrap()
    };
    let before = rows(&site);
    let run = |args: &[&str]| {
        site.command(args)
            .env_remove("ADJ_HOSTCMD_UNSET")
            .output()
            .unwrap()
    };
    let new_game = run(&[
        "new-game",
        "--scenario",
        "pegasus-bridge",
        "--seat",
        "allies=carol@example.org",
        "--seat",
        "axis=dave@example.org",
    ]);
    assert_config_fault("new-game", &new_game, "ADJ_HOSTCMD_UNSET");
    assert_config_fault("pause", &run(&["pause", "1"]), "ADJ_HOSTCMD_UNSET");
    assert_eq!(site.ok(&["games"]), games, "a game changed");
    assert_eq!(rows(&site), before, "mail was queued");
}

/// Issue 54 item 9: NO_COLOR is honoured on a terminal.
#[test]
fn no_color_is_honoured_on_a_terminal() {
    if !Path::new("/usr/bin/script").exists() {
        return;
    }
    let site = site_with_mail();
    let under_a_terminal = |no_color: Option<&str>| {
        let line = format!(
            "{} --config {} serve --once",
            common::bin(),
            site.config().display()
        );
        let mut c = Command::new("script");
        c.args(["-qec", &line, "/dev/null"])
            .env("ADJUTANT_LOG", "info")
            .env_remove("NO_COLOR");
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        String::from_utf8_lossy(&c.output().unwrap().stdout).into_owned()
    };
    // Coloured on a terminal (so the test can fail) ...
    let coloured = under_a_terminal(None);
    assert!(coloured.contains("\u{1b}["), "{coloured}");
    site.drop_mail(
        "2.color",
        &common::mail(
            "carol@example.org",
            "judge@localhost",
            "help",
            "host-color@example.org",
            "HELP\n",
        ),
    );
    // ... and plain with NO_COLOR.
    let plain = under_a_terminal(Some("1"));
    assert!(plain.contains("INFO"), "{plain}");
    assert!(!plain.contains("\u{1b}["), "{plain:?}");
}

/// Issue 54 item 9: with `--log-format json` every line on standard
/// error parses as JSON, the refusals' included.
#[test]
fn in_json_log_mode_a_refusal_is_a_json_line() {
    let site = site_with_mail();
    edit_config(&site, "poll_seconds = 30", "pol_seconds = 30");
    let out = site
        .command(&["--log-format", "json", "serve", "--once"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(78), "{err}");
    let mut lines = 0;
    for l in err.lines() {
        let v: serde_json::Value =
            serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
        assert_eq!(v["level"], "ERROR", "{l}");
        lines += 1;
    }
    assert_eq!(lines, 1, "{err}");
    assert!(err.contains("pol_seconds"), "{err}");
    // receive's answer to the MTA (75) is said as JSON too.
    let mut rx = site
        .command(&["--log-format", "json", "receive"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut i = rx.stdin.take().unwrap();
        // As above: receive may exit 75 before it reads the mail.
        if let Err(e) = i.write_all(b"From: a@example.org\r\nSubject: x\r\n\r\nHELP\r\n") {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    let out = rx.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(75), "{}", stderr(&out));
    assert!(!stderr(&out).is_empty());
    for l in stderr(&out).lines() {
        serde_json::from_str::<serde_json::Value>(l)
            .unwrap_or_else(|e| panic!("receive: not JSON ({e}): {l}"));
    }
    // A preflight refusal too.
    edit_config(&site, "pol_seconds = 30", "poll_seconds = 30");
    smtp_outbound(
        &site,
        "host = \"127.0.0.1\"\nport = 2525\nsecurity = \"none\"\nuser = \"judge\"\npassword_env = \"ADJ_JSON_UNSET\"\n",
    );
    let out = site
        .command(&["--log-format", "json", "serve", "--once"])
        .env_remove("ADJ_JSON_UNSET")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(78), "{}", stderr(&out));
    for l in stderr(&out).lines() {
        serde_json::from_str::<serde_json::Value>(l)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
    }
}

/// Issue 54 item 12: the small ones.
#[test]
fn the_small_faults_of_the_hosts_path() {
    use std::os::unix::fs::PermissionsExt;
    let site = site_with_mail();
    // A second init (every unit start runs one) prints nothing.
    let again = init(site.path());
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(stdout(&again), "", "init of a judge already there");
    // `receive` says what it did in words, not as a Rust struct.
    let mut rx = site
        .command(&["receive"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        rx.stdin
            .take()
            .unwrap()
            .write_all(&common::mail(
                "carol@example.org",
                "judge@localhost",
                "help",
                "small-receive@example.org",
                "HELP\n",
            ))
            .unwrap();
    }
    let out = rx.wait_with_output().unwrap();
    let said = stdout(&out);
    assert!(out.status.success());
    assert!(
        !said.contains('{') && !said.contains("Handled") && said.contains("answered"),
        "{said}"
    );
    // `backup --help` describes DIR.
    let help = stdout(&site.run(&["backup", "--help"]));
    let described = help
        .split("<DIR>")
        .nth(2)
        .and_then(|after| after.lines().take(2).map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or_else(|| panic!("DIR is not described: {help}"));
    assert!(!described.starts_with("Options"), "{help}");
    // A judge folder others may enter is reported by doctor.
    std::fs::set_permissions(site.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let doctor = stdout(&site.run(&["doctor"]));
    assert!(
        doctor.contains(&format!("chmod 700 {}", site.path().display())),
        "{doctor}"
    );
    std::fs::set_permissions(site.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    // A relative ca_file goes into the backup.
    std::fs::create_dir_all(site.path().join("tls")).unwrap();
    std::fs::write(site.path().join("tls/ca.pem"), "a CA\n").unwrap();
    imap_inbound(
        &site,
        "host = \"127.0.0.1\"\nport = 1\ntls = \"none\"\nuser = \"judge\"\npassword = \"x\"\nca_file = \"tls/ca.pem\"\ntimeout_secs = 2\n",
    );
    smtp_outbound(
        &site,
        "host = \"127.0.0.1\"\nport = 1\nsecurity = \"none\"\ntimeout_secs = 2\n",
    );
    let dir = site.path().join("backups/b");
    site.ok(&["backup", dir.to_str().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(dir.join("tls/ca.pem"))
            .ok()
            .as_deref(),
        Some("a CA\n")
    );
    // The start line names the modes as the config spells them.
    let out = site
        .command(&["serve", "--once"])
        .env("ADJUTANT_LOG", "info")
        .output()
        .unwrap();
    let err = stderr(&out);
    let start = err
        .lines()
        .find(|l| l.contains("Adjutant serving"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(start.contains("tls = \"none\""), "{start}");
    assert!(start.contains("security = \"none\""), "{start}");
    assert!(!start.contains("None"), "{start}");
}

/// Issue 54 item 12: a judge given a mailbox that already holds mail may
/// start from now (`adjutant skip-old-mail`): the mail there is left
/// unanswered, what comes after is answered. By the real IMAP server.
#[test]
fn a_judge_given_an_old_mailbox_may_start_from_now() {
    use common::mail_client::{client, inbox, real_server_site, wait_for};
    if !common::mailserver() {
        return;
    }
    let site = real_server_site(&["alice"]);
    let judge = common::mail_address("judge");
    let alice = common::mail_address("alice");
    for n in 1..=2 {
        client(
            &["send", &alice, &judge, &format!("old {n}")],
            Some("HELP\n"),
        );
    }
    wait_for(&judge, 2);
    let out = site.run(&["skip-old-mail"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("from now"), "{}", stdout(&out));
    client(&["send", &alice, &judge, "new"], Some("HELP\n"));
    wait_for(&judge, 3);
    site.ok(&["serve", "--once"]);
    let log = site.ok(&["log"]);
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains(" new "), "{log}");
    let _ = inbox(&alice);
    // A Maildir judge: the files waiting in new/ are left too.
    let site = site_with_mail();
    site.ok(&["skip-old-mail"]);
    site.ok(&["serve", "--once"]);
    assert_eq!(site.ok(&["log"]), "", "an old mail was handled");
}

/// Issue 54 item 12: a certificate signed by the CA in `ca_file` but not
/// for the host the config names gets the advice to fix `host`, not to
/// set `ca_file` again. The machine's own name (on loopback here) is not
/// in the loopback server's certificate.
#[test]
fn a_certificate_for_another_name_is_not_told_to_set_ca_file() {
    use std::net::ToSocketAddrs;
    if !common::mailserver() {
        return;
    }
    let name = String::from_utf8(Command::new("hostname").output().unwrap().stdout).unwrap();
    let name = name.trim().to_string();
    let on_loopback = (name.as_str(), 1993)
        .to_socket_addrs()
        .is_ok_and(|mut a| a.all(|a| a.ip().is_loopback()));
    if name.is_empty() || !on_loopback {
        return;
    }
    let judge = common::mail_address("judge");
    let site = site_with_mail();
    imap_inbound(
        &site,
        &format!("host = \"{name}\"\nport = 1993\ntls = \"implicit\"\nuser = \"{judge}\"\npassword = \"secret\"\nca_file = \"/tmp/adj-mail/tls/ca.pem\"\ntimeout_secs = 5\n"),
    );
    let out = site.run(&["serve", "--once"]);
    assert_config_fault("IMAP", &out, "set host in [inbound.imap]");
    assert!(!stderr(&out).contains("set ca_file"), "{}", stderr(&out));
    let site = site_with_mail();
    smtp_outbound(
        &site,
        &format!("host = \"{name}\"\nport = 2465\nsecurity = \"tls\"\nuser = \"{judge}\"\npassword = \"secret\"\nca_file = \"/tmp/adj-mail/tls/ca.pem\"\ntimeout_secs = 5\n"),
    );
    let out = site.run(&["serve", "--once"]);
    assert_config_fault("SMTP", &out, "set host in [outbound.smtp]");
    assert!(!stderr(&out).contains("set ca_file"), "{}", stderr(&out));
}
