//! The `adjutant` command line: a thin shell over the library.

use adjutant::config::{self, Config};
use adjutant::daemon;
use adjutant::rules::Load;
use adjutant::rules::{Rules, Viewer};
use adjutant::service::deadlines::ClockBy;
use adjutant::service::{clock, export, parse_duration, Judge};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

// Every print of the CLI goes through `out`: a standard output that is a
// closed pipe (`adjutant outbox | head`, `receive` under an MTA that shut
// its end) is not a panic (exit 101 and a backtrace) but the end of the
// listing; the command goes on and exits as it would have (issue 54).
macro_rules! println {
    () => {
        $crate::out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::out(format_args!($($arg)*))
    };
}

/// A write to standard output that failed for another reason than a
/// closed pipe (a full disk under `export > file`): said once at exit.
static STDOUT_FAILED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Writes to standard output; a closed pipe is ignored (the reader has
/// what it wanted), any other failure remembered for the exit code.
fn out(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|()| o.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            let _ = STDOUT_FAILED.set(e.to_string());
        }
    }
}

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "adjutant",
    version,
    about = "A play-by-email judge for wargames"
)]
struct Cli {
    /// The configuration file (default: ./adjutant.toml).
    #[arg(long, global = true, env = "ADJUTANT_CONFIG")]
    config: Option<PathBuf>,
    /// The log's format on standard error: text, or json (one object a
    /// line, for log collectors; docs/host.md).
    #[arg(
        long,
        global = true,
        env = "ADJUTANT_LOG_FORMAT",
        value_enum,
        default_value_t
    )]
    log_format: adjutant::logging::LogFormat,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum CampaignCmd {
    /// Start a campaign: its battles in order, its players, and the options
    /// every battle is created with.
    New {
        name: String,
        /// A scenario id or file, once per battle in order.
        #[arg(long = "scenario", required_unless_present = "file")]
        scenarios: Vec<String>,
        /// A campaign file (docs/campaigns.md) in place of --scenario:
        /// --player then binds its roles, ROLE=EMAIL.
        #[arg(long, conflicts_with = "scenarios")]
        file: Option<PathBuf>,
        /// SIDE=EMAIL, once per side (ROLE=EMAIL with --file).
        #[arg(long = "player", required = true)]
        players: Vec<String>,
        #[arg(long)]
        deadline: Option<String>,
        #[arg(long, default_value = "wait")]
        nmr: String,
        #[arg(long)]
        referee: Option<String>,
        /// SIDE=ZONE (or referee=ZONE): the time zone deadlines are shown
        /// in, from the first battle; each player's own TIMEZONE carries on.
        #[arg(long = "tz")]
        zones: Vec<String>,
        /// Create every battle now (no pre-battle dice between them).
        #[arg(long)]
        all_at_once: bool,
    },
    /// Every campaign and how far it is.
    List,
    /// A campaign's battles and standings.
    Show { name: String },
    /// Go on with a stopped campaign (its next battle could not be created)
    /// once the cause is mended: create that battle now.
    Resume { name: String },
    /// A whole campaign as JSON (every battle's export).
    Export {
        name: String,
        #[arg(long)]
        include_seed: bool,
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct NewGameArgs {
    #[arg(long)]
    scenario: String,
    /// SIDE=EMAIL, once per side (EMAIL `open`: a seat anyone may JOIN;
    /// `judge`: the judge plays it, as --ai SIDE).
    #[arg(long = "seat")]
    seats: Vec<String>,
    /// The judge plays this side (a practice game, docs/general.md).
    #[arg(long = "ai")]
    ai: Vec<String>,
    /// The time each turn may take, e.g. 72h or 3d.
    #[arg(long)]
    deadline: Option<String>,
    /// On a missed deadline: wait (the default), pass, or ai (the judge
    /// plays the side's turn).
    #[arg(long, default_value = "wait")]
    nmr: String,
    /// Extra time after a deadline before the NMR policy applies, e.g. 12h.
    #[arg(long)]
    grace: Option<String>,
    /// The referee's address, told when a player keeps missing deadlines.
    #[arg(long)]
    referee: Option<String>,
    /// Missed deadlines in a row before the referee is told.
    #[arg(long, default_value_t = 2)]
    referee_after: i64,
    /// SIDE=ZONE (or referee=ZONE): the time zone deadlines are shown in.
    #[arg(long = "tz")]
    zones: Vec<String>,
    /// A house-rule variant of the ruleset (a copy of rulesets/*.toml, edited).
    #[arg(long)]
    ruleset: Option<PathBuf>,
    /// An observer's address (repeatable): every turn, as the public sees it.
    #[arg(long = "observer")]
    observers: Vec<String>,
    /// A rule option of the game's family, KEY=VALUE or KEY (= true); repeatable.
    #[arg(long = "option")]
    rule_options: Vec<String>,
    /// A Kriegspiel (fog of war) game: the option `kriegspiel`; needs --referee.
    #[arg(long)]
    kriegspiel: bool,
    /// Review mode: each phase's results go to the referee first and reach
    /// the players on APPROVE or after this long (e.g. 24h); needs --referee.
    #[arg(long)]
    review: Option<String>,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per run
enum Cmd {
    /// Create DIR/adjutant.toml, the database and the local Maildir and outbox.
    Init { dir: PathBuf },
    /// Run the judge: read mail, adjudicate, send replies.
    Serve {
        /// Handle what is waiting, deliver the outbox, and exit (for cron).
        #[arg(long)]
        once: bool,
    },
    /// Handle one message read from standard input (for an MTA pipe).
    Receive,
    /// Start from now with a mailbox that already holds mail: every
    /// message in it now is left unanswered (IMAP: the judge's place is
    /// moved past them; Maildir: new/ is moved to cur/ unread), and only
    /// mail that arrives later is read. Run it before the first `serve`.
    SkipOldMail,
    /// Make a new credentials key for a database whose key is lost for
    /// good: every seat's secret and reply token change (players get new
    /// ones by mailing STATUS; or `rotate-secret`). Never replaces a key.
    NewKey,
    /// Back up the judge while it runs: the database (an online copy), its
    /// key and the config, into the new folder DIR, readable by the owner
    /// only (docs/host.md, "Backups" says how to restore).
    Backup {
        /// The folder to write: a new one (or empty), e.g.
        /// /backups/adjutant-2026-11-27.
        dir: PathBuf,
    },
    /// Create a game and mail every seat a welcome.
    NewGame(NewGameArgs),
    /// Referee: release the results held for review.
    Approve { game: i64 },
    /// Referee: correct the position (docs/referee.md), e.g.
    /// `amend 3 --reason "rolled twice" "UNIT F5 FIGURES 2"`.
    Amend {
        game: i64,
        #[arg(long)]
        reason: String,
        /// Correction lines.
        #[arg(required = true)]
        fix: Vec<String>,
    },
    /// Referee: a message to every player of a game.
    Broadcast { game: i64, text: String },
    /// Referee: both boards to every player.
    Reveal { game: i64 },
    /// Stop a game's deadline clock (holidays); `resume` restarts it.
    Pause { game: i64 },
    /// Restart a paused game's clock with a full turn's time.
    Resume { game: i64 },
    /// Move a game's current deadline by a duration, e.g. 24h.
    Extend { game: i64, by: String },
    /// Give a seat a new secret and reply token, mailed to its player; the
    /// old ones stop working at once. SIDE `referee` rotates the referee's.
    RotateSecret {
        game: i64,
        side: String,
        /// A team member's address: his seat instead of the side's first.
        #[arg(long)]
        member: Option<String>,
    },
    /// Hand a seat to another player (a new secret goes to the new address);
    /// `referee` as the side hands the referee's desk.
    ReplaceSeat {
        game: i64,
        side: String,
        /// The new player's address (or --ai).
        #[arg(required_unless_present = "ai")]
        email: Option<String>,
        /// The judge plays the seat (a caretaker, docs/general.md) until
        /// replace-seat hands it to a player again.
        #[arg(long, conflicts_with = "email")]
        ai: bool,
        /// The player to replace, by his address: a team's Field Marshal or
        /// its Commander-in-Chief (the default).
        #[arg(long)]
        old: Option<String>,
    },
    /// List the games.
    Games,
    /// Print a game's position.
    Show {
        game: i64,
        /// A past turn (0 is the opening position).
        #[arg(long)]
        turn: Option<u32>,
        /// Whose view: a side id or `referee` (the default).
        #[arg(long = "as")]
        viewer: Option<String>,
        /// text, compact (40 columns), svg, png (the board as mails show it), html or json.
        #[arg(long, default_value = "text")]
        format: String,
    },
    /// A game's replay as one self-contained HTML file (docs/replay.md):
    /// every turn as the viewer saw it, to step through in a browser.
    Replay {
        game: i64,
        /// Whose view: a side id, `observer` or `referee` (the default).
        #[arg(long = "as")]
        viewer: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Enter a side's orders from a file (`-` for standard input), as if mailed.
    Submit {
        game: i64,
        side: String,
        orders: PathBuf,
    },
    /// PREDICT: print the odds of a side's orders from a file (`-` for
    /// standard input), as the PREDICT mail answers them; nothing is played.
    Predict {
        game: i64,
        side: String,
        orders: PathBuf,
    },
    /// Write a game as JSON, for players to `verify`. While the game runs,
    /// the seed is left out and events private to one side (cards drawn,
    /// hands) are hidden; --include-seed (the host's backup) or --referee
    /// keeps them: such a file is not for players.
    Export {
        game: i64,
        #[arg(long)]
        include_seed: bool,
        /// The referee's (or host's) export: every private event, no seed.
        #[arg(long)]
        referee: bool,
        /// Write to this file instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Replay an export (a game's or a campaign's) and report any
    /// difference (exit 1 if one).
    Verify { export: PathBuf },
    /// The judge's general against the random-order player, a side that
    /// passes, or itself (docs/general.md): games of one scenario, the
    /// general taking each side in turn.
    Duel {
        /// A shipped scenario id or a scenario file.
        #[arg(long)]
        scenario: String,
        #[arg(long, default_value_t = 10)]
        games: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// random, pass or ai.
        #[arg(long, default_value = "random")]
        against: String,
    },
    /// The club's standings over every finished game (docs/standings.md).
    Standings {
        /// As JSON (every number), not as text.
        #[arg(long)]
        json: bool,
    },
    /// Campaigns: series of battles with the same players (docs/campaigns.md).
    #[command(subcommand)]
    Campaign(CampaignCmd),
    /// The inbox log: every message received and what was done with it.
    Log,
    /// The outbox: every mail queued, its state, attempts and last error;
    /// `outbox retry ID` or `outbox retry --dead` puts dead mail back.
    Outbox {
        #[command(subcommand)]
        action: Option<OutboxCmd>,
    },
    /// Check the judge's files and config for what a host should fix:
    /// files others can read (the database holds the games' seeds),
    /// passwords written in the config instead of `password_env`, password
    /// variables not set, a missing `ca_file`, plaintext off loopback, a
    /// key missing while the database holds games, and a login to the
    /// IMAP and SMTP servers. Exit 1 if any.
    Doctor,
    /// List the shipped scenarios.
    Scenarios,
    /// Check a scenario file (a club's own) and print its position, or its
    /// mistakes with line and column.
    CheckScenario { file: PathBuf },
    /// Check a ruleset file (a club's house-rule variant): mistakes with line and column.
    CheckRuleset { file: PathBuf },
    /// Check a campaign file (docs/campaigns.md): its battles, or its
    /// mistakes with line and column.
    CheckCampaign { file: PathBuf },
    /// Run rules test vectors (case files) and report PASS/FAIL for each.
    CheckCase {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// "allies", "an observer", "the referee": whose view `show --as` drew.
fn viewer_name(v: &Viewer) -> String {
    match v {
        Viewer::Side(s) => s.clone(),
        Viewer::Observer => "an observer".into(),
        Viewer::Referee => "the referee".into(),
        Viewer::Revealed(_) => "everyone, as the referee reveals it".into(),
    }
}

/// Every file the judge creates (database, WAL/SHM, config, outbox mails,
/// exports) holds secrets or players' mail: make it readable by the owner
/// only, or stricter if the host's umask already is.
fn private_umask() {
    #[cfg(unix)]
    // SAFETY: umask(2) only sets the process's file-mode mask; it cannot fail
    // and touches no memory. Called first thing, before any thread starts.
    unsafe {
        let old = libc::umask(0o077);
        libc::umask(old | 0o077);
    }
}

/// SQLite allocates through the C library's malloc (the Rust side uses
/// mimalloc). glibc gives memory back to the system whenever the top of
/// its heap is free, and takes it again at the next allocation: on the
/// mail path that is page faults and TLB flushes across the threads for
/// every transaction (about a tenth of the CPU of a big pass,
/// docs/performance.md). Keep up to 32 MB of free heap instead.
fn keep_c_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) only sets a tuning parameter of glibc's
    // allocator; called first thing, before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 32 << 20);
    }
}

/// mimalloc (the Rust side's allocator) keeps what is freed: freed pages
/// are given back to the system a second later (its `purge_delay`), and
/// its arenas are marked for transparent huge pages, so that a page of
/// 4 KB touched holds 2 MB. A delivery pass frees a board picture's buffers
/// many times a second, so both held the peak RSS of a pass over distinct
/// board pictures at 106-122 MB where its heap is under 30 MB
/// (docs/performance.md, issue 57). Freed pages go back at once, and the
/// process uses no huge pages. (mimalloc is also built with its `no_thp`
/// feature, Cargo.toml: it sets the same flag when it starts, before
/// `main`, and never asks for huge pages; the 400-mail PNG pass's peak fell
/// a further 68.5-69.6 -> 65.4-66.1 MB with it, as with the environment's
/// `MIMALLOC_ALLOW_THP=0`.)
fn give_memory_back() {
    // mimalloc's `mi_option_purge_delay` (15 in both v2's and v3's
    // `mi_option_t`, include/mimalloc.h): the milliseconds before freed
    // memory is given back; 0 gives it back at once.
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    // SAFETY: mi_option_set only stores an option's value (an atomic store
    // in mimalloc's option table); mimalloc is linked as the global
    // allocator, so the symbol is there.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) PR_SET_THP_DISABLE only sets a flag of this process
    // (no huge pages on its next faults, whatever madvise asked); it reads
    // no memory of ours. Called first thing, before any thread starts.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() {
    private_umask();
    keep_c_heap();
    give_memory_back();
    let cli = Cli::parse();
    adjutant::logging::init(cli.log_format);
    let receiving = matches!(cli.command, Cmd::Receive);
    let code = match run(cli) {
        Ok(code) => code,
        // The reader of our output went away (`show 1 --format png | true`).
        Err(e) if broken_pipe(&e) => 0,
        Err(e) => {
            adjutant::logging::refuse(&format!("{e:#}"));
            if config_fault(&e) {
                adjutant::preflight::EX_CONFIG
            } else {
                2
            }
        }
    };
    // `receive`'s answer to the MTA is whether the mail was recorded, not
    // whether its report line could be printed.
    if let (Some(why), false) = (STDOUT_FAILED.get(), receiving) {
        adjutant::logging::refuse(&format!("cannot write to standard output: {why}"));
        std::process::exit(if code == 0 { 1 } else { code });
    }
    std::process::exit(code);
}

/// A fault of the host's configuration, which no retry mends: the config
/// (a typo, a value, no file), a refused setting (src/preflight.rs), the
/// credentials key missing beside a database with games. Exit 78
/// (EX_CONFIG), which `RestartPreventExitStatus=78` keeps systemd from
/// restarting in a loop (docs/host.md, "Before it starts").
fn config_fault(e: &anyhow::Error) -> bool {
    use adjutant::store::StoreError;
    let key = |s: Option<&StoreError>| matches!(s, Some(StoreError::KeyMissing { .. }));
    e.chain().any(|c| {
        c.is::<adjutant::config::ConfigError>()
            || c.is::<adjutant::preflight::Refused>()
            || key(c.downcast_ref::<StoreError>())
            || matches!(
                c.downcast_ref::<adjutant::service::ServiceError>(),
                Some(adjutant::service::ServiceError::Store(s)) if key(Some(s))
            )
            || matches!(
                c.downcast_ref::<adjutant::backup::BackupError>(),
                Some(adjutant::backup::BackupError::Store(s)) if key(Some(s))
            )
    })
}

/// The error is standard output closed under us.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Write the default configuration and create the embedded mailbox; true
/// when the config was written now (a judge already there: false).
/// `private`: a new judge's folder is made 0700 (`adjutant init DIR`; not
/// the current directory `serve` initialises by default, which is the
/// host's own and which doctor then reports if others may enter it).
fn init(dir: &Path, private: bool) -> Result<(PathBuf, bool)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("adjutant.toml");
    let new = !path.exists();
    if new {
        // A new judge's folder is its own: readable by its owner only,
        // like every file in it (a folder made by `mkdir` is 0755).
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .with_context(|| format!("making {} private", dir.display()))?;
        }
        std::fs::write(&path, config::DEFAULT_TOML)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let cfg = Config::load(&path)?;
    // A restore whose config names a database elsewhere: never make an
    // empty one there (the unit runs init before every start).
    adjutant::preflight::database_in_place(&cfg).map_err(adjutant::preflight::Refused)?;
    adjutant::mail::maildir::create(&cfg.maildir())?;
    std::fs::create_dir_all(cfg.outbox_dir())?;
    adjutant::store::open(&cfg.database_path())?;
    Ok((path, new))
}

/// Text from a mail as one printable line: control characters (CR, LF,
/// ESC, ...) and Unicode direction marks escaped as `\r`, `\n`, `\u{1b}`.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                out.push_str(&c.escape_unicode().to_string());
            }
            c => out.push(c),
        }
    }
    out
}

fn config_path(cli: &Option<PathBuf>) -> PathBuf {
    cli.clone()
        .unwrap_or_else(|| PathBuf::from("adjutant.toml"))
}

/// The config at `cli` (or ./adjutant.toml); none there is a
/// configuration fault (exit 78) like a config that does not parse.
fn load_config(cli: &Option<PathBuf>) -> Result<(PathBuf, Config)> {
    let path = config_path(cli);
    if !path.exists() {
        return Err(adjutant::preflight::Refused(format!(
            "no configuration at {} (run `adjutant init DIR`, or pass --config FILE)",
            path.display()
        ))
        .into());
    }
    let cfg = Config::load(&path)?;
    Ok((path, cfg))
}

fn open(cli: &Option<PathBuf>) -> Result<Judge> {
    let (_, cfg) = load_config(cli)?;
    adjutant::preflight::database_in_place(&cfg).map_err(adjutant::preflight::Refused)?;
    Ok(Judge::open(cfg, clock::from_env())?)
}

/// The judge for a host's command that mails (new-game, pause, the
/// referee's commands): what would keep its mail from going out (no SMTP
/// password, a `ca_file` not there) refuses it before anything changes.
fn open_to_mail(cli: &Option<PathBuf>) -> Result<Judge> {
    let (_, cfg) = load_config(cli)?;
    if let Some(first) = adjutant::preflight::outbound(&cfg).into_iter().next() {
        return Err(adjutant::preflight::Refused(first).into());
    }
    open(cli)
}

/// One handler per command (grouped below as the help lists them): each
/// opens the judge it needs and returns the exit code.
fn run(cli: Cli) -> Result<i32> {
    let config = &cli.config;
    match cli.command {
        Cmd::Init { dir } => init_cmd(&dir),
        Cmd::Serve { once } => serve_cmd(config, once),
        Cmd::Receive => receive_cmd(config),
        Cmd::SkipOldMail => skip_old_mail_cmd(config),
        Cmd::Backup { dir } => {
            let (path, cfg) = load_config(config)?;
            let w = adjutant::backup::backup(&cfg, &path, &dir)?;
            for f in [&w.database, &w.key, &w.config].into_iter().chain(&w.extra) {
                println!("{}", f.display());
            }
            for n in &w.notes {
                adjutant::logging::say(&format!("adjutant: note: {n}"));
            }
            Ok(0)
        }
        Cmd::NewKey => {
            let (_, cfg) = load_config(config)?;
            let key = adjutant::store::credentials::create_key(&cfg.database_path())?;
            println!(
                "new key {}: every seat's credentials have changed",
                key.display()
            );
            Ok(0)
        }
        Cmd::NewGame(args) => new_game_cmd(config, args),
        Cmd::Games => games_cmd(config),
        Cmd::Show {
            game,
            turn,
            viewer,
            format,
        } => show_cmd(config, game, turn, viewer.as_deref(), &format),
        Cmd::Replay {
            game,
            viewer,
            output,
        } => replay_cmd(config, game, viewer.as_deref(), output),
        Cmd::Submit { game, side, orders } => submit_cmd(config, game, &side, &orders),
        Cmd::Predict { game, side, orders } => predict_cmd(config, game, &side, &orders),
        Cmd::Export {
            game,
            include_seed,
            referee,
            output,
        } => {
            let judge = open(config)?;
            let ex = judge.exports().export_with(game, include_seed, referee)?;
            write_json(&ex, output)
        }
        Cmd::Verify { export: path } => verify_cmd(&path),
        Cmd::Duel {
            scenario,
            games,
            seed,
            against,
        } => duel_cmd(&scenario, games, seed, &against),
        Cmd::Standings { json } => standings_cmd(config, json),
        Cmd::Campaign(cc) => campaign_cmd(config, cc),
        Cmd::Log => log_cmd(config),
        Cmd::Doctor => doctor_cmd(config),
        Cmd::Outbox { action: None } => outbox_cmd(config),
        Cmd::Outbox {
            action: Some(OutboxCmd::Retry { id, dead }),
        } => outbox_retry_cmd(config, id, dead),
        Cmd::Approve { game } => approve_cmd(config, game),
        Cmd::Amend { game, reason, fix } => amend_cmd(config, game, &reason, &fix),
        Cmd::Broadcast { game, text } => {
            let mut judge = open_to_mail(config)?;
            judge.referee().broadcast(game, &text)?;
            deliver(&mut judge)?;
            println!("game {game}: message sent");
            Ok(0)
        }
        Cmd::Reveal { game } => {
            let mut judge = open_to_mail(config)?;
            judge.referee().reveal(game)?;
            deliver(&mut judge)?;
            println!("game {game}: both boards sent to every player");
            Ok(0)
        }
        Cmd::Pause { game } => {
            let mut judge = open_to_mail(config)?;
            judge.deadlines().set_paused(game, true, ClockBy::Host)?;
            deliver(&mut judge)?;
            println!("game {game} paused");
            Ok(0)
        }
        Cmd::Resume { game } => resume_cmd(config, game),
        Cmd::Extend { game, by } => extend_cmd(config, game, &by),
        Cmd::RotateSecret { game, side, member } => {
            rotate_secret_cmd(config, game, &side, member.as_deref())
        }
        Cmd::ReplaceSeat {
            game,
            side,
            email,
            ai,
            old,
        } => replace_seat_cmd(config, game, &side, (email, ai), old.as_deref()),
        Cmd::CheckScenario { file } => check_scenario_cmd(&file),
        Cmd::CheckRuleset { file } => check_ruleset_cmd(&file),
        Cmd::CheckCampaign { file } => check_campaign_cmd(&file),
        Cmd::CheckCase { files } => check_case_cmd(&files),
        Cmd::Scenarios => {
            for s in adjutant::rules::all_scenarios() {
                println!("{s}");
            }
            Ok(0)
        }
    }
}

/// Deliver what the command queued (the outbox), as `serve --once` would.
fn deliver(judge: &mut Judge) -> Result<()> {
    let mut p = daemon::Pass::default();
    daemon::deliver(judge, &mut p)?;
    Ok(())
}

/// An export (of a game or a campaign) as pretty JSON, to a file or stdout.
fn write_json<T: serde::Serialize>(ex: &T, output: Option<PathBuf>) -> Result<i32> {
    let text = serde_json::to_string_pretty(ex)? + "\n";
    match output {
        Some(p) => std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?,
        None => print!("{text}"),
    }
    Ok(0)
}

/// SIDE=VALUE pairs of a repeated flag (`--seat`, `--tz`, `--player`): the
/// side lower-cased, both trimmed.
fn pairs(items: &[String], flag: &str, what: &str) -> Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|s| {
            s.split_once('=')
                .map(|(a, b)| (a.trim().to_ascii_lowercase(), b.trim().to_string()))
                .ok_or_else(|| anyhow!("--{flag} takes {what}, not '{s}'"))
        })
        .collect()
}

/// A `--deadline`-like flag's duration in seconds.
fn duration_flag(flag: &str, d: Option<String>) -> Result<Option<i64>> {
    d.map(|d| {
        parse_duration(&d).ok_or_else(|| anyhow!("--{flag} takes e.g. 72h, 3d or 90m, not '{d}'"))
    })
    .transpose()
}

// ---- the host's set-up: init, serve, receive, doctor ----

fn init_cmd(dir: &Path) -> Result<i32> {
    let (path, new) = init(dir, true)?;
    if !new {
        // A judge already there (the unit runs init before every start):
        // checked and completed, nothing to say.
        return Ok(0);
    }
    let cfg = Config::load(&path)?;
    println!("Initialised {}", path.display());
    println!("  database: {}", cfg.database_path().display());
    println!(
        "  inbox:    {}/new (drop mail files here)",
        cfg.maildir().display()
    );
    println!(
        "  outbox:   {} (one .eml per sent mail)",
        cfg.outbox_dir().display()
    );
    Ok(0)
}

fn serve_cmd(config: &Option<PathBuf>, once: bool) -> Result<i32> {
    let path = config_path(config);
    if !path.exists() && config.is_none() {
        init(Path::new("."), false)?;
        adjutant::logging::say(
            "No adjutant.toml here: initialised the embedded default in the current directory.",
        );
    }
    // The handlers first: a stop asked for while the judge opens (its
    // database, a migration) is kept and honoured before the first mail,
    // rather than killing the process mid-start.
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&stop))?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&stop))?;
    // What no retry can mend refuses the start, before any mail or the
    // database is touched (src/preflight.rs); the lock is held until exit.
    // (No config there: `open` below says so.)
    let (_, cfg) = load_config(&Some(path.clone()))?;
    let _lock = adjutant::preflight::check(&cfg, once).map_err(adjutant::preflight::Refused)?;
    let mut judge = open(&Some(path))?;
    if let (true, Some(smtp)) = (
        judge.cfg.outbound.kind == "smtp",
        judge.cfg.outbound.smtp.clone(),
    ) {
        adjutant::kept_smtp::cut_on_stop(Arc::clone(&stop), smtp);
    }
    let (from, to) = judge.cfg.describe_mail();
    let say = adjutant::logging::say;
    say(&format!(
        "Adjutant serving: mail in from {from}; mail out by {to}."
    ));
    let wakes = if once {
        adjutant::wake::Wakes::none()
    } else {
        adjutant::wake::Wakes::start(&judge.cfg)
    };
    if !once {
        say(&adjutant::wake::describe(&judge.cfg, &wakes));
    }
    adjutant::notify::notify("READY=1");
    let p = daemon::run_with(&mut judge, once, &stop, &wakes);
    adjutant::notify::notify("STOPPING=1");
    // The IMAP session kept between passes (issue 31) logs out.
    adjutant::mail::imap::close_kept();
    say(&format!(
        "handled {} messages ({} duplicates, {} failed); delivered {} mails ({} failures)",
        p.handled, p.duplicates, p.failed, p.delivered, p.delivery_failures
    ));
    Ok(0)
}

/// EX_TEMPFAIL (sysexits.h): the MTA keeps the mail and retries.
const EX_TEMPFAIL: i32 = 75;

/// One mail from an MTA pipe. The exit code is the MTA's answer: 0 once the
/// mail is recorded (what follows, delivering the answers, is the outbox's
/// business and retried by the next pass), 75 whenever it could not be
/// recorded (no database, a lock held past the timeout, a config the host
/// must mend): never a bounce for the judge's own fault (docs/host.md).
fn receive_cmd(config: &Option<PathBuf>) -> Result<i32> {
    let tempfail = |what: &str, e: &dyn std::fmt::Display| {
        adjutant::logging::refuse(&format!(
            "{what}: {e:#}; exit 75, the mail server keeps the mail and retries"
        ));
        Ok(EX_TEMPFAIL)
    };
    let mut judge = match open(config) {
        Ok(j) => j,
        Err(e) => return tempfail("cannot open the judge", &e),
    };
    let mut raw = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut raw) {
        return tempfail("cannot read the mail", &e);
    }
    let _mail = adjutant::logging::mail_span(&raw).entered();
    match daemon::handle_one(&mut judge, &raw, "stdin") {
        Ok(adjutant::service::MailOutcome::Duplicate) => {
            println!("seen before: nothing done");
        }
        Ok(adjutant::service::MailOutcome::Handled { outcome, replies }) => {
            println!("{outcome}; {replies} mails queued");
        }
        Err(e) => return tempfail("the mail was not recorded", &e),
    }
    if let Err(e) = deliver(&mut judge) {
        adjutant::logging::refuse(&format!(
            "the mail is recorded; its answers wait in the outbox: {e:#}"
        ));
    }
    Ok(0)
}

/// `skip-old-mail`: a judge given a mailbox that already holds mail
/// starts from now (docs/host.md, "With a real mail provider").
fn skip_old_mail_cmd(config: &Option<PathBuf>) -> Result<i32> {
    let judge = open(config)?;
    match (judge.cfg.inbound.kind.as_str(), &judge.cfg.inbound.imap) {
        ("imap", Some(imap)) => {
            let (cursor, left) = adjutant::mail::imap::cursor_at_end(imap)?;
            adjutant::store::kv_set(
                &judge.conn,
                daemon::IMAP_CURSOR,
                &format!("{}:{}", cursor.uid_validity, cursor.last_uid),
            )?;
            println!(
                "{left} messages in {} at {} left unanswered; the judge reads mail from now on",
                imap.mailbox, imap.host
            );
        }
        ("maildir", _) => {
            let dir = judge.cfg.maildir();
            let waiting = adjutant::mail::maildir::waiting(&dir)?;
            for f in &waiting {
                let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("message");
                let base = name.split(":2,").next().unwrap_or(name);
                std::fs::rename(f, dir.join("cur").join(format!("{base}:2,")))
                    .with_context(|| format!("moving {}", f.display()))?;
            }
            println!(
                "{} messages in {}/new moved to cur/ unanswered; the judge reads mail from now on",
                waiting.len(),
                dir.display()
            );
        }
        _ => println!("no mailbox to skip: inbound.kind is none (mail comes by `receive`)"),
    }
    Ok(0)
}

/// What the outbox holds that a host should know of: dead mail, and mail
/// waiting after failed deliveries (the database read only, never created
/// or changed).
fn outbox_warnings(db: &Path) -> Vec<String> {
    use adjutant::store::{self, Trouble};
    let Ok(conn) = store::open_read_only_now(db) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Ok(Trouble {
        count: n,
        last: Some(why),
    }) = store::dead_trouble(&conn)
    {
        out.push(format!(
            "{n} mails are dead (the last: {why}); `adjutant outbox` lists them, `adjutant outbox retry --dead` sends them again"
        ));
    }
    if let Ok(Trouble {
        count: n,
        last: Some(why),
    }) = store::retry_trouble(&conn)
    {
        out.push(format!(
            "{n} mails wait after failed deliveries (the last error: {why}); they are retried for outbound.retry_days"
        ));
    }
    if let Ok(Trouble {
        count: n,
        last: Some(why),
    }) = store::set_aside_trouble(&conn)
    {
        out.push(format!(
            "{n} inbound mails were set aside, never to be tried again (the last: {why}); Maildir keeps them in its quarantine/ folder"
        ));
    }
    out
}

fn doctor_cmd(config: &Option<PathBuf>) -> Result<i32> {
    let (path, cfg) = load_config(config)?;
    let mut warnings = adjutant::config::doctor(&cfg, &path);
    warnings.extend(outbox_warnings(&cfg.database_path()));
    // Every fault, the logins included (each server whose own settings
    // are right: never a password sent in clear off loopback).
    warnings.extend(adjutant::preflight::offline(&cfg));
    warnings.extend(adjutant::preflight::online(&cfg));
    for w in &warnings {
        println!("warning: {w}");
    }
    if warnings.is_empty() {
        println!("ok: no file of the judge is readable by others; no password in the config");
        Ok(0)
    } else {
        Ok(1)
    }
}

// ---- games: new-game, games, show, submit, verify ----

fn new_game_cmd(config: &Option<PathBuf>, a: NewGameArgs) -> Result<i32> {
    if (a.kriegspiel || a.review.is_some()) && a.referee.is_none() {
        bail!("--kriegspiel and --review need a referee: give --referee EMAIL");
    }
    let mut rule_options = a.rule_options;
    if a.kriegspiel {
        rule_options.push("kriegspiel=true".into());
    }
    let review_secs = a
        .review
        .map(|r| {
            parse_duration(&r).ok_or_else(|| anyhow!("--review takes e.g. 24h or 3d, not '{r}'"))
        })
        .transpose()?;
    let mut judge = open_to_mail(config)?;
    let mut seats = pairs(&a.seats, "seat", "SIDE=EMAIL")?;
    for side in &a.ai {
        seats.push((
            side.to_ascii_lowercase(),
            adjutant::service::JUDGE_SEAT.to_string(),
        ));
    }
    if seats.is_empty() {
        bail!("give a seat per side: --seat SIDE=EMAIL (or --ai SIDE)");
    }
    let deadline = duration_flag("deadline", a.deadline)?;
    let opts = adjutant::service::GameOptions {
        deadline_secs: deadline,
        nmr_policy: a.nmr,
        grace_secs: duration_flag("grace", a.grace)?.unwrap_or(0),
        referee: a.referee,
        referee_after: a.referee_after,
        zones: pairs(&a.zones, "tz", "SIDE=ZONE")?,
        ruleset_file: a
            .ruleset
            .map(|p| {
                std::fs::read_to_string(&p)
                    .map(|t| (p.display().to_string(), t))
                    .with_context(|| format!("reading {}", p.display()))
            })
            .transpose()?,
        observers: a.observers,
        rule_options: rule_options
            .iter()
            .map(|o| match o.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim().to_string()),
                None => (o.trim().to_ascii_lowercase(), "true".to_string()),
            })
            .collect(),
        review_secs,
    };
    let id = judge.turns().new_game(&a.scenario, &seats, &opts)?;
    println!("{id}");
    deliver(&mut judge)?;
    Ok(0)
}

/// `adjutant standings [--json]`.
fn standings_cmd(config: &Option<PathBuf>, json: bool) -> Result<i32> {
    let judge = open(config)?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&judge.standings().table()?)?
        );
    } else {
        print!("{}", judge.standings().text()?);
    }
    Ok(0)
}

fn games_cmd(config: &Option<PathBuf>) -> Result<i32> {
    let judge = open(config)?;
    let mut rows = Vec::new();
    for g in adjutant::store::games(&judge.conn)? {
        // Every member: each side's Commander-in-Chief, then his
        // Field Marshals.
        let members = adjutant::store::team::members(&judge.conn, g.id)?;
        let mut seats: Vec<String> = Vec::new();
        for s in adjutant::store::seats(&judge.conn, g.id)? {
            seats.push(format!("{}={}", s.side, s.email));
            seats.extend(
                members
                    .iter()
                    .filter(|m| m.side == s.side)
                    .map(|m| format!("{}={}", m.side, m.email)),
            );
        }
        rows.push((g, seats.join(" ")));
    }
    // Columns as wide as their longest entry (a house variant's or a long
    // ruleset's name, a scenario file), so they stay aligned.
    let rw = rows
        .iter()
        .map(|(g, _)| g.ruleset.len())
        .fold(10, usize::max);
    let sw = rows
        .iter()
        .map(|(g, _)| g.scenario.len())
        .fold(24, usize::max);
    println!(
        "{:>5}  {:<rw$} {:<sw$} {:>5}  {:<7} seats",
        "game", "ruleset", "scenario", "turn", "status"
    );
    for (g, seats) in rows {
        println!(
            "{:>5}  {:<rw$} {:<sw$} {:>5}  {:<7} {seats}",
            g.id, g.ruleset, g.scenario, g.turn, g.status
        );
    }
    Ok(0)
}

fn show_cmd(
    config: &Option<PathBuf>,
    game: i64,
    turn: Option<u32>,
    viewer: Option<&str>,
    format: &str,
) -> Result<i32> {
    let judge = open(config)?;
    let g = judge.game(game)?;
    let viewer = match viewer {
        None | Some("referee") => Viewer::Referee,
        Some("observer") => Viewer::Observer,
        Some(side) => Viewer::Side(side.to_ascii_lowercase()),
    };
    if !["text", "compact", "svg", "png", "html", "json"].contains(&format) {
        bail!("--format is text, compact, svg, png, html or json, not '{format}'");
    }
    // What that viewer may see now (service/sight.rs): in review
    // mode a side or an observer stops before the held turns.
    let seen = adjutant::service::sight::visible_turn(&g, &viewer);
    if turn.is_some_and(|t| t > seen && t <= g.turn) {
        bail!(
            "turn {} of game {game} is held for the referee's review: {} may see up to turn {seen} (--as referee shows it)",
            turn.unwrap_or_default(),
            viewer_name(&viewer)
        );
    }
    let at = turn.or((seen < g.turn).then_some(seen));
    let adjutant::service::Position {
        rules,
        turn: t,
        state,
        hash,
    } = judge.position(&g, at)?;
    if let Viewer::Side(s) = &viewer {
        if !rules.sides(&state).contains(s) {
            bail!(
                "game {game} has no side '{s}' (sides: {})",
                rules.sides(&state).join(", ")
            );
        }
    }
    let (text, parts) = match turn {
        Some(t) if t > 0 => judge.reports().turn_report(&g, t, &viewer)?,
        _ => {
            let parts = rules.report_parts(&state, &[], &viewer, None);
            // A side's or an observer's State line is the mails' sealed
            // one: the plain hash would let a side test a guess about what
            // it cannot see (docs/security.md). The referee's is the plain
            // hash, as the host's own.
            let hash = match viewer {
                Viewer::Referee => hash,
                _ => adjutant::service::sealed_state(
                    &adjutant::engine::dice::parse_seed(&g.seed)
                        .ok_or_else(|| anyhow!("game {game} has a bad seed"))?,
                    &hash,
                ),
            };
            let text = format!(
                "Game {game}, {} after turn {t}: {}\n{}State {hash}\n",
                g.scenario, g.status, parts.map,
            );
            (text, parts)
        }
    };
    match format {
        "svg" => print!("{}", parts.svg),
        "png" => {
            let (png, ..) = adjutant::report::picture::png(&parts.svg)
                .ok_or_else(|| anyhow!("the board's SVG does not render"))?;
            std::io::Write::write_all(&mut std::io::stdout(), &png)?;
        }
        "html" => print!("{}", parts.html(&format!("Game {game}, turn {t}"), &text)),
        "json" => println!("{}", parts.json),
        "compact" => print!("{}", parts.compact),
        _ => print!("{text}"),
    }
    Ok(0)
}

/// `replay GAME [--as SIDE|observer|referee]`: the replay file (docs/replay.md).
fn replay_cmd(
    config: &Option<PathBuf>,
    game: i64,
    viewer: Option<&str>,
    output: Option<PathBuf>,
) -> Result<i32> {
    let judge = open(config)?;
    let g = judge.game(game)?;
    let viewer = match viewer {
        None | Some("referee") => Viewer::Referee,
        Some("observer") => Viewer::Observer,
        Some(side) => Viewer::Side(side.to_ascii_lowercase()),
    };
    if let Viewer::Side(s) = &viewer {
        let pos = judge.position(&g, Some(0))?;
        if !pos.rules.sides(&pos.state).contains(s) {
            bail!(
                "game {game} has no side '{s}' (sides: {})",
                pos.rules.sides(&pos.state).join(", ")
            );
        }
    }
    let html = adjutant::replay::html(&judge, game, &viewer)?;
    match output {
        Some(path) => std::fs::write(&path, html)?,
        None => print!("{html}"),
    }
    Ok(0)
}

/// `predict GAME SIDE FILE|-`: the PREDICT answer (docs/orders.md), read
/// as a mail's lines are (a `PREDICT` line and other commands left out).
fn predict_cmd(config: &Option<PathBuf>, game: i64, side: &str, orders: &Path) -> Result<i32> {
    let judge = open(config)?;
    let text = if orders.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        std::fs::read_to_string(orders).with_context(|| format!("reading {}", orders.display()))?
    };
    let orders = adjutant::protocol::parse("", &text).orders;
    match judge
        .predict()
        .predict_text(game, &side.to_ascii_lowercase(), &orders)?
    {
        Ok(answer) => {
            print!("{answer}");
            Ok(0)
        }
        Err(why) => {
            eprintln!("orders refused: {why}");
            Ok(1)
        }
    }
}

fn submit_cmd(config: &Option<PathBuf>, game: i64, side: &str, orders: &Path) -> Result<i32> {
    let mut judge = open_to_mail(config)?;
    let text = if orders.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        std::fs::read_to_string(orders).with_context(|| format!("reading {}", orders.display()))?
    };
    match judge
        .turns()
        .submit(game, &side.to_ascii_lowercase(), &text)
    {
        Ok(submitted) => {
            let g = judge.game(game)?;
            match submitted {
                adjutant::service::Submitted::Resolved { turn } => {
                    println!("game {game}: turn {turn} adjudicated; status {}", g.status);
                }
                adjutant::service::Submitted::Held { waiting_for, .. } => println!(
                    "game {game}: orders of {side} held until {} have sent theirs",
                    waiting_for.join(" and ")
                ),
            }
            deliver(&mut judge)?;
            Ok(0)
        }
        Err(adjutant::service::ServiceError::Rejected(r)) => {
            eprintln!("orders rejected: {r}");
            Ok(1)
        }
        Err(e) => Err(e.into()),
    }
}

fn duel_cmd(scenario: &str, games: u32, seed: u64, against: &str) -> Result<i32> {
    use adjutant::duel::{duel, Opponent};
    let against = Opponent::parse(against)
        .ok_or_else(|| anyhow!("--against takes random, pass or ai, not {against:?}"))?;
    let (rules, source) = adjutant::service::scenario_source(scenario)?;
    let sides = rules.sides(&adjutant::service::setup_state(
        &rules,
        &source,
        &adjutant::duel::game_seed(seed, 0),
    )?);
    let started = std::time::Instant::now();
    let settings = adjutant::general::Settings::for_rules(&rules);
    let tally = duel(&rules, &source, games, seed, against, settings)?;
    for line in tally.lines(&sides, against) {
        println!("{line}");
    }
    tracing::info!(seconds = started.elapsed().as_secs_f64(), "duel played");
    Ok(0)
}

fn verify_cmd(path: &Path) -> Result<i32> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    #[derive(serde::Deserialize)]
    struct Tag {
        #[serde(default)]
        format: String,
    }
    let tag = serde_json::from_str::<Tag>(&text)
        .map(|t| t.format)
        .unwrap_or_default();
    if tag.starts_with("adjutant-campaign/") {
        return verify_campaign_cmd(path, &text);
    }
    let ex = export::parse(&text)
        .map_err(|e| anyhow!("{}:{e}: not an Adjutant export", path.display()))?;
    let v = export::verify(&ex);
    for n in &v.notes {
        println!("note: {n}");
    }
    for d in &v.differences {
        println!("DIFFERENCE {d}");
    }
    if v.differences.is_empty() {
        if ex.seed.is_some() {
            println!(
                "OK: game {} verified, {} turns replayed identically",
                ex.game, v.checked_turns
            );
        } else {
            println!(
                "OK: game {}: the dice of {} turns match their revealed seeds (no replay without the game seed)",
                ex.game,
                ex.turns.len()
            );
        }
        Ok(0)
    } else {
        println!("FAILED: {} differences", v.differences.len());
        Ok(1)
    }
}

fn verify_campaign_cmd(path: &Path, text: &str) -> Result<i32> {
    let c: adjutant::service::campaign::CampaignExport =
        serde_json::from_str(text).map_err(|e| {
            anyhow!(
                "{}:{}:{}: not a campaign export: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
    let v = adjutant::service::campaign::verify_campaign(&c);
    for n in &v.notes {
        println!("note: {n}");
    }
    for d in &v.differences {
        println!("DIFFERENCE {d}");
    }
    if v.differences.is_empty() {
        println!(
            "OK: campaign {} verified: {} battles, {} turns replayed identically, every pre-battle roll as the results before it give",
            c.name,
            c.battles.len(),
            v.checked_turns
        );
        return Ok(0);
    }
    println!("FAILED: {} differences", v.differences.len());
    Ok(1)
}

// ---- the host's views: log, outbox ----

fn log_cmd(config: &Option<PathBuf>) -> Result<i32> {
    let judge = open(config)?;
    // Everything here came from a mail: control characters are
    // shown escaped, so no log line can be forged (a subject with
    // CR LF "Bcc: ..." stays on its line).
    for r in adjutant::store::inbox_log(&judge.conn)? {
        let subject: String = escape(&r.subject.unwrap_or_default())
            .chars()
            .take(60)
            .collect();
        println!(
            "{:>6}  {:<30} {subject:<40} {} {}  [{}]",
            r.id,
            escape(&r.sender.unwrap_or_else(|| "-".into())),
            escape(&r.outcome),
            escape(&r.detail),
            escape(&r.message_id.unwrap_or_default())
        );
    }
    Ok(0)
}

/// What `outbox` can do beside listing.
#[derive(Subcommand)]
enum OutboxCmd {
    /// Put dead mail back in the queue (due now, attempts counted afresh)
    /// and deliver it: one mail by its id, or every dead one with --dead.
    Retry {
        /// The mail's id (the first column of `adjutant outbox`).
        id: Option<i64>,
        /// Every dead mail.
        #[arg(long, conflicts_with = "id")]
        dead: bool,
    },
}

fn outbox_retry_cmd(config: &Option<PathBuf>, id: Option<i64>, dead: bool) -> Result<i32> {
    if id.is_none() && !dead {
        bail!("say which mail: `outbox retry ID`, or `outbox retry --dead` for every dead one");
    }
    let mut judge = open_to_mail(config)?;
    let now = adjutant::service::clock::stamp(judge.clock.now());
    let n = adjutant::store::outbox_retry(&judge.conn, id, &now)?;
    match (n, id) {
        (0, Some(id)) => {
            bail!("mail {id} is neither dead nor waiting (see `adjutant outbox`)")
        }
        (0, None) => println!("no dead mail"),
        (n, _) => println!("{n} mails put back in the queue"),
    }
    deliver(&mut judge)?;
    Ok(0)
}

fn outbox_cmd(config: &Option<PathBuf>) -> Result<i32> {
    let judge = open(config)?;
    for m in adjutant::store::outbox_list(&judge.conn)? {
        let body = if m.to_render {
            "to render".to_string()
        } else if m.body_bytes > 0 {
            format!("{:.1} KB", m.body_bytes as f64 / 1024.0)
        } else {
            "dropped".to_string()
        };
        println!(
            "{:>6}  {:<8} {:<10} attempts {}  {:<10} {}",
            m.id, m.status, m.kind, m.attempts, body, m.recipient
        );
        if let (Some(e), false) = (&m.last_error, m.status == "sent") {
            println!("        last error: {e}");
        }
    }
    Ok(0)
}

// ---- the referee and the host on a game: approve, amend, resume, extend, seats ----

fn approve_cmd(config: &Option<PathBuf>, game: i64) -> Result<i32> {
    let mut judge = open_to_mail(config)?;
    match judge.referee().approve(game)? {
        Some((a, b)) if a == b => println!("game {game}: turn {a} released to the players"),
        Some((a, b)) => println!("game {game}: turns {a}-{b} released to the players"),
        None => println!("game {game}: nothing is held for review"),
    }
    deliver(&mut judge)?;
    Ok(0)
}

fn amend_cmd(config: &Option<PathBuf>, game: i64, reason: &str, fix: &[String]) -> Result<i32> {
    let mut judge = open_to_mail(config)?;
    match judge.referee().amend(game, &fix.join("\n"), reason) {
        Ok(turn) => {
            println!("game {game}: corrected as turn {turn}");
            deliver(&mut judge)?;
            Ok(0)
        }
        Err(adjutant::service::ServiceError::Rejected(r)) => {
            eprintln!("correction refused: {r}");
            Ok(1)
        }
        Err(e) => Err(e.into()),
    }
}

fn resume_cmd(config: &Option<PathBuf>, game: i64) -> Result<i32> {
    let mut judge = open_to_mail(config)?;
    let at = judge.deadlines().set_paused(game, false, ClockBy::Host)?;
    deliver(&mut judge)?;
    match at {
        Some(at) => println!("game {game} resumed; the deadline is now {at}"),
        None => println!("game {game} resumed"),
    }
    Ok(0)
}

fn extend_cmd(config: &Option<PathBuf>, game: i64, by: &str) -> Result<i32> {
    let mut judge = open_to_mail(config)?;
    let secs = parse_duration(by).ok_or_else(|| anyhow!("extend takes e.g. 24h, not '{by}'"))?;
    let at = judge.deadlines().extend(game, secs, ClockBy::Host)?;
    deliver(&mut judge)?;
    println!("game {game}: the deadline is now {at}");
    Ok(0)
}

fn rotate_secret_cmd(
    config: &Option<PathBuf>,
    game: i64,
    side: &str,
    member: Option<&str>,
) -> Result<i32> {
    let mut judge = open_to_mail(config)?;
    let to = judge
        .seats()
        .rotate_secret(game, &side.to_ascii_lowercase(), member)?;
    deliver(&mut judge)?;
    println!("game {game}: {side} ({to}) has a new secret and reply address, mailed to {to}");
    Ok(0)
}

fn replace_seat_cmd(
    config: &Option<PathBuf>,
    game: i64,
    side: &str,
    (email, ai): (Option<String>, bool),
    old: Option<&str>,
) -> Result<i32> {
    let email = match (ai, email) {
        (true, _) => adjutant::service::JUDGE_SEAT.to_string(),
        (false, Some(e)) => e,
        (false, None) => bail!("replace-seat needs the new player's address or --ai"),
    };
    let email = email.as_str();
    let mut judge = open_to_mail(config)?;
    match old {
        _ if side.eq_ignore_ascii_case(adjutant::rules::REFEREE_SIDE) => {
            judge.seats().replace_referee(game, email)?;
        }
        Some(old) => {
            judge
                .seats()
                .replace_player(game, &side.to_ascii_lowercase(), old, email)?;
        }
        None => judge
            .seats()
            .replace_seat(game, &side.to_ascii_lowercase(), Some(email))?,
    }
    deliver(&mut judge)?;
    println!("game {game}: {side} is now played by {email}");
    Ok(0)
}

// ---- the rules author's checks: check-scenario, check-ruleset, check-case ----

fn check_scenario_cmd(file: &Path) -> Result<i32> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let name = file.display().to_string();
    let (source, ruleset) = adjutant::rules::Scenario::from_text(&text, &name)?;
    let rules = Rules::load(&ruleset)?;
    let mut deck = adjutant::engine::dice::ChaChaDice::from_seed([0; 32]);
    let state = rules.setup(&source, &mut deck)?;
    println!("{name}: scenario '{}' of {ruleset} is valid.", source.id);
    print!("{}", rules.render_text(&state, &Viewer::Referee));
    Ok(0)
}

fn check_ruleset_cmd(file: &Path) -> Result<i32> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let rules = Rules::from_text(&text, &file.display().to_string())?;
    println!(
        "{}: a valid {} ruleset ('{}')",
        file.display(),
        rules.family(),
        rules.id()
    );
    Ok(0)
}

fn read_campaign_file(file: &Path) -> Result<adjutant::service::campaign_file::Plan> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    Ok(adjutant::service::campaign_file::check(
        &text,
        &file.display().to_string(),
    )?)
}

fn check_campaign_cmd(file: &Path) -> Result<i32> {
    let plan = read_campaign_file(file)?;
    println!(
        "{}: campaign '{}' is valid: {} battle(s), roles {}.",
        file.display(),
        plan.name,
        plan.battles.len(),
        plan.roles.join(", ")
    );
    if !plan.description.is_empty() {
        println!("  {}", plan.description);
    }
    for b in &plan.battles {
        let sides: Vec<String> = b
            .sides
            .iter()
            .map(|(s, r)| format!("{r} plays {s}"))
            .collect();
        let mut then: Vec<String> = b
            .next_if_won_by
            .iter()
            .map(|(s, to)| format!("won by {s}: {to}"))
            .collect();
        if b.last {
            then.push("the last battle".into());
        } else if let Some(n) = &b.next {
            then.push(format!("then {n}"));
        }
        println!(
            "  {} ({}): {}{}",
            b.id,
            b.scenario,
            sides.join(", "),
            if then.is_empty() {
                String::new()
            } else {
                format!("; {}", then.join("; "))
            }
        );
    }
    Ok(0)
}

fn check_case_cmd(files: &[PathBuf]) -> Result<i32> {
    let (mut passed, mut failed) = (0, 0);
    for f in files {
        let r = adjutant::rules::run_case_path(f);
        if r.passed {
            passed += 1;
            println!("PASS {}", r.name);
        } else {
            failed += 1;
            println!("FAIL {}: {}", r.name, r.detail);
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(i32::from(failed > 0))
}

fn campaign_cmd(config: &Option<PathBuf>, cc: CampaignCmd) -> Result<i32> {
    match cc {
        CampaignCmd::New {
            name,
            scenarios,
            file,
            players,
            deadline,
            nmr,
            referee,
            zones,
            all_at_once,
        } => {
            let plan = file.as_deref().map(read_campaign_file).transpose()?;
            let zones = pairs(&zones, "tz", "SIDE=ZONE")?;
            let mut judge = open_to_mail(config)?;
            let players = pairs(
                &players,
                "player",
                if plan.is_some() {
                    "ROLE=EMAIL"
                } else {
                    "SIDE=EMAIL"
                },
            )?;
            let deadline_secs = duration_flag("deadline", deadline)?;
            let spec = adjutant::service::campaign::CampaignSpec {
                name: name.clone(),
                scenarios,
                players,
                opts: adjutant::service::GameOptions {
                    deadline_secs,
                    nmr_policy: nmr,
                    referee,
                    zones,
                    ..Default::default()
                },
                all_at_once,
                plan,
            };
            let (_, games) = judge.campaigns().create(&spec)?;
            let ids: Vec<String> = games.iter().map(i64::to_string).collect();
            println!("campaign {name}: battle game(s) {}", ids.join(", "));
            deliver(&mut judge)?;
            Ok(0)
        }
        CampaignCmd::List => {
            let judge = open(config)?;
            for (name, battles, done) in judge.campaigns().list()? {
                match judge.campaigns().stopped(&name)? {
                    Some(why) => {
                        println!("{name}: {done} of {battles} battles over; stopped: {why}")
                    }
                    None => println!("{name}: {done} of {battles} battles over"),
                }
            }
            Ok(0)
        }
        CampaignCmd::Resume { name } => {
            let mut judge = open_to_mail(config)?;
            let game = judge.campaigns().resume(&name)?;
            println!("campaign {name} resumed: its next battle is game {game}");
            deliver(&mut judge)?;
            Ok(0)
        }
        CampaignCmd::Show { name } => {
            let judge = open(config)?;
            print!("{}", judge.campaigns().show(&name)?);
            Ok(0)
        }
        CampaignCmd::Export {
            name,
            include_seed,
            output,
        } => {
            let judge = open(config)?;
            let ex = judge.campaigns().export(&name, include_seed)?;
            write_json(&ex, output)
        }
    }
}
