#!/usr/bin/env bash
# Latency of the judge's answers from a player's side (issue 31;
# docs/performance.md, "Latency"). Starts the loopback mail server
# (scripts/mailserver.sh), runs `adjutant serve` against it over IMAP and
# SMTP with poll_seconds at its default of 30, sends order mails by SMTP at
# each RATE for SECONDS and reports p50/p99/max from submission to the
# receipt in the player's IMAP mailbox; then the same for a Maildir drop to
# the receipt's file (scripts/latency.py does the timing). The judge holds
# RATE x SECONDS running Pegasus Bridge games (made once per run of this
# script, `latency.py games`), and mail i is the Allies' first turn in game
# i: accepted, answered with a receipt, and completing the turn (its two
# reports are queued with the receipt).
#
#   scripts/latency.sh [SECONDS] [RATE...]      default: 60 s at 1 and 20 mails/s
#   ADJUTANT_BIN=path/to/adjutant               default: target/release/adjutant,
#                                               else target/debug/adjutant
#   LATENCY_BEFORE=1                            also time the IMAP judge polling
#                                               (idle = false: as before issue 31)
#   LATENCY_FLOOR=1                             also time the mail server alone
#                                               (one pass through Postfix and Dovecot)
#   LATENCY_PATHS="imap maildir"                the paths to time (default: both)
#   ADJ_LATENCY_GAMES=DIR                       games made before (latency.py games
#                                               BIN N DIR), to time several runs
#   LATENCY_MAILS=help                          HELP mails instead of order mails
#                                               (the first figures, no games)
#
# Needs root (the mail server). Takes /tmp/adj-mailserver.lock, which every
# test using the shared mail server holds, for the whole run.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${1:-60}
RATES=("${@:2}")
[ ${#RATES[@]} -gt 0 ] || RATES=(1 20)

BIN=${ADJUTANT_BIN:-}
if [ -z "$BIN" ]; then
    if [ -x target/release/adjutant ]; then BIN=target/release/adjutant; else BIN=target/debug/adjutant; fi
fi
[ -x "$BIN" ] || { echo "latency: no judge binary at $BIN (cargo build first)" >&2; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

if [ -z "${ADJ_LATENCY_LOCKED:-}" ]; then
    # The games are made before the lock is taken (a few minutes for 1200).
    if [ "${LATENCY_MAILS:-orders}" != help ] && [ -z "${ADJ_LATENCY_GAMES:-}" ]; then
        most=$(printf '%s\n' "${RATES[@]}" | sort -g | tail -n1)
        n=$(python3 -c "import sys; print(int(float(sys.argv[1]) * float(sys.argv[2])))" "$most" "$SECONDS_EACH")
        tpl=$(mktemp -d /tmp/adj-latency-games-XXXXXX)
        trap 'rm -rf "$tpl"' EXIT
        python3 scripts/latency.py games "$BIN" "$n" "$tpl/j"
        export ADJ_LATENCY_GAMES=$tpl/j
    fi
    export ADJ_LATENCY_LOCKED=1
    rc=0
    flock /tmp/adj-mailserver.lock "$0" "$@" || rc=$?
    exit $rc
fi

bash scripts/mailserver.sh status /tmp/adj-mail >/dev/null 2>&1 \
    || bash scripts/mailserver.sh start /tmp/adj-mail >/dev/null

GAMES=()
[ -z "${ADJ_LATENCY_GAMES:-}" ] || GAMES=(--games "$ADJ_LATENCY_GAMES")

echo "judge: $BIN; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
for rate in "${RATES[@]}"; do
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    for path in ${LATENCY_PATHS:-imap maildir}; do
        python3 scripts/latency.py "$path" "$BIN" "$rate" "$SECONDS_EACH" "${GAMES[@]}" || rc=1
        if [ "$path" = imap ] && [ -n "${LATENCY_BEFORE:-}" ]; then
            python3 scripts/latency.py imap "$BIN" "$rate" "$SECONDS_EACH" --no-idle "${GAMES[@]}" || rc=1
        fi
    done
    if [ -n "${LATENCY_FLOOR:-}" ]; then
        python3 scripts/latency.py floor "$BIN" "$rate" "$SECONDS_EACH" || rc=1
    fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
