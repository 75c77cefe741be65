# Sourced by scripts/loadtest.sh and scripts/backlog.sh: a fresh judge with
# N Pegasus Bridge games and one legal order mail per game in its inbox.
#
#   orders_setup N PREFIX   sets B (the release binary), T (a temporary
#                           directory, removed on exit), C (the config) and
#                           n (the order mails written); PREFIX names the
#                           mails' Message-IDs (<PREFIX-k@example.org>).
orders_setup() {
  local N=$1 prefix=$2 i f to reply
  cargo build --release -q || { echo "cargo build --release fails"; exit 1; }
  B=$PWD/target/release/adjutant
  T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
  "$B" init "$T/j" >/dev/null 2>&1; C=$T/j/adjutant.toml
  for i in $(seq 1 "$N"); do
    "$B" --config "$C" new-game --scenario pegasus-bridge --seat allies=a$i@example.org \
      --seat axis=b$i@example.org >/dev/null 2>&1 || { echo "new-game fails"; exit 1; }
  done
  # One order mail per game, to the Allies seat's reply address (from its welcome).
  n=0
  for f in "$T"/j/mail/outbox/*-welcome.eml; do
    to=$(sed -n 's/^To: \(a[0-9]*@example.org\)\r\?$/\1/p' "$f")
    [ -n "$to" ] || continue
    reply=$(sed -n 's/^Reply-To: .*<\(.*\)>\r\?$/\1/p' "$f")
    printf 'From: %s\r\nTo: %s\r\nSubject: orders\r\nMessage-ID: <%s-%d@example.org>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\r\nPLAY recon-centre\r\nORDER F4\r\nBATTLE F4 F5\r\n' \
      "$to" "$reply" "$prefix" "$n" > "$T/j/mail/inbox/new/$n.eml"
    n=$((n + 1))
  done
}
