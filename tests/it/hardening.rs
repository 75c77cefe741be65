//! Issue 13: the judge cannot be made to mail bulk, stall, leak or echo
//! secrets by a hostile or sloppy mail. Against the real binary, with a real
//! SQLite file and real mail formats.

use crate::common;
use adjutant::rules::Load;
use common::{mail, reply_address, unqp, Site};

/// Set `key = value` in the site's adjutant.toml (the key must be there).
fn set_config(site: &Site, key: &str, value: &str) {
    let path = site.config();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut found = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with(&format!("{key} =")) {
                found = true;
                format!("{key} = {value}")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(found, "no {key} in adjutant.toml");
    std::fs::write(&path, out.join("\n") + "\n").unwrap();
}

fn to_count(site: &Site, who: &str) -> usize {
    site.mails()
        .iter()
        .filter(|t| t.contains(&format!("\nTo: {who}")))
        .count()
}

#[test]
fn a_forged_mail_with_2000_help_lines_gets_one_short_answer() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let body = "HELP\n".repeat(2000);
    site.drop_mail(
        "bomb.eml",
        &mail(
            "victim@elsewhere.example",
            "judge@localhost",
            "help",
            "bomb@evil.example",
            &body,
        ),
    );
    site.ok(&["serve", "--once"]);
    let to_victim: Vec<String> = site
        .mails()
        .into_iter()
        .filter(|t| t.contains("\nTo: victim@elsewhere.example"))
        .collect();
    assert_eq!(to_victim.len(), 1, "{to_victim:#?}");
    // A stranger gets the short help, not the whole command list.
    assert!(to_victim[0].len() < 4_000, "{} bytes", to_victim[0].len());
    assert!(to_victim[0].contains("play-by-email judge"));
}

#[test]
fn a_seat_asking_for_200_maps_gets_one_answer() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    let before = site.mails().len();
    let body = "MAP\nHISTORY 0\nSTATUS\nHELP\n".repeat(200);
    site.drop_mail(
        "maps.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "maps@example.org",
            &body,
        ),
    );
    site.ok(&["serve", "--once"]);
    let new: Vec<String> = site.mails().into_iter().skip(before).collect();
    let heads: Vec<String> = new
        .iter()
        .map(|t| {
            t.lines()
                .filter(|l| l.starts_with("To:") || l.starts_with("Subject:"))
                .collect::<Vec<_>>()
                .join(" / ")
        })
        .collect();
    assert_eq!(
        new.len(),
        1,
        "one answer for every command together: {heads:?}"
    );
    // The plain-text part (the HTML part repeats it).
    let t = new[0].split("Content-Type: text/html").next().unwrap();
    // Each command answered once, in the one mail.
    assert_eq!(t.matches("Your games at this judge").count(), 1, "{t}");
    assert!(t.contains("the opening position"), "{t}");
    assert!(t.contains("turn 0: the position as allies sees it"), "{t}");
}

#[test]
fn more_commands_than_the_cap_are_listed_as_not_done() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    set_config(&site, "commands_per_mail", "2");
    let alice = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "many.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "many@example.org",
            "STATUS\nHISTORY 0\nTIMEZONE Europe/Paris\nMAP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let t = site.mails().pop().unwrap();
    assert!(
        t.contains("2 more command(s) in your mail were not done"),
        "{t}"
    );
    assert!(!t.contains("now shown in Europe/Paris"), "{t}");
}

#[test]
fn answers_to_one_address_are_capped_and_the_sender_told_once() {
    let site = crate::common::svg_site();
    set_config(&site, "answers_per_address_hour", "3");
    for i in 0..8 {
        site.drop_mail(
            &format!("h{i}.eml"),
            &mail(
                "someone@example.org",
                "judge@localhost",
                "help",
                &format!("h{i}@example.org"),
                "HELP\n",
            ),
        );
    }
    site.ok(&["serve", "--once"]);
    let to = site
        .mails()
        .into_iter()
        .filter(|t| t.contains("\nTo: someone@example.org"))
        .collect::<Vec<_>>();
    assert_eq!(to.len(), 4, "3 answers and one note: {to:#?}");
    assert_eq!(
        to.iter().filter(|t| t.contains("answers paused")).count(),
        1
    );
    let log = site.ok(&["log"]);
    assert_eq!(log.matches("answer cap reached").count(), 5, "{log}");
}

#[test]
fn the_global_cap_holds_for_many_addresses() {
    let site = crate::common::svg_site();
    set_config(&site, "answers_per_hour", "5");
    for i in 0..9 {
        site.drop_mail(
            &format!("g{i}.eml"),
            &mail(
                &format!("p{i}@example.org"),
                "judge@localhost",
                "help",
                &format!("g{i}@example.org"),
                "HELP\n",
            ),
        );
    }
    site.ok(&["serve", "--once"]);
    assert_eq!(site.mails().len(), 5);
    assert_eq!(to_count(&site, "p8@example.org"), 0);
    let log = site.ok(&["log"]);
    assert_eq!(
        log.matches("answers for this hour or day are used up")
            .count(),
        4,
        "{log}"
    );
}

/// The allies' pass orders of game 1 as it stands (a valid card play).
fn valid_orders(site: &Site) -> String {
    let rules = adjutant::rules::Rules::load("memoir44").unwrap();
    let text: String = site
        .db()
        .query_row(
            "SELECT state FROM snapshots ORDER BY turn DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let state = rules.restore(&text).unwrap();
    rules
        .pass_orders(&state, "allies")
        .expect("a card that can be played")
}

#[test]
fn a_2mb_mail_of_chatter_before_orders_is_read_quickly_with_a_short_receipt() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    let orders = valid_orders(&site);
    // 2 MB of short lines (665k of them, LF line ends), then the orders.
    let mut raw = format!(
        "From: alice@example.org\nTo: {alice}\nSubject: Re: welcome\nMessage-ID: <big@example.org>\nContent-Type: text/plain; charset=utf-8\n\n"
    );
    raw.push_str(&"ok\n".repeat(665_000));
    raw.push_str(&orders);
    let raw = raw.into_bytes();
    assert!(
        raw.len() < 2_000_000 && raw.len() > 1_900_000,
        "{}",
        raw.len()
    );
    site.drop_mail("big.eml", &raw);
    let before = site.outbox().len();
    let t0 = std::time::Instant::now();
    site.ok(&["serve", "--once"]);
    let took = t0.elapsed();
    println!("2 MB chatter mail: serve --once took {took:?}");
    // Not a speed claim (the figure is printed; CI machines vary by ten
    // times): a guard against the reading going quadratic in the number
    // of lines, which took minutes before it was fixed.
    assert!(took.as_secs_f64() < 60.0, "took {took:?}");
    let new: Vec<(String, String)> = site.outbox().into_iter().skip(before).collect();
    let receipt = new
        .iter()
        .find(|(_, t)| t.contains("big@example.org"))
        .expect("a receipt");
    println!("receipt: {} bytes", receipt.1.len());
    assert!(receipt.1.len() < 10_000, "{} bytes", receipt.1.len());
    let text = unqp(&receipt.1);
    assert!(text.contains("were accepted"), "{text}");
    assert!(text.contains("664995 more lines"), "{text}");
    let n: i64 = site
        .db()
        .query_row("SELECT count(*) FROM submissions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "the orders were adjudicated");
    // Issue 59: what was read as orders is stored, not the padding (the
    // 665,000 blank lines took 665 KB of the database and 1.3 MB of the
    // referee's export).
    let stored: String = site
        .db()
        .query_row("SELECT orders FROM submissions", [], |r| r.get(0))
        .unwrap();
    assert!(
        stored.len() <= orders.len(),
        "stored: {} bytes for {} bytes of orders",
        stored.len(),
        orders.len()
    );
    assert_eq!(stored.trim(), orders.trim());
    let export = site.ok(&["export", "1", "--referee"]);
    assert!(export.len() < 100_000, "export: {} bytes", export.len());
}

#[test]
fn a_megabyte_join_line_gets_a_short_answer() {
    let site = crate::common::svg_site();
    let body = format!("JOIN {}\n", "7".repeat(1_000_000));
    site.drop_mail(
        "j.eml",
        &mail("x@forged.example", "judge@localhost", "join", "j@x", &body),
    );
    site.ok(&["serve", "--once"]);
    let out = site.outbox();
    assert_eq!(out.len(), 1);
    assert!(out[0].1.len() < 3_000, "{} bytes", out[0].1.len());
}

#[test]
fn the_export_of_a_running_game_holds_no_private_card_and_still_verifies() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    common::submit_random_turns(&site, 6, 7);
    let private_cards = |json: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let mut cards = Vec::new();
        for t in v["turns"].as_array().unwrap() {
            for e in t["events"].as_array().unwrap() {
                if e["private"] == serde_json::Value::Bool(true) {
                    cards.push(e["card"].as_str().unwrap_or("").to_string());
                }
            }
        }
        cards
    };
    let full = site.ok(&["export", "1", "--referee"]);
    let real = private_cards(&full);
    assert!(
        real.iter().any(|c| c != "hidden"),
        "the referee's export names the cards drawn: {real:?}"
    );
    let public = site.ok(&["export", "1"]);
    let shown = private_cards(&public);
    assert_eq!(shown.len(), real.len());
    assert!(shown.iter().all(|c| c == "hidden"), "{shown:?}");
    assert!(
        !public.contains("\"seed\": \""),
        "no game seed while it runs"
    );
    // Issue 28: no order text (a sealed choice may be in it) and no plain
    // state hash (an oracle for guesses about hidden state) while it runs;
    // the hashes are the mails' sealed State lines.
    let (p, f): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&public).unwrap(),
        serde_json::from_str(&full).unwrap(),
    );
    let mailed: Vec<String> = site
        .outbox()
        .iter()
        .flat_map(|(_, t)| t.lines().map(str::to_string).collect::<Vec<_>>())
        .filter_map(|l| l.trim().strip_prefix("State ").map(str::to_string))
        .collect();
    let (pt, ft) = (
        p["turns"].as_array().unwrap(),
        f["turns"].as_array().unwrap(),
    );
    assert_eq!(pt.len(), ft.len());
    for (a, b) in pt.iter().zip(ft) {
        for o in a["orders"].as_array().unwrap() {
            assert_eq!(o["orders"], "hidden", "{o}");
        }
        let (sealed, plain) = (
            a["state_hash"].as_str().unwrap(),
            b["state_hash"].as_str().unwrap(),
        );
        assert_ne!(sealed, plain);
        assert!(
            !public.contains(plain),
            "a plain state hash in the players' export"
        );
        assert!(
            mailed.iter().any(|m| m == sealed),
            "{sealed} was never mailed"
        );
    }
    assert!(!public.contains(f["setup_state_hash"].as_str().unwrap()));
    let file = site.path().join("export.json");
    std::fs::write(&file, &public).unwrap();
    let out = site.ok(&["verify", file.to_str().unwrap()]);
    assert!(out.contains("OK: game 1"), "{out}");
    assert!(out.contains("private to one side are hidden"), "{out}");
}

#[test]
fn a_responder_quoting_the_receipt_without_quote_marks_gives_no_orders() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    let orders = valid_orders(&site);
    site.drop_mail(
        "o.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: welcome",
            "o@example.org",
            &orders,
        ),
    );
    site.ok(&["serve", "--once"]);
    let receipt = site
        .mails()
        .into_iter()
        .find(|t| t.contains("In-Reply-To: <o@example.org>"))
        .unwrap();
    let body = &receipt[receipt.find("Your orders").expect("a receipt")..];
    let body = body.split("\n--").next().unwrap();
    let first = orders.lines().next().unwrap().trim();
    assert!(body.contains(&format!("# {first}")), "{body}");
    // A sloppy vacation responder (no Auto-Submitted) pastes it back as is.
    site.drop_mail(
        "v.eml",
        &mail(
            "alice@example.org",
            &alice,
            "Re: Game 1",
            "v@example.org",
            &format!("I am away until Monday.\n\n{body}"),
        ),
    );
    site.ok(&["serve", "--once"]);
    let n: i64 = site
        .db()
        .query_row("SELECT count(*) FROM submissions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "only the real orders were adjudicated");
    let log = site.ok(&["log"]);
    let line = log.lines().find(|l| l.contains("[v@example.org]")).unwrap();
    assert!(line.contains("nothing to do"), "{line}");
}

#[test]
fn the_log_shows_control_characters_escaped() {
    let site = crate::common::svg_site();
    let raw = "From: x@example.org\r\nTo: judge@localhost\r\nSubject: =?utf-8?q?hi=0D=0ABcc:_victim@example.org?=\r\nMessage-ID: <crlf@example.org>\r\n\r\nHELP\r\n";
    site.drop_mail("c.eml", raw.as_bytes());
    site.ok(&["serve", "--once"]);
    let log = site.ok(&["log"]);
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains("hi\\r\\nBcc: victim@example.org"), "{log}");
    // And the answer's subject carries no header of its own.
    let out = site.mails();
    assert!(out.iter().all(|t| !t.contains("\nBcc:")), "{out:#?}");
}

#[test]
fn subjects_never_echo_a_secret() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    site.drop_mail(
        "p.eml",
        &mail(
            "alice@example.org",
            "judge@localhost",
            "GAME 1 PASSWORD wrongsecret",
            "p@example.org",
            "hello\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let out = site.mails();
    let answer = out
        .iter()
        .find(|t| t.contains("In-Reply-To: <p@example.org>"))
        .unwrap();
    assert!(
        answer.contains("Subject: Re: GAME 1 PASSWORD ..."),
        "{answer}"
    );
    assert!(out.iter().all(|t| !t.contains("wrongsecret")));
    assert!(!site.ok(&["log"]).contains("wrongsecret"));
}

#[test]
fn an_answer_that_cannot_be_composed_is_logged_as_not_sent() {
    let site = crate::common::svg_site();
    // An address mail-parser reads but no mail can be addressed to.
    let raw = "From: \"john doe\"@example.org\r\nTo: judge@localhost\r\nSubject: help\r\nMessage-ID: <ns@example.org>\r\n\r\nHELP\r\n";
    site.drop_mail("n.eml", raw.as_bytes());
    site.ok(&["serve", "--once"]);
    let log = site.ok(&["log"]);
    assert!(log.contains("not sent"), "{log}");
    assert!(site.outbox().is_empty());
}

/// Acceptance 2: each golden mail with a malformed From (tests/mail/from-*)
/// is answered at the one address it holds; the one with no address at all
/// is logged with the reason and answered nowhere.
#[test]
fn malformed_from_headers_are_answered_at_the_one_address() {
    let site = crate::common::svg_site();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail");
    let cases = [
        ("from-unquoted-comma", Some("d.braun@corp.example")),
        ("from-no-angle-brackets", Some("d.braun@corp.example")),
        ("from-encoded-word-comma", Some("j.mueller@corp.example")),
        ("from-group-syntax", Some("anna@club.example")),
        ("from-no-address-at-all", None),
    ];
    for (name, _) in &cases {
        let raw = std::fs::read(dir.join(format!("{name}.eml"))).unwrap();
        site.drop_mail(&format!("{name}.eml"), &raw);
    }
    site.ok(&["serve", "--once"]);
    let all = site.mails();
    assert_eq!(all.len(), 4, "one answer per mail with an address");
    assert_eq!(to_count(&site, "d.braun@corp.example"), 2);
    assert_eq!(to_count(&site, "j.mueller@corp.example"), 1);
    assert_eq!(to_count(&site, "anna@club.example"), 1);
    for t in &all {
        assert!(!t.contains("\nTo: braun"), "{t}");
        assert!(!t.contains("\nTo: dieter"), "{t}");
    }
    let log = site.ok(&["log"]);
    let line = log
        .lines()
        .find(|l| l.contains("noaddr-1@corp.example"))
        .unwrap_or_else(|| panic!("no log line for the mail without an address:\n{log}"));
    assert!(line.contains("no sender address"), "{line}");
}

/// Every file under `dir` (but the mails the test itself dropped in the
/// inbox, which are the MTA's) whose mode lets group or others read or write.
fn open_to_others(dir: &std::path::Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let inbox = p.strip_prefix(dir).unwrap().starts_with("mail/inbox/new")
                || p.strip_prefix(dir).unwrap().starts_with("mail/inbox/cur");
            if meta.is_dir() {
                stack.push(p.clone());
            }
            if inbox && meta.is_file() {
                continue;
            }
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                out.push(format!("{} {mode:04o}", p.display()));
            }
        }
    }
    out.sort();
    out
}

/// Acceptance 1: `init` and `serve` (and `export -o`) leave no file of the
/// judge readable by others, whatever the host's umask; `doctor` says so,
/// and warns when a file is opened up or the config holds a password.
#[test]
fn init_and_serve_leave_no_file_readable_by_others() {
    use std::os::unix::fs::PermissionsExt;
    let site = crate::common::svg_site();
    assert_eq!(
        open_to_others(site.path()),
        Vec::<String>::new(),
        "after init"
    );
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "status.eml",
        &mail(
            "alice@example.org",
            &alice,
            "status",
            "st-1@example.org",
            "STATUS\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let export = site.path().join("game-1.json");
    site.ok(&["export", "1", "-o", export.to_str().unwrap()]);
    assert!(export.exists());
    assert!(site.path().join("adjutant.db").exists());
    assert!(
        std::fs::read_dir(site.path().join("mail/outbox"))
            .unwrap()
            .count()
            > 0
    );
    assert_eq!(
        open_to_others(site.path()),
        Vec::<String>::new(),
        "after serve"
    );
    let out = site.ok(&["doctor"]);
    assert!(out.starts_with("ok:"), "{out}");

    // A host who opened the database up, and wrote a password in the config.
    let db = site.path().join("adjutant.db");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let cfg = std::fs::read_to_string(site.config()).unwrap();
    let cfg = cfg.replace(
        "# For kind = \"smtp\", uncomment:",
        "[outbound.smtp]\nhost = \"smtp.example.org\"\npassword = \"hunter2\"\n",
    );
    std::fs::write(site.config(), cfg).unwrap();
    let o = site.run(&["doctor"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("adjutant.db is readable by others (mode 0644)"),
        "{text}"
    );
    assert!(text.contains("password_env"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
}

fn multipart(from: &str, msgid: &str, body: &str, boundary: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: judge@localhost\r\nSubject: orders\r\nMessage-ID: <{msgid}>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary={boundary}\r\n\r\n{body}"
    )
    .into_bytes()
}

/// Acceptance 3: the size limits are settings; with them set low, a mail
/// over each is not read, is logged with the limit, and its sender gets one
/// answer naming the limit.
#[test]
fn size_limits_set_low_refuse_with_one_answer_naming_the_limit() {
    let site = crate::common::svg_site();
    set_config(&site, "max_message_bytes", "5000");
    set_config(&site, "max_attachment_bytes", "300");
    set_config(&site, "max_mime_depth", "2");
    // Too large: 20 KB of HELP.
    site.drop_mail(
        "big.eml",
        &mail(
            "big@example.org",
            "judge@localhost",
            "help",
            "big-1@example.org",
            &"HELP\n".repeat(4000),
        ),
    );
    // A text attachment over 300 bytes.
    let att = format!(
        "--b\r\nContent-Type: text/plain\r\n\r\nOrders attached.\r\n--b\r\nContent-Type: text/plain; name=orders.txt\r\nContent-Disposition: attachment; filename=orders.txt\r\n\r\n{}--b--\r\n",
        "HELP\r\n".repeat(100)
    );
    site.drop_mail(
        "att.eml",
        &multipart("att@example.org", "att-1@example.org", &att, "b"),
    );
    // Three multiparts deep.
    let nested = "--a\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: multipart/alternative; boundary=d\r\n\r\n--d\r\nContent-Type: text/plain\r\n\r\nHELP\r\n--d--\r\n--c--\r\n--a--\r\n";
    site.drop_mail(
        "deep.eml",
        &multipart("deep@example.org", "deep-1@example.org", nested, "a"),
    );
    // Within every limit: read and answered as usual.
    site.drop_mail(
        "ok.eml",
        &mail(
            "ok@example.org",
            "judge@localhost",
            "help",
            "ok-1@example.org",
            "HELP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let all = site.mails();
    let to = |who: &str| -> Vec<&String> {
        all.iter()
            .filter(|t| t.contains(&format!("\nTo: {who}")))
            .collect()
    };
    for (who, limit) in [
        ("big@example.org", "at most 5000 bytes"),
        ("att@example.org", "attachments of at most 300 bytes"),
        ("deep@example.org", "nested at most 2 deep"),
    ] {
        let got = to(who);
        assert_eq!(got.len(), 1, "{who}: {got:#?}");
        let flat = got[0].replace("\r\n", " ").replace('\n', " ");
        assert!(flat.contains(limit), "{who}: {}", got[0]);
    }
    assert_eq!(to("ok@example.org").len(), 1);
    assert!(to("ok@example.org")[0].contains("play-by-email judge"));
    let log = site.ok(&["log"]);
    for (id, what) in [
        ("big-1@", "refused: too large"),
        ("att-1@", "refused: over a limit"),
        ("deep-1@", "refused: over a limit"),
    ] {
        let line = log.lines().find(|l| l.contains(id)).unwrap();
        assert!(line.contains(what), "{line}");
    }
    // The same over-limit mail again is not answered twice.
    site.drop_mail(
        "att-again.eml",
        &multipart("att@example.org", "att-1@example.org", &att, "b"),
    );
    site.ok(&["serve", "--once"]);
    assert_eq!(site.mails().len(), all.len());
}

/// Every `Your secret: X` and reply token in the mails sent so far.
fn credentials_sent(site: &Site) -> Vec<String> {
    let mut out = Vec::new();
    for t in site.mails() {
        for l in t.lines() {
            if let Some(s) = l
                .strip_prefix("Your secret: ")
                .or_else(|| l.strip_prefix("Your new secret: "))
            {
                out.push(s.trim().to_string());
            }
            if let Some(s) = l
                .trim()
                .strip_prefix("To send orders from a fresh mail: GAME ")
            {
                out.push(s.rsplit(' ').next().unwrap().to_string());
            }
            if let Some(a) = l.strip_prefix("Reply-To: ") {
                let a = a.rsplit('<').next().unwrap().trim_end_matches('>');
                if let Some(tok) = a.split('@').next().unwrap().split_once('+') {
                    out.push(tok.1.to_string());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn database_bytes(site: &Site) -> Vec<u8> {
    let mut all = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        if let Ok(b) = std::fs::read(site.path().join(format!("adjutant.db{suffix}"))) {
            all.extend(b);
        }
    }
    all
}

fn holds(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Acceptance 1: the database holds no seat's (or referee's) secret or
/// reply token in plain text, before and after STATUS and rotate-secret;
/// the credentials still work, STATUS sends a fresh secret (the old one
/// stops working, the reply token stays), rotate-secret a fresh token too.
#[test]
fn the_database_holds_no_credential_in_plain_text() {
    let site = crate::common::svg_site();
    site.ok(&[
        "new-game",
        "--scenario",
        "pegasus-bridge",
        "--seat",
        "allies=alice@example.org",
        "--seat",
        "axis=bob@example.org",
        // A team member beyond the axis's first seat (docs/teams.md).
        "--seat",
        "axis=carol@example.org",
        "--referee",
        "ref@example.org",
    ]);
    site.ok(&["serve", "--once"]);
    let first = credentials_sent(&site);
    // Three seats and the referee: a secret and a token each.
    assert!(first.len() >= 8, "{first:?}");
    let db = database_bytes(&site);
    assert!(db.len() > 10_000);
    for c in &first {
        assert!(c.len() >= 8, "{c}");
        assert!(!holds(&db, c), "the database holds {c} in plain text");
    }

    // STATUS from Alice's address mails her secret as it is; ROTATE (with
    // her secret) gives her a new secret and token: the old ones stop.
    let secret_of = |site: &Site, who: &str| -> String {
        let t = site
            .mails()
            .into_iter()
            .rev()
            .find(|t| {
                t.contains(&format!("\nTo: {who}"))
                    && (t.contains("PASSWORD ") || t.contains("Your new secret: "))
            })
            .unwrap();
        let l = t
            .lines()
            .find(|l| l.contains("PASSWORD ") || l.starts_with("Your new secret: "))
            .unwrap()
            .to_string();
        l.rsplit(' ').next().unwrap().to_string()
    };
    let old = secret_of(&site, "alice@example.org");
    let token_before = reply_address(&site, "alice@example.org");
    site.drop_mail(
        "status.eml",
        &mail(
            "alice@example.org",
            "judge@localhost",
            "status",
            "s1@example.org",
            "STATUS\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    assert_eq!(
        old,
        secret_of(&site, "alice@example.org"),
        "STATUS keeps the secret"
    );
    site.drop_mail(
        "rotate.eml",
        &mail(
            "alice@example.org",
            "judge@localhost",
            "rotate",
            "s1b@example.org",
            &format!("GAME 1\nPASSWORD {old}\nROTATE\n"),
        ),
    );
    site.ok(&["serve", "--once"]);
    let new = secret_of(&site, "alice@example.org");
    assert_ne!(old, new, "ROTATE gives a fresh secret");
    let count = site.mails().len();
    site.drop_mail(
        "old.eml",
        &mail(
            "alice@example.org",
            "judge@localhost",
            "map",
            "s2@example.org",
            &format!("GAME 1\nPASSWORD {old}\nMAP\n"),
        ),
    );
    site.drop_mail(
        "new.eml",
        &mail(
            "alice@example.org",
            "judge@localhost",
            "map",
            "s3@example.org",
            &format!("GAME 1\nPASSWORD {new}\nMAP\n"),
        ),
    );
    site.drop_mail(
        "token.eml",
        &mail(
            "alice@example.org",
            &token_before,
            "map",
            "s4@example.org",
            "MAP\n",
        ),
    );
    site.ok(&["serve", "--once"]);
    let log = site.ok(&["log"]);
    let outcome = |id: &str| {
        log.lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("{id} not in the log:\n{log}"))
            .to_string()
    };
    assert!(site.mails().len() > count);
    assert!(outcome("s2@").contains("not authenticated"), "old secret");
    assert!(outcome("s3@").contains("answered: map"), "new secret");
    assert!(
        outcome("s4@").contains("not authenticated"),
        "the old reply token stops too"
    );

    // A team member's ROTATE: a fresh secret; the old one stops.
    let carol_old = secret_of(&site, "carol@example.org");
    site.drop_mail(
        "status-c.eml",
        &mail(
            "carol@example.org",
            "judge@localhost",
            "status",
            "s5@example.org",
            &format!("GAME 1\nPASSWORD {carol_old}\nROTATE\n"),
        ),
    );
    site.ok(&["serve", "--once"]);
    let carol_new = secret_of(&site, "carol@example.org");
    assert_ne!(carol_old, carol_new, "ROTATE gives a member a fresh secret");
    site.drop_mail(
        "c-old.eml",
        &mail(
            "carol@example.org",
            "judge@localhost",
            "map",
            "s6@example.org",
            &format!("GAME 1\nPASSWORD {carol_old}\nMAP\n"),
        ),
    );
    site.drop_mail(
        "c-new.eml",
        &mail(
            "carol@example.org",
            "judge@localhost",
            "map",
            "s7@example.org",
            &format!("GAME 1\nPASSWORD {carol_new}\nMAP\n"),
        ),
    );
    site.ok(&["serve", "--once"]);
    let log = site.ok(&["log"]);
    let outcome = |id: &str| {
        log.lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("{id} not in the log:\n{log}"))
            .to_string()
    };
    assert!(
        outcome("s6@").contains("not authenticated"),
        "member's old secret"
    );
    assert!(
        outcome("s7@").contains("answered: map"),
        "member's new secret"
    );

    // rotate-secret: a fresh token and secret.
    site.ok(&["rotate-secret", "1", "axis"]);
    site.ok(&["serve", "--once"]);
    let all = credentials_sent(&site);
    assert!(all.len() > first.len());
    let db = database_bytes(&site);
    for c in &all {
        assert!(!holds(&db, c), "the database holds {c} in plain text");
    }
}

/// The start-up line says where mail really comes from and goes to; an
/// IMAP server that cannot be reached is reported once, not per poll.
#[test]
fn the_start_up_line_names_the_real_mail_paths() {
    let site = crate::common::svg_site();
    let out = site.run(&["serve", "--once"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mail in from the Maildir"), "{err}");
    assert!(err.contains("mail out by files in"), "{err}");
    let cfg = std::fs::read_to_string(site.config())
        .unwrap()
        .replace("kind = \"maildir\"", "kind = \"imap\"")
        .replace(
            "# [inbound.imap]",
            "[inbound.imap]\nhost = \"127.0.0.1\"\nport = 9\ntls = \"none\"\nuser = \"judge@adjutant.test\"\npassword_env = \"HARDENING_IMAP_PASSWORD\"\nmailbox = \"Games\"\n",
        )
        .replace("kind = \"file\"", "kind = \"smtp\"")
        .replace(
            "# [outbound.smtp]",
            "[outbound.smtp]\nhost = \"127.0.0.1\"\nport = 9\nsecurity = \"none\"\n",
        );
    std::fs::write(site.config(), cfg).unwrap();
    // (The password variable set: without it `serve` refuses to start,
    // tests/it/host.rs.)
    let out = site
        .command(&["serve", "--once"])
        .env("HARDENING_IMAP_PASSWORD", "x")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mail in from IMAP judge@adjutant.test at 127.0.0.1:9 mailbox Games"),
        "{err}"
    );
    assert!(err.contains("mail out by SMTP 127.0.0.1:9"), "{err}");
    assert!(!err.contains("drop mail"), "{err}");
    assert_eq!(err.matches("imap:").count(), 1, "{err}");
}

/// A token only in the envelope (a Bcc), found where the MTA records it:
/// X-Original-To, or the `for` clause of Received.
#[test]
fn a_token_only_in_the_envelope_is_found() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    let before = to_count(&site, "alice@example.org");
    for (i, header) in [
        format!("X-Original-To: {alice}"),
        format!("Received: from mx.example.org\r\n\tby imap.example.org with LMTP id 7\r\n\tfor <{alice}>; Mon, 3 Mar 2025 10:00:00 +0000"),
    ]
    .iter()
    .enumerate()
    {
        let raw = format!(
            "{header}\r\nFrom: alice@example.org\r\nTo: friends@example.org\r\nSubject: map\r\nMessage-ID: <env-{i}@example.org>\r\n\r\nMAP\r\n"
        );
        site.drop_mail(&format!("env-{i}.eml"), raw.as_bytes());
    }
    site.ok(&["serve", "--once"]);
    let log = site.ok(&["log"]);
    for i in 0..2 {
        let line = log
            .lines()
            .find(|l| l.contains(&format!("env-{i}@")))
            .unwrap();
        assert!(line.contains("answered: map"), "{line}");
    }
    assert_eq!(to_count(&site, "alice@example.org"), before + 2);
}

/// Issue 28: a mail of 1.9 MB of accepted order lines once got a receipt
/// echoing every one (2.4 MB). The echo is the first 200 lines and a count.
#[test]
fn a_mail_of_many_order_lines_gets_a_bounded_receipt() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    let orders = valid_orders(&site);
    let extra = 85_000;
    let mut body = orders.clone();
    body.push_str(&"STANDING AMBUSH FIRST\n".repeat(extra));
    assert!(body.len() > 1_800_000, "{}", body.len());
    let raw = format!(
        "From: alice@example.org\nTo: {alice}\nSubject: Re: welcome\nMessage-ID: <many@example.org>\nContent-Type: text/plain; charset=utf-8\n\n{body}"
    );
    site.drop_mail("many.eml", raw.as_bytes());
    let before = site.outbox().len();
    site.ok(&["serve", "--once"]);
    let new: Vec<(String, String)> = site.outbox().into_iter().skip(before).collect();
    let receipt = new
        .iter()
        .find(|(_, t)| t.contains("many@example.org"))
        .expect("a receipt");
    assert!(receipt.1.len() < 30_000, "{} bytes", receipt.1.len());
    let text = unqp(&receipt.1);
    assert!(text.contains("were accepted"), "{text}");
    let echoed = text.lines().filter(|l| l.starts_with("  # ")).count();
    let lines = orders.lines().filter(|l| !l.trim().is_empty()).count() + extra;
    assert_eq!(echoed, 201, "200 lines and the count");
    assert!(
        text.contains(&format!("  # ... and {} more lines", lines - 200)),
        "{text}"
    );
}

/// Issue 28: an order line of a hex game is at most 400 characters, as in
/// the measured family; a longer one is refused, naming the limit, and the
/// answer stays short.
#[test]
fn an_order_line_over_400_characters_is_refused_with_a_short_answer() {
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    let orders = valid_orders(&site);
    let long = format!("STANDING NO-RETREAT {}\n", "E5 ".repeat(200));
    let raw = format!(
        "From: alice@example.org\nTo: {alice}\nSubject: Re: welcome\nMessage-ID: <long@example.org>\nContent-Type: text/plain; charset=utf-8\n\n{orders}{long}"
    );
    site.drop_mail("long.eml", raw.as_bytes());
    let before = site.outbox().len();
    site.ok(&["serve", "--once"]);
    let new: Vec<(String, String)> = site.outbox().into_iter().skip(before).collect();
    let answer = new
        .iter()
        .find(|(_, t)| t.contains("long@example.org"))
        .expect("an answer");
    let text = unqp(&answer.1);
    assert!(text.contains("not accepted"), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("at most 400 characters"), "{text}");
    assert!(answer.1.len() < 10_000, "{} bytes", answer.1.len());
}

/// Issue 59: orders sent from a phone with a photo attached, and a mail
/// whose signature is an image over `max_attachment_bytes`, are read: the
/// judge never reads an image, so the cap on what it reads does not
/// refuse the mail. A text attachment over the cap still does.
#[test]
fn a_large_image_attached_to_orders_is_skipped_not_refused() {
    use base64::Engine as _;
    let site = crate::common::svg_site();
    site.pegasus_bridge(&[]);
    let alice = reply_address(&site, "alice@example.org");
    // A 2 MB "photo" (random-looking bytes) and a 600 kB signature image.
    let photo: Vec<u8> = (0..2_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let b64 = |b: &[u8]| {
        base64::engine::general_purpose::STANDARD
            .encode(b)
            .as_bytes()
            .chunks(76)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\r\n")
    };
    let body = format!(
        "--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPLAY recon-centre\r\nORDER F4\r\nBATTLE F4 F5\r\n\r\n\
         --b\r\nContent-Type: image/jpeg; name=IMG_0042.jpg\r\nContent-Disposition: attachment; filename=IMG_0042.jpg\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n\
         --b\r\nContent-Type: image/png; name=signature.png\r\nContent-Disposition: inline; filename=signature.png\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n--b--\r\n",
        b64(&photo),
        b64(&photo[..600_000])
    );
    let raw = format!(
        "From: alice@example.org\r\nTo: {alice}\r\nSubject: Re: welcome\r\nMessage-ID: <phone-1@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n{body}"
    );
    assert!(raw.len() > 3_000_000, "{} bytes", raw.len());
    let before = site.mails().len();
    site.drop_mail("phone.eml", raw.as_bytes());
    site.ok(&["serve", "--once"]);
    let new: Vec<String> = site.mails().into_iter().skip(before).collect();
    let to_alice: Vec<&String> = new
        .iter()
        .filter(|t| t.contains("\nTo: alice@example.org"))
        .collect();
    assert!(
        to_alice.iter().all(|t| !t.contains("attachment of")),
        "{to_alice:#?}"
    );
    let log = site.ok(&["log"]);
    let line = log.lines().find(|l| l.contains("phone-1@")).unwrap();
    assert!(!line.contains("refused"), "{line}");
    assert!(
        to_alice.iter().any(|t| t.contains("accepted")),
        "the orders were played: {:#?}",
        to_alice
            .iter()
            .map(|t| t.lines().take(30).collect::<Vec<_>>().join("\n"))
            .collect::<Vec<_>>()
    );
}
