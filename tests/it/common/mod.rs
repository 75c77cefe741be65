//! Helpers for tests that run the real `adjutant` binary in a temp dir.
#![allow(dead_code)]

pub mod chromium;
pub mod depth;
pub mod fog;
pub mod mail_client;
pub mod measured_mail;
pub mod memoir_mail;
pub mod smtp_recorder;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Sends SIGTERM to a running judge and waits for it to exit.
pub fn terminate(child: &mut std::process::Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    child.wait().unwrap()
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_adjutant")
}

/// A judge initialised in a fresh temporary directory.
pub struct Site {
    pub dir: tempfile::TempDir,
}

impl Site {
    pub fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(bin())
            .arg("init")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "init failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Site { dir }
    }
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
    pub fn config(&self) -> PathBuf {
        self.path().join("adjutant.toml")
    }
    /// The CLI on this site's configuration, quiet but for warnings.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.arg("--config")
            .arg(self.config())
            .args(args)
            .env("ADJUTANT_LOG", "warn");
        c
    }
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
    /// Run the CLI with its clock set to `now` (RFC 3339); its output.
    pub fn at(&self, now: &str, args: &[&str]) -> String {
        let out = self
            .command(args)
            .env("ADJUTANT_NOW", now)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?} at {now}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    pub fn ok(&self, args: &[&str]) -> String {
        self.ok_with(args, &[])
    }
    /// [`Site::ok`] with the environment variables `envs` set.
    pub fn ok_with(&self, args: &[&str], envs: &[(&str, &str)]) -> String {
        let mut c = self.command(args);
        c.envs(envs.iter().copied());
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "adjutant {args:?} failed ({:?}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    pub fn inbox_new(&self) -> PathBuf {
        self.path().join("mail/inbox/new")
    }
    pub fn inbox_cur(&self) -> PathBuf {
        self.path().join("mail/inbox/cur")
    }
    pub fn drop_mail(&self, name: &str, raw: &[u8]) {
        let tmp = self.path().join("mail/inbox/tmp").join(name);
        std::fs::write(&tmp, raw).unwrap();
        std::fs::rename(&tmp, self.inbox_new().join(name)).unwrap();
    }
    /// The sent mails, by file name order, as (name, text).
    pub fn outbox(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = std::fs::read_dir(self.path().join("mail/outbox"))
            .unwrap()
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".eml").then(|| {
                    (
                        name,
                        String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned(),
                    )
                })
            })
            .collect();
        v.sort();
        v
    }
    /// The HTML part of the first sent mail (by file name order) whose
    /// text `pick` accepts; `what` names it when there is none.
    pub fn html_mail(&self, what: &str, pick: impl Fn(&str) -> bool) -> String {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.path().join("mail/outbox"))
            .unwrap()
            .filter_map(|e| Some(e.ok()?.path()))
            .collect();
        files.sort();
        let raw = files
            .iter()
            .filter_map(|f| std::fs::read(f).ok())
            .find(|r| pick(&String::from_utf8_lossy(r)))
            .unwrap_or_else(|| panic!("no {what} in the outbox"));
        let msg = mail_parser::MessageParser::default()
            .parse(&raw)
            .expect("a mail");
        msg.body_html(0).expect("an HTML part").into_owned()
    }
    /// Export game 1 (with the `extra` options) to a file and verify the
    /// file: what `verify` says.
    pub fn export_and_verify(&self, extra: &[&str]) -> String {
        let export = self.path().join("export.json");
        let export = export.to_str().unwrap();
        let mut args = vec!["export", "1"];
        args.extend(extra);
        args.extend(["--output", export]);
        self.ok(&args);
        self.ok(&["verify", export])
    }
    /// The sent mails' texts, decoded, by file name order.
    pub fn mails(&self) -> Vec<String> {
        self.outbox().into_iter().map(|(_, t)| unqp(&t)).collect()
    }
    /// A new game of `scenario` with the `seats` (`side=address`) and the
    /// `extra` options of `new-game`; what it prints (the game's number).
    pub fn new_game(&self, scenario: &str, seats: &[&str], extra: &[&str]) -> String {
        self.ok(&new_game_args(scenario, seats, extra))
    }
    /// [`Site::new_game`] with the game's secret seed derived from `seed`
    /// (`ADJUTANT_SEED`, read by development builds only): the same game,
    /// its judge's own opening phase included, every run.
    pub fn new_game_seeded(
        &self,
        scenario: &str,
        seats: &[&str],
        extra: &[&str],
        seed: &str,
    ) -> String {
        self.ok_with(
            &new_game_args(scenario, seats, extra),
            &[("ADJUTANT_SEED", seed)],
        )
    }
    /// A new game of Pegasus Bridge, alice@example.org the Allies and
    /// bob@example.org the Axis, with the `extra` options of `new-game`.
    pub fn pegasus_bridge(&self, extra: &[&str]) -> String {
        self.new_game(
            "pegasus-bridge",
            &["allies=alice@example.org", "axis=bob@example.org"],
            extra,
        )
    }
    /// The same game made with the CLI's clock at `now` (RFC 3339).
    pub fn pegasus_bridge_at(&self, now: &str, extra: &[&str]) -> String {
        let mut args = vec![
            "new-game",
            "--scenario",
            "pegasus-bridge",
            "--seat",
            "allies=alice@example.org",
            "--seat",
            "axis=bob@example.org",
        ];
        args.extend(extra);
        self.at(now, &args)
    }
    /// The outbox's rows by status: (pending, sent, dead).
    pub fn outbox_statuses(&self) -> (i64, i64, i64) {
        let db = self.db();
        let n = |s: &str| -> i64 {
            db.query_row("SELECT count(*) FROM outbox WHERE status = ?1", [s], |r| {
                r.get(0)
            })
            .unwrap()
        };
        (n("pending"), n("sent"), n("dead"))
    }
    /// How many outgoing mails are not sent.
    pub fn unsent(&self) -> i64 {
        self.db()
            .query_row(
                "SELECT count(*) FROM outbox WHERE status != 'sent'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    }
    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.path().join("adjutant.db")).unwrap()
    }
    /// The first shipped scenario and its two sides.
    pub fn scenario(&self) -> String {
        let out = self.ok(&["scenarios"]);
        out.lines()
            .next()
            .expect("a shipped scenario")
            .trim()
            .to_string()
    }
}

/// Set the host's default picture of the board (`png`, `svg`, `both`,
/// `none`; issue 37) in `site`'s config.
pub fn set_picture(site: &Site, kind: &str) {
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    assert!(
        cfg.contains("picture = \"png\""),
        "the shipped default is png"
    );
    std::fs::write(
        site.config(),
        cfg.replace("picture = \"png\"", &format!("picture = \"{kind}\"")),
    )
    .unwrap();
}

/// A judge initialised as [`Site::new`] whose host draws the board as SVG,
/// not PNG: for tests of what the mails and the records say (campaigns,
/// records, deadlines, teams, exports) that read no picture. Rasterising
/// the PNG of every report was much of their CPU; the PNG is the picture
/// tests' (picture_mail, presentation, browser, the golden corpus).
pub fn svg_site() -> Site {
    let site = Site::new();
    set_picture(&site, "svg");
    site
}

/// A plain mail.
pub fn mail(from: &str, to: &str, subject: &str, msgid: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{msgid}>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

/// Decode a quoted-printable body well enough for assertions.
pub fn unqp(s: &str) -> String {
    let s = s.replace("=\r\n", "").replace("=\n", "");
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'=' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).replace("\r\n", "\n")
}

/// How many sets of accounts scripts/mailserver.sh makes (its `SLOTS`).
pub const SLOTS: usize = 16;

/// The tests that use the loopback mail server run side by side, each with
/// its own set of accounts: `t<k>-judge`, `t<k>-alice`, ... for its slot
/// `k` (1..=SLOTS), so that no test empties or counts another's mailbox.
/// (tests/it/mailserver.rs uses the unnumbered accounts, with a unique
/// message id per test.) A test thread takes a free slot at its first
/// `mail_client::client`, `mail_user` or `use_real_server` call and gives it back when
/// the thread (the test) ends; when all are taken, it waits for one.
pub fn mail_slot() -> usize {
    use std::sync::{Condvar, Mutex};
    static FREE: Mutex<[bool; SLOTS]> = Mutex::new([true; SLOTS]);
    static RELEASED: Condvar = Condvar::new();
    // The slot's lock file: held while the slot is, so that two test
    // processes on one machine (two worktrees, or `cargo test` beside a
    // probe) never share a slot's mailboxes either.
    struct Held(usize, #[allow(dead_code)] std::fs::File);
    impl Drop for Held {
        fn drop(&mut self) {
            let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
            free[self.0 - 1] = true;
            RELEASED.notify_all();
        }
    }
    fn claim(i: usize) -> Option<std::fs::File> {
        let dir = Path::new("/tmp/adj-mail-slots");
        std::fs::create_dir_all(dir).ok()?;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(format!("{}.lock", i + 1)))
            .ok()?;
        f.try_lock().ok()?;
        Some(f)
    }
    thread_local! {
        static HELD: std::cell::OnceCell<Held> = const { std::cell::OnceCell::new() };
    }
    HELD.with(|held| {
        held.get_or_init(|| {
            let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                for (i, slot_free) in free.iter_mut().enumerate() {
                    if *slot_free {
                        if let Some(file) = claim(i) {
                            *slot_free = false;
                            return Held(i + 1, file);
                        }
                    }
                }
                // Every slot is taken here or by another process: wait for
                // one of ours, or look again shortly for another's.
                free = RELEASED
                    .wait_timeout(free, std::time::Duration::from_millis(200))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        })
        .0
    })
}

/// This test's mailbox name for one of the accounts `judge`, `alice`, `bob`,
/// `carol` or `referee` (see `mail_slot`).
pub fn mail_user(name: &str) -> String {
    assert!(
        ["judge", "alice", "bob", "carol", "referee"].contains(&name),
        "no account {name} on the test mail server"
    );
    format!("t{}-{name}", mail_slot())
}

/// This test's address of `name` (see `mail_user`) at adjutant.test.
pub fn mail_address(name: &str) -> String {
    format!("{}@adjutant.test", mail_user(name))
}

/// The loopback mail server of `scripts/mailserver.sh`, started on first use.
/// Returns false (the test skips) when its packages are not installed, except
/// under CI (`CI=true`), where a missing server is a failure.
pub fn mailserver() -> bool {
    use std::sync::Mutex;
    static LOCK: Mutex<Option<bool>> = Mutex::new(None);
    let mut guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(up) = *guard {
        return up;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("scripts/mailserver.sh");
    let dir = "/tmp/adj-mail";
    // Before looking at the server: a watcher of an earlier run that is
    // stopping it holds this lock alone until the server is down.
    hold_mailserver_users_lock();
    let status = Command::new("bash")
        .arg(&script)
        .args(["status", dir])
        .output();
    let up = if status.map(|o| o.status.success()).unwrap_or(false) {
        true
    } else if Path::new("/usr/sbin/postfix").exists() && Path::new("/usr/sbin/dovecot").exists() {
        let out = Command::new("bash")
            .arg(&script)
            .args(["start", dir])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripts/mailserver.sh start failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // This run started it: it stops it when the last test process
        // using it has ended (a server started by hand is left alone).
        std::fs::write(Path::new(dir).join(STARTED_BY_TESTS), b"").unwrap();
        true
    } else {
        assert!(
            std::env::var("CI").is_err(),
            "CI: the mail server is not installed; .ci/run must run scripts/mailserver.sh install"
        );
        println!(
            "skipped: the loopback mail server is not installed (scripts/mailserver.sh install)"
        );
        false
    };
    if up {
        watch_until_this_process_ends(&script, dir);
    }
    *guard = Some(up);
    up
}

/// Every test process that uses the loopback mail server holds a shared
/// lock on this file for its whole life.
const MAILSERVER_USERS_LOCK: &str = "/tmp/adj-mail-users.lock";

/// In the mail server's folder when a test run started the server (issue
/// 59: a newcomer's `cargo test` must not leave two mail daemons running).
const STARTED_BY_TESTS: &str = "started-by-tests";

fn hold_mailserver_users_lock() {
    static HELD: std::sync::OnceLock<std::fs::File> = std::sync::OnceLock::new();
    HELD.get_or_init(|| {
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(MAILSERVER_USERS_LOCK)
            .unwrap();
        f.lock_shared().unwrap();
        f
    });
}

/// A watcher, outliving this test process: it waits for the users' lock
/// alone (every test process holds it shared until it ends, when the kernel
/// lets it go), then, if a test run started the server, stops it. Run after
/// run, nothing is left behind; two runs side by side share the server until
/// the last one ends. It waits on the lock itself, not on this process's
/// id and then a lock taken without waiting: a CI run once left the server
/// running (its cause unseen; with pid_max 32768 and thousands of processes
/// a run, ids come round again), and a wait on the lock has no id to mistake
/// and no moment to miss. What it did goes to DIR/log/watcher.log.
fn watch_until_this_process_ends(script: &Path, dir: &str) {
    let watcher = r#"
pid=$1 lock=$2 script=$3 dir=$4 marker=$5
log="$dir/log/watcher.log"
say() { echo "$(date '+%F %T') watcher of $pid: $*" >>"$log" 2>/dev/null || true; }
exec 9>>"$lock"
say "waiting for the users' lock"
if flock -x -w 86400 9; then
    if [ -f "$dir/$marker" ]; then
        if bash "$script" stop "$dir" >>"$log" 2>&1; then say "stopped the server"; else say "stop failed ($?)"; fi
        rm -f "$dir/$marker"
    else
        say "no $marker: the server is not this run's (or is stopped already)"
    fi
else
    say "gave up waiting for the lock"
fi
"#;
    let spawned = Command::new("setsid")
        .args(["bash", "-c", watcher, "watcher"])
        .arg(std::process::id().to_string())
        .arg(MAILSERVER_USERS_LOCK)
        .arg(script)
        .arg(dir)
        .arg(STARTED_BY_TESTS)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        println!("the mail server's watcher did not start ({e}): it stays up after this run");
    }
}

/// The reply address (judge+TOKEN@...) of the newest mail to `who` that has one.
pub fn reply_address(site: &Site, who: &str) -> String {
    let t = site
        .outbox()
        .into_iter()
        .map(|(_, t)| unqp(&t))
        .rev()
        .find(|t| t.contains(&format!("To: {who}")) && t.contains("\nReply-To: "))
        .expect("a mail with a Reply-To");
    let line = t.lines().find(|l| l.starts_with("Reply-To: ")).unwrap();
    line.rsplit('<')
        .next()
        .unwrap()
        .trim_end_matches('>')
        .to_string()
}

/// The latest Memoir '44 state of game 1.
pub fn latest_state(site: &Site) -> adjutant::rules::memoir44::State {
    let text: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots WHERE game_id = 1 ORDER BY turn DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every line of the plain-text part of every mail in the outbox is at most
/// 80 columns (headers and other parts excepted).
pub fn assert_80_columns(site: &Site) {
    for (name, raw) in site.outbox() {
        let raw = raw.replace("\r\n", "\n");
        // The plain part: from the first text/plain header block to the next
        // boundary, decoded only if it is quoted-printable (a 7bit body may
        // end a line with '=', which is text, not a soft line break).
        let Some(start) = raw.find("Content-Type: text/plain") else {
            continue;
        };
        let Some(head_len) = raw[start..].find("\n\n") else {
            continue;
        };
        // The whole header block the Content-Type is in (the transfer
        // encoding may come before it).
        let block_start = raw[..start].rfind("\n\n").map_or(0, |i| i + 2);
        let head = &raw[block_start..start + head_len];
        let rest = &raw[start + head_len + 2..];
        let end = rest.find("\n--").unwrap_or(rest.len());
        let body = if head.to_ascii_lowercase().contains("quoted-printable") {
            unqp(&rest[..end])
        } else {
            rest[..end].to_string()
        };
        for line in body.lines() {
            assert!(
                line.chars().count() <= 80,
                "{name}: a line of {} columns:\n{line}",
                line.chars().count()
            );
        }
    }
}

/// Play `turns` turns of game 1 through `adjutant submit`, each side sending
/// random legal orders drawn from `seed`; fewer if the game ends first.
/// Returns the turns played.
pub fn submit_random_turns(site: &Site, turns: usize, seed: u8) -> usize {
    use adjutant::engine::dice::ChaChaDice;
    use adjutant::rules::memoir44;
    let rules = memoir44::Ruleset::builtin().unwrap();
    let mut rng = ChaChaDice::from_seed([seed; 32]);
    let file = site.path().join("random-orders.txt");
    for played in 0..turns {
        let state = latest_state(site);
        // The game's own dice (a new seed each game) may end it early.
        let Some(side) = memoir44::waiting(&state).sides.first().cloned() else {
            return played;
        };
        std::fs::write(
            &file,
            memoir44::random_orders(&rules, &state, &side, &mut rng),
        )
        .unwrap();
        site.ok(&["submit", "1", &side, file.to_str().unwrap()]);
    }
    turns
}

/// A 32-byte seed from up to four numbers (little-endian, the rest zero):
/// the property tests' seeded runs.
pub fn seed_from(parts: &[u64]) -> [u8; 32] {
    let mut s = [0u8; 32];
    for (i, p) in parts.iter().enumerate().take(4) {
        s[i * 8..i * 8 + 8].copy_from_slice(&p.to_le_bytes());
    }
    s
}

/// A mail's first `To` address ("" when it has none).
pub fn first_to<'m>(msg: &'m mail_parser::Message<'_>) -> &'m str {
    msg.to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or("")
}

/// `new-game`'s arguments for `scenario`, its `seats` (`side=address`) and
/// the `extra` options.
fn new_game_args<'a>(scenario: &'a str, seats: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["new-game", "--scenario", scenario];
    for seat in seats {
        args.extend(["--seat", seat]);
    }
    args.extend(extra);
    args
}

/// A mail but for its MIME boundaries (random, drawn as it is composed):
/// each named by its order.
pub fn without_boundaries(text: &str) -> String {
    let mut text = text.to_string();
    let marks: Vec<String> = text
        .split("boundary=\"")
        .skip(1)
        .filter_map(|t| t.split('"').next().map(str::to_string))
        .collect();
    for (n, m) in marks.iter().enumerate() {
        text = text.replace(m.as_str(), &format!("BOUNDARY-{n}"));
    }
    text
}

/// A sent mail but for its MIME boundaries and the fresh passwords a
/// status answer gives (random, as they should be).
pub fn plain(text: &str) -> String {
    without_boundaries(text)
        .lines()
        .map(|l| match l.split_once("PASSWORD ") {
            Some((head, _)) => format!("{head}PASSWORD ?"),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
