#!/usr/bin/env bash
# docs/host.md's "With a real mail provider, step by step", followed as
# written against the loopback Postfix + Dovecot of scripts/mailserver.sh
# and its private CA: init, the config block of docs/host.md (its provider's
# names swapped for the loopback server's), the password variables, doctor,
# a new game, two players' orders by SMTP and their receipts read back by
# IMAP, HELP to a seat's address answered with that address as Reply-To,
# a backup, a restore into a new folder, the restored judge answering a
# further mail, a restore of a judge whose config names its database by an
# absolute path, and the systemd unit's commands (contrib/adjutant.service)
# exiting with a code its RestartPreventExitStatus= names on a typo and on
# a restore without the key.
#
#   scripts/host-check.sh WORKDIR
#
# ADJUTANT names the binary (default target/debug/adjutant); JUDGE_USER,
# ALICE_USER, BOB_USER the accounts of the mail server (default judge,
# alice, bob; tests/it/host.rs gives its slot's). The mail server: the one
# of scripts/mailserver.sh in MAIL_ROOT (default /tmp/adj-mail), started if
# it is not running (as root); or, with MAIL_TLS_CA set (its CA's PEM
# file), one started elsewhere, at SMTP_PORT, IMAP_PORT and IMAPS_PORT.
# Stops at the first step that fails; exit 0 when every step did what the
# docs say.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:?usage: scripts/host-check.sh WORKDIR}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
ADJUTANT=${ADJUTANT:-$ROOT/target/debug/adjutant}
MAIL_ROOT=${MAIL_ROOT:-/tmp/adj-mail}

step() { echo "== host-check: $*"; }
fail() { echo "host-check: FAILED: $*" >&2; exit 1; }

if [ -z "${MAIL_TLS_CA:-}" ] &&
    ! bash "$ROOT/scripts/mailserver.sh" status "$MAIL_ROOT" >/dev/null 2>&1; then
    # (`eval "$(...)"` would carry on after a failed start.)
    started=$(bash "$ROOT/scripts/mailserver.sh" start "$MAIL_ROOT") ||
        fail "scripts/mailserver.sh start $MAIL_ROOT failed"
    eval "$started"
fi
export SMTP_PORT=${SMTP_PORT:-2525} IMAP_PORT=${IMAP_PORT:-1143}
IMAPS_PORT=${IMAPS_PORT:-1993}
MAIL_TLS_CA=${MAIL_TLS_CA:-$MAIL_ROOT/tls/ca.pem}
[ -r "$MAIL_TLS_CA" ] || fail "no CA file $MAIL_TLS_CA (set MAIL_TLS_CA, or MAIL_ROOT)"
DOMAIN=adjutant.test
JUDGE=${JUDGE_USER:-judge}@$DOMAIN
ALICE=${ALICE_USER:-alice}@$DOMAIN
BOB=${BOB_USER:-bob}@$DOMAIN

client() { python3 "$ROOT/tests/mailclient.py" "$@"; }
adj() { local cfg=$1; shift; ADJUTANT_LOG=${ADJUTANT_LOG:-warn} "$ADJUTANT" --config "$cfg" "$@"; }

# The first mail in USER's INBOX after the first SKIP whose subject or body
# holds NEEDLE, as JSON; the judge of CONFIG runs `serve --once` (from cron,
# as docs/host.md's step 6 allows) between looks, for up to a minute.
wait_mail() {
    local cfg=$1 user=$2 skip=$3 needle=$4 found
    for _ in $(seq 1 120); do
        adj "$cfg" serve --once >/dev/null 2>"$WORK/serve.err" || {
            cat "$WORK/serve.err" >&2
            fail "serve --once failed"
        }
        if found=$(client fetch "$user" | python3 -c '
import json, sys
needle, skip = sys.argv[1], int(sys.argv[2])
for m in json.load(sys.stdin)[skip:]:
    if needle in m["subject"] or needle in m["body"]:
        print(json.dumps(m)); sys.exit(0)
sys.exit(1)' "$needle" "$skip"); then
            echo "$found"
            return 0
        fi
        sleep 0.5
    done
    fail "$user never got a mail with \"$needle\" (after its first $skip)"
}

count() { client fetch "$1" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
reply_address() { field "$1" reply_to | sed -e 's/.*<//' -e 's/>.*//'; }
first_card() { field "$1" body | sed -n 's/^# PLAY \([a-z0-9-]*\).*/\1/p' | head -n1; }

# A player answers MAIL (a welcome or a report) with a turn that discards
# the first card of the hand it lists: orders any position accepts.
play() {
    local who=$1 mail=$2 card to
    card=$(first_card "$mail")
    to=$(reply_address "$mail")
    [ -n "$card" ] || fail "no card in the mail to $who: $(field "$mail" body)"
    printf 'DISCARD %s\n' "$card" | client send "$who" "$to" "Re: $(field "$mail" subject)"
}

for u in "$JUDGE" "$ALICE" "$BOB"; do client clear "$u"; done
SRV=$WORK/srv/adjutant
CFG=$SRV/adjutant.toml

step "1. adjutant init"
"$ADJUTANT" init "$SRV" >/dev/null

step "2. the config block of docs/host.md"
block=$(awk '/<!-- host-check: config -->/ {f = 1; next} /<!-- host-check: end -->/ {f = 0} f' "$ROOT/docs/host.md" |
    sed -e 's/^   //' | grep -v '^```')
[ "$(printf '%s\n' "$block" | grep -c '^\[')" -eq 4 ] || fail "no config block in docs/host.md"
# The provider is the loopback server, whose CA is private: its PEM in the
# judge's folder as the docs say, and both ca_file lines uncommented.
mkdir -p -m 0700 "$WORK/etc/adjutant"
cp "$MAIL_TLS_CA" "$SRV/provider-ca.pem"
block=$(printf '%s\n' "$block" | sed \
    -e "s/mail\.example\.org/127.0.0.1/" \
    -e "s/judge@example\.org/$JUDGE/" \
    -e "s/^port = 993\$/port = $IMAPS_PORT/" \
    -e "s/^port = 587\$/port = $SMTP_PORT/" \
    -e 's|^# ca_file = "provider-ca.pem"|ca_file = "provider-ca.pem"|')
[ "$(printf '%s\n' "$block" | grep -c '^ca_file = ')" -eq 2 ] || fail "the ca_file lines are not in the docs' block"
# Edited in place, as an editor does: the file keeps its mode (0600).
top=$(sed -e "s/^address = .*/address = \"$JUDGE\"/" -e '/^\[inbound\]$/,$d' "$CFG")
printf '%s\n%s\n' "$top" "$block" >"$CFG"

step "3. the password variables, from the environment file as a root shell loads it"
ENV_FILE=$WORK/etc/adjutant/adjutant.env
(umask 077 && printf 'ADJUTANT_IMAP_PASSWORD=%s\nADJUTANT_SMTP_PASSWORD=%s\n' secret secret >"$ENV_FILE")
unset ADJUTANT_IMAP_PASSWORD ADJUTANT_SMTP_PASSWORD
set -a
. "$ENV_FILE"
set +a
[ "${ADJUTANT_SMTP_PASSWORD:-}" = secret ] || fail "the environment file did not set the passwords"

step "4. doctor, and serve --once starts"
adj "$CFG" doctor | grep -q '^ok' || fail "doctor is not ok: $(adj "$CFG" doctor)"
adj "$CFG" serve --once 2>"$WORK/serve.err" >/dev/null || {
    cat "$WORK/serve.err" >&2
    fail "serve --once refused to start"
}

step "5. a new game: the welcomes by SMTP"
[ "$(adj "$CFG" new-game --scenario pegasus-bridge --seat "allies=$ALICE" --seat "axis=$BOB")" = 1 ] ||
    fail "new-game did not make game 1"
welcome=$(wait_mail "$CFG" "$ALICE" 0 "welcome, you play allies")
wait_mail "$CFG" "$BOB" 0 "welcome, you play axis" >/dev/null

step "6. two players' orders by SMTP, receipts by IMAP"
play "$ALICE" "$welcome"
wait_mail "$CFG" "$ALICE" 1 "were accepted and adjudicated" >/dev/null
report=$(wait_mail "$CFG" "$BOB" 1 "turn 1 (allies)")
play "$BOB" "$report"
wait_mail "$CFG" "$BOB" 2 "were accepted and adjudicated" >/dev/null
report=$(wait_mail "$CFG" "$ALICE" 2 "turn 2 (axis)")
adj "$CFG" games | grep -Eq '^ +1 .* 2  active' || fail "game 1 is not at turn 2: $(adj "$CFG" games)"

step "6b. HELP to a seat's address is answered with that address as Reply-To"
seat=$(reply_address "$report")
skip=$(count "$ALICE")
printf 'HELP\n' | client send "$ALICE" "$seat" "Re: help"
help=$(wait_mail "$CFG" "$ALICE" "$skip" "understands these")
[ "$(reply_address "$help")" = "$seat" ] ||
    fail "the HELP answer's Reply-To is \"$(field "$help" reply_to)\", not the seat's $seat"

step "7. backup"
BACKUP=$WORK/backups/adjutant-$(date +%F)
adj "$CFG" backup "$BACKUP" >/dev/null
for f in adjutant.db adjutant.db.key adjutant.toml; do
    [ "$(stat -c %a "$BACKUP/$f")" = 600 ] || fail "$BACKUP/$f is not 0600"
done
[ "$(stat -c %a "$BACKUP")" = 700 ] || fail "$BACKUP is not 0700"
cmp -s "$BACKUP/provider-ca.pem" "$SRV/provider-ca.pem" || fail "the backup lacks the relative ca_file provider-ca.pem"

step "8. restore into a new folder"
RESTORED=$WORK/srv/adjutant-restored
mkdir -p -m 0700 "$RESTORED"
cp -rp "$BACKUP"/. "$RESTORED"/
adj "$RESTORED/adjutant.toml" doctor | grep -q '^ok' || fail "doctor of the restored judge is not ok"

step "9. the restored judge answers a further mail"
skip=$(count "$ALICE")
play "$ALICE" "$report"
wait_mail "$RESTORED/adjutant.toml" "$ALICE" "$skip" "were accepted and adjudicated" >/dev/null
adj "$RESTORED/adjutant.toml" games | grep -Eq '^ +1 .* 3  active' ||
    fail "the restored game 1 is not at turn 3: $(adj "$RESTORED/adjutant.toml" games)"
adj "$CFG" games | grep -Eq '^ +1 .* 2  active' || fail "the old judge's database changed"

step "10. a judge whose database path is absolute: backed up, restored elsewhere"
sed -i -e "s|^database = .*|database = \"$SRV/adjutant.db\"|" "$CFG"
adj "$CFG" games | grep -Eq '^ +1 .* 2  active' || fail "the absolute database path is not the judge's"
BACKUP2=$WORK/backups/adjutant-absolute
adj "$CFG" backup "$BACKUP2" >/dev/null
# The old folder gone, as on another machine.
mv "$SRV" "$SRV.away"
RESTORED2=$WORK/srv/adjutant-restored-absolute
mkdir -p -m 0700 "$RESTORED2"
cp -rp "$BACKUP2"/. "$RESTORED2"/
adj "$RESTORED2/adjutant.toml" doctor | grep -q '^ok' ||
    fail "doctor of the restored judge is not ok: $(adj "$RESTORED2/adjutant.toml" doctor)"
adj "$RESTORED2/adjutant.toml" games | grep -Eq '^ +1 .* 2  active' ||
    fail "the restored judge does not know game 1: $(adj "$RESTORED2/adjutant.toml" games)"
[ ! -e "$SRV" ] || fail "a command of the restored judge made $SRV"
mv "$SRV.away" "$SRV"

step "11. the systemd unit's commands exit with a code it does not restart on"
UNIT=$ROOT/contrib/adjutant.service
UNIT_DIR=$WORK/var/lib/adjutant
prevent=$(sed -n 's/^RestartPreventExitStatus=//p' "$UNIT")
[ -n "$prevent" ] || fail "no RestartPreventExitStatus= in $UNIT"
# The unit's command lines, this binary and folder in place of the installed ones.
unit_cmd() {
    sed -n "s/^$1=//p" "$UNIT" | sed -e "s|/usr/local/bin/adjutant|$ADJUTANT|" -e "s|/var/lib/adjutant|$UNIT_DIR|g"
}
start_pre=$(unit_cmd ExecStartPre)
start=$(unit_cmd ExecStart)
[ -n "$start_pre" ] && [ -n "$start" ] || fail "no ExecStartPre= or ExecStart= in $UNIT"
# Exit code of one unit command line (never left running: it must refuse).
unit_exit() { local rc=0; ADJUTANT_LOG=warn timeout 60 $1 >/dev/null 2>&1 || rc=$?; echo "$rc"; }
expect_refused() {
    local what=$1 rc
    for cmd in "$start_pre" "$start"; do
        rc=$(unit_exit "$cmd")
        case " $prevent " in
        *" $rc "*) ;;
        *) fail "$what: \`$cmd\` exited $rc, not one of RestartPreventExitStatus=$prevent (systemd would restart it for ever)" ;;
        esac
    done
}
mkdir -p -m 0700 "$UNIT_DIR"
cp -rp "$BACKUP"/. "$UNIT_DIR"/
[ "$(unit_exit "$start_pre")" = 0 ] || fail "the unit's ExecStartPre fails on a restored judge"
sed -i -e 's/^poll_seconds = /pol_seconds = /' "$UNIT_DIR/adjutant.toml"
expect_refused "a typo in adjutant.toml"
sed -i -e 's/^pol_seconds = /poll_seconds = /' "$UNIT_DIR/adjutant.toml"
rm "$UNIT_DIR/adjutant.db.key"
expect_refused "a restore without the key"
[ ! -e "$UNIT_DIR/adjutant.db.key" ] || fail "a new key was made"

step "all steps of docs/host.md passed"
