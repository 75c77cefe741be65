#!/usr/bin/env bash
# Latency of the judge's answers from a player's side (issue 31;
# docs/performance.md, "Latency"). Starts the loopback mail server
# (scripts/mailserver.sh), runs `adjutant serve` against it over IMAP and
# SMTP with poll_seconds at its default of 30, sends order mails by SMTP at
# each RATE for SECONDS and reports p50/p99/max from submission to the
# answer in the player's IMAP mailbox; then the same for a Maildir drop to
# the answer's file (scripts/latency.py does the timing).
#
#   scripts/latency.sh [SECONDS] [RATE...]      default: 60 s at 1 and 20 mails/s
#   ADJUTANT_BIN=path/to/adjutant               default: target/release/adjutant,
#                                               else target/debug/adjutant
#   LATENCY_BEFORE=1                            also time the IMAP judge polling
#                                               (idle = false: as before issue 31)
#   LATENCY_FLOOR=1                             also time the mail server alone
#                                               (one pass through Postfix and Dovecot)
#
# Needs root (the mail server). Takes /tmp/adj-mailserver.lock, which every
# test using the shared mail server holds, for the whole run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${ADJ_LATENCY_LOCKED:-}" ]; then
    export ADJ_LATENCY_LOCKED=1
    exec flock /tmp/adj-mailserver.lock "$0" "$@"
fi

SECONDS_EACH=${1:-60}
shift || true
RATES=("$@")
[ ${#RATES[@]} -gt 0 ] || RATES=(1 20)

BIN=${ADJUTANT_BIN:-}
if [ -z "$BIN" ]; then
    if [ -x target/release/adjutant ]; then BIN=target/release/adjutant; else BIN=target/debug/adjutant; fi
fi
[ -x "$BIN" ] || { echo "latency: no judge binary at $BIN (cargo build first)" >&2; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

bash scripts/mailserver.sh status /tmp/adj-mail >/dev/null 2>&1 \
    || bash scripts/mailserver.sh start /tmp/adj-mail >/dev/null

echo "judge: $BIN; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
for rate in "${RATES[@]}"; do
    python3 scripts/latency.py imap "$BIN" "$rate" "$SECONDS_EACH" || rc=1
    if [ -n "${LATENCY_BEFORE:-}" ]; then
        python3 scripts/latency.py imap "$BIN" "$rate" "$SECONDS_EACH" --no-idle || rc=1
    fi
    python3 scripts/latency.py maildir "$BIN" "$rate" "$SECONDS_EACH" || rc=1
    if [ -n "${LATENCY_FLOOR:-}" ]; then
        python3 scripts/latency.py floor "$BIN" "$rate" "$SECONDS_EACH" || rc=1
    fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
