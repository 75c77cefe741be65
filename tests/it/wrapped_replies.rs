//! Issue 53: order templates and receipts survive a mail client that wraps
//! long lines. Every line a player may send back fits 72 columns; a reply
//! wrapped by `fold -s -w N` (N from 60 to 76, the real coreutils tool) or
//! sent as `format=flowed` is read as the very orders of the unwrapped one,
//! for every shipped scenario of every family; and the judge, by mail,
//! accepts the wrapped reply with the orders the unwrapped one gives.

use crate::common::{self, mail, reply_address, Site};
use std::io::Write as _;
use std::process::{Command, Stdio};

const T0: &str = "2026-11-22T10:00:00Z";

/// A shipped scenario's sides, as `new-game` names them when asked for a
/// side the scenario does not have.
fn sides(site: &Site, scenario: &str) -> Vec<String> {
    let out = site.run(&[
        "new-game",
        "--scenario",
        scenario,
        "--seat",
        "nobody=x@example.org",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    let list = err
        .split("(sides: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or_else(|| panic!("{scenario}: no list of sides in {err}"));
    list.split(", ").map(str::to_string).collect()
}

/// The text/plain part of a mail.
fn plain(raw: &[u8]) -> String {
    let msg = mail_parser::MessageParser::default()
        .parse(raw)
        .expect("a mail");
    msg.body_text(0).expect("a text part").into_owned()
}

/// The order template of a report: from its `TURN n` line to the line
/// before `State ...` (what a player keeps in a reply).
fn template(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("TURN "))?;
    let end = lines[start..]
        .iter()
        .position(|l| l.starts_with("State ") || l.starts_with("Dice of turn"))
        .map_or(lines.len(), |e| start + e);
    Some(lines[start..end].join("\n").trim_end().to_string() + "\n")
}

/// `text` through the real `fold -s -w n`.
fn fold(text: &str, n: usize) -> String {
    let mut child = Command::new("fold")
        .args(["-s", "-w", &n.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("fold (coreutils)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).expect("fold keeps UTF-8 at spaces")
}

/// `text` as a client sends it with `format=flowed` (RFC 3676) at `n`
/// columns: long lines broken after a space (a soft break), lines that
/// start with a space, `>` or `From ` space-stuffed.
fn flowed(text: &str, n: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim_end();
        let mut cur = String::new();
        for word in line.split_inclusive(' ') {
            if !cur.is_empty() && cur.len() + word.trim_end().len() > n {
                push_stuffed(&mut out, &cur);
                cur.clear();
            }
            cur.push_str(word);
        }
        push_stuffed(&mut out, &cur);
    }
    out
}

fn push_stuffed(out: &mut String, l: &str) {
    if l.starts_with(' ') || l.starts_with('>') || l.starts_with("From ") {
        out.push(' ');
    }
    out.push_str(l);
    out.push('\n');
}

/// What the judge reads from a mail with `body`: the order lines without
/// their comments, and the TURN line.
fn read(body: &str, is_flowed: bool) -> (Vec<String>, Option<u32>) {
    let mut raw = mail(
        "p@example.org",
        "judge@example.org",
        "Re: orders",
        "w@x",
        body,
    );
    if is_flowed {
        let s = String::from_utf8(raw).unwrap().replacen(
            "charset=utf-8",
            "charset=utf-8; format=flowed",
            1,
        );
        raw = s.into_bytes();
    }
    let env = adjutant::mail::parse::parse(&raw);
    let req = adjutant::protocol::parse(&env.subject, &env.text);
    let orders = req
        .orders
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    (orders, req.turn)
}

/// The template as a player fills it in: every `# ` in front of an order
/// word deleted (the lines offered to be sent).
fn uncommented(t: &str) -> String {
    let words = adjutant::rules::order_words();
    t.lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest)
                if !rest.starts_with(' ')
                    && rest.split_whitespace().next().is_some_and(|w| {
                        words.contains(&w.trim_end_matches(':').to_ascii_uppercase().as_str())
                    }) =>
            {
                rest.to_string()
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The property: `text`, wrapped at every width from 60 to 76 by fold and
/// by format=flowed, is read as `text` is.
fn survives_wrapping(what: &str, text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= 72,
            "{what}: a line of {} columns a player may send back:\n{line}",
            line.chars().count()
        );
    }
    let want = read(text, false);
    for n in 60..=76 {
        assert_eq!(
            read(&fold(text, n), false),
            want,
            "{what} through fold -s -w {n}"
        );
        assert_eq!(
            read(&flowed(text, n), true),
            want,
            "{what} as format=flowed at {n}"
        );
    }
}

/// The template a player sends as it is, but for one choice each family
/// needs to be a submission: the first card played, the initiative chosen.
fn as_sent(t: &str) -> String {
    let mut played = false;
    t.lines()
        .map(|l| {
            if l.starts_with("# INITIATIVE ") || (l.starts_with("# PLAY ") && !played) {
                played |= l.starts_with("# PLAY ");
                l[2..].to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Acceptance 2 of issue 53, over every shipped scenario.
#[test]
fn templates_and_receipts_are_read_the_same_however_a_client_wraps_them() {
    let probe = Site::new();
    let scenarios: Vec<String> = probe
        .ok(&["scenarios"])
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(scenarios.len() >= 13, "{scenarios:?}");
    let mut templates = 0;
    for scenario in &scenarios {
        let sides = sides(&probe, scenario);
        // Two games in the same position: one gets the replies as the
        // template is, the other the same replies wrapped at 60.
        let sites = [game(scenario, &sides), game(scenario, &sides)];
        let mails = [sites[0].outbox(), sites[1].outbox()];
        let to = |raw: &str| {
            raw.lines()
                .find(|l| l.starts_with("To: "))
                .map(str::to_string)
        };
        for (i, ((name, raw), (_, raw_b))) in mails[0].iter().zip(&mails[1]).enumerate() {
            let text = plain(raw.as_bytes());
            let Some(t) = template(&text) else { continue };
            // A later mail (an airdrop phase played by the judge) has the
            // seat's template now.
            if mails[0][i + 1..]
                .iter()
                .any(|(_, r)| to(r) == to(raw) && template(&plain(r.as_bytes())).is_some())
            {
                continue;
            }
            // The same but for the cards dealt (Memoir '44's deck).
            let t_b = template(&plain(raw_b.as_bytes())).expect("the same template");
            templates += 1;
            let what = format!("{scenario} {name}");
            survives_wrapping(&format!("{what} template"), &t);
            survives_wrapping(&format!("{what} template filled in"), &uncommented(&t));
            // By mail: the reply wrapped at 60 is accepted, with the orders
            // of the unwrapped one, and its receipt survives wrapping too.
            let side = sides
                .iter()
                .find(|s| raw.contains(&format!("To: {s}@example.org")))
                .expect("the seat's mail");
            let who = format!("{side}@example.org");
            let mut echoes = Vec::new();
            for (k, body) in [as_sent(&t), fold(&as_sent(&t_b), 60)].iter().enumerate() {
                let site = &sites[k];
                let to = reply_address(site, &who);
                let before = site.outbox().len();
                site.drop_mail(
                    &format!("{name}.eml"),
                    &mail(&who, &to, "Re: orders", &format!("{name}-{k}@x"), body),
                );
                site.at(T0, &["serve", "--once"]);
                let out: Vec<String> = site.outbox()[before..]
                    .iter()
                    .map(|(_, r)| plain(r.as_bytes()))
                    .collect();
                let receipt = out
                    .iter()
                    .find(|t| t.contains("The orders as read"))
                    .unwrap_or_else(|| {
                        panic!("{what}: no receipt for reply {k}:\n{body}\n{out:?}")
                    });
                survives_wrapping(&format!("{what} receipt {k}"), receipt);
                echoes.push(
                    receipt
                        .lines()
                        .skip_while(|l| !l.starts_with("The orders as read"))
                        .take_while(|l| {
                            !l.is_empty() && !l.starts_with("Not read") && !l.starts_with("State ")
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
            }
            assert!(
                t != t_b || echoes[0] == echoes[1],
                "{what}: the wrapped reply was read as other orders:\n{}\n{}",
                echoes[0],
                echoes[1]
            );
        }
    }
    assert!(templates >= 13, "only {templates} templates");
}

/// A new game of `scenario`, every side a seat (`side@example.org`), the
/// mails without pictures.
fn game(scenario: &str, sides: &[String]) -> Site {
    let site = Site::new();
    common::set_picture(&site, "none");
    let seats: Vec<String> = sides
        .iter()
        .map(|s| format!("{s}={s}@example.org"))
        .collect();
    let mut args = vec!["new-game", "--scenario", scenario];
    for s in &seats {
        args.extend(["--seat", s.as_str()]);
    }
    site.at(T0, &args);
    site
}
