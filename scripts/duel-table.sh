#!/bin/sh
# The table of docs/general.md, "Measured strength" (issue 58 acceptance 1):
# `adjutant duel` of every shipped scenario against the random-order player
# and against a side that passes every phase, GAMES games each (the general
# takes each side in turn), in a release build, one duel after another,
# niced: the machine may be shared.
#
#   scripts/duel-table.sh [GAMES [SEED]]      # defaults: 100 games, seed 1
#   SCENARIOS="pegasus-bridge minden-1759" scripts/duel-table.sh 20
#
# Prints one Markdown row a scenario as it finishes (scenario, against
# random, against pass, the slowest decision in either, wall clock of the
# two duels), then the commit, the command and the load average before and
# after. Each duel's own output is kept in $OUT (default target/duel-table).
set -eu
cd "$(dirname "$0")/.."
GAMES=${1:-100}
SEED=${2:-1}
OUT=${OUT:-target/duel-table}
mkdir -p "$OUT"
# BIN=path: a binary already built (e.g. the dev profile's, when a release
# build would not finish in time); the table says which.
if [ -z "${BIN:-}" ]; then
    nice -n 10 cargo build --release --quiet --bin adjutant
    BIN=target/release/adjutant
fi
SCENARIOS=${SCENARIOS:-$("$BIN" scenarios)}
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
COMMIT=$(git rev-parse --short=8 HEAD)
if ! git diff --quiet HEAD -- crates src; then COMMIT="$COMMIT (with changes)"; fi

# "W of N (side w/n, side w/n)" and the slowest decision from a duel's output.
summary() {
    awk '
        /^ai as / { side = $3; sub(":", "", side); n = $4; w = $6;
                    sides = sides (sides == "" ? "" : ", ") side " " w "/" n }
        /^slowest decision:/ { slow = $3 }
        /^ai won / { total = $3 " of " $5 }
        END { printf "%s (%s)\t%s\n", total, sides, slow }
    ' "$1"
}

echo "| scenario | against random | against pass | slowest decision | wall clock |"
echo "|---|---|---|---|---|"
for s in $SCENARIOS; do
    start=$(date +%s)
    for against in random pass; do
        nice -n 10 "$BIN" duel --scenario "$s" --games "$GAMES" --seed "$SEED" \
            --against "$against" >"$OUT/$s-$against.txt" 2>/dev/null
    done
    secs=$(($(date +%s) - start))
    r=$(summary "$OUT/$s-random.txt")
    p=$(summary "$OUT/$s-pass.txt")
    slow=$(printf '%s\n%s\n' "${r#*	}" "${p#*	}" | sort -n | tail -1)
    echo "| $s | ${r%	*} | ${p%	*} | $slow ms | $secs s |"
done
echo
echo "commit $COMMIT; \`scripts/duel-table.sh $GAMES $SEED\` ($BIN, nice -n 10);" \
    "load average before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
