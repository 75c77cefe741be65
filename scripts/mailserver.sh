#!/usr/bin/env bash
# A real mail server on loopback for Adjutant's tests: Postfix (SMTP) hands mail
# over LMTP to Dovecot (Maildir, IMAP). No systemd, nothing leaves the machine.
#
#   scripts/mailserver.sh install      # Debian packages (idempotent, quick when present)
#   scripts/mailserver.sh start DIR    # config, accounts, TLS test CA under DIR; start both
#   scripts/mailserver.sh status DIR
#   scripts/mailserver.sh stop DIR
#
# `start` prints environment lines on stdout (eval-able):
#   SMTP_PORT=2525 IMAP_PORT=1143 SMTPS_PORT=2465 IMAPS_PORT=1993 MAIL_TLS_CA=DIR/tls/ca.pem
# Accounts: judge, alice, bob, carol, referee @adjutant.test, password "secret";
# and the same five once more for each of $SLOTS test slots, named t1-judge ...
# t16-referee, so that tests running side by side never share a mailbox.
# Plus-addressing: judge+TOKEN@adjutant.test is delivered to judge's INBOX.
# Port 2525 offers STARTTLS and AUTH (PLAIN/LOGIN, also without TLS); 2465 is
# implicit TLS (smtps). IMAP on 1143 offers STARTTLS; 1993 is IMAPS. The
# certificate is issued by a throwaway CA (DIR/tls/ca.pem) for 127.0.0.1,
# localhost and mail.adjutant.test.
#
# Must run as root. Postfix uses the stock queue directory /var/spool/postfix,
# so one instance runs per machine; `start` restarts it with DIR's config.
set -euo pipefail

DOMAIN=adjutant.test
NAMES=(judge alice bob carol referee)
SLOTS=16
USERS=("${NAMES[@]}")
for k in $(seq 1 "$SLOTS"); do for n in "${NAMES[@]}"; do USERS+=("t$k-$n"); done; done
PASSWORD=secret
SMTP_PORT=${SMTP_PORT:-2525}
SMTPS_PORT=${SMTPS_PORT:-2465}
IMAP_PORT=${IMAP_PORT:-1143}
IMAPS_PORT=${IMAPS_PORT:-1993}
PACKAGES=(postfix dovecot-imapd dovecot-lmtpd)
POSTFIX_SPOOL=/var/spool/postfix
POSTFIX_PID=$POSTFIX_SPOOL/pid/master.pid

log() { printf 'mailserver: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || die "must run as root"; }

all_installed() {
    local p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
    done
    command -v openssl >/dev/null
}

cmd_install() {
    need_root
    if all_installed; then
        log "already installed: ${PACKAGES[*]}"
        return 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    # Do not let package scripts start the stock daemons (there is no init here anyway).
    local made_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        made_policy=1
        trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    {
        echo "postfix postfix/main_mailer_type select No configuration"
        echo "postfix postfix/mailname string mail.$DOMAIN"
    } | debconf-set-selections
    if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
        apt-get update -q
    fi
    if ! apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" openssl; then
        log "install failed; refreshing package lists and retrying"
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" openssl
    fi
    if [ "$made_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; trap - EXIT; fi
    all_installed || die "packages still missing after install"
    log "installed: ${PACKAGES[*]}"
}

abs_dir() {
    [ -n "${1:-}" ] || die "usage: $0 start|stop|status DIR"
    mkdir -p "$1"
    (cd "$1" && pwd -P)
}

# The fields of /proc/PID/stat after the command name: state ppid pgrp ...
# (no procps needed: minimal images lack ps).
proc_stat() {
    local s
    [ -n "${1:-}" ] || return 1
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    echo "${s##*) }"
}

# Is PID a live process? Dead ones may linger as zombies (nothing reaps them
# here), so look at the state, not at `kill -0`.
alive() {
    local f
    f=$(proc_stat "${1:-}") || return 1
    # shellcheck disable=SC2086
    set -- $f
    [ "$1" != Z ] && [ "$1" != X ]
}

pgid_of() {
    local f
    f=$(proc_stat "$1") || return 1
    # shellcheck disable=SC2086
    set -- $f
    echo "$3"
}

# Live members of process group $G (read with builtins: there may be many
# zombies to skip).
group_members() {
    local d s f
    for d in /proc/[0-9]*; do
        { read -r s <"$d/stat"; } 2>/dev/null || continue
        read -r -a f <<<"${s##*) }"
        if [ "${f[2]}" = "$G" ] && [ "${f[0]}" != Z ] && [ "${f[0]}" != X ]; then
            echo "${d#/proc/}"
        fi
    done
}

read_pid() { if [ -r "$1" ]; then tr -d ' \n' <"$1"; fi; }

postfix_pid() { read_pid "$POSTFIX_PID"; }
dovecot_pid() { read_pid "$1/dovecot/run/master.pid"; }

# The Postfix master running with DIR's config (MAIL_CONFIG in its environment)?
postfix_is_ours() {
    local pid=$1 dir=$2
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "MAIL_CONFIG=$dir/postfix"
}

# TERM the process group led by PID (or PID alone), wait, then KILL.
terminate() {
    local pid=$1 name=$2 target pgid
    alive "$pid" || return 0
    pgid=$(pgid_of "$pid" || true)
    if [ -n "$pgid" ] && [ "$pgid" = "$pid" ]; then target=(-- "-$pid"); else target=("$pid"); fi
    kill -TERM "${target[@]}" 2>/dev/null || true
    for _ in $(seq 1 50); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        log "$name ($pid) did not stop; killing"
        kill -KILL "${target[@]}" 2>/dev/null || true
        sleep 0.2
    fi
    # Stragglers of the group (children that outlived their master).
    if [ "${target[1]:-}" = "-$pid" ]; then
        local left
        left=$(G=$pid group_members)
        if [ -n "$left" ]; then
            # shellcheck disable=SC2086
            kill -KILL $left 2>/dev/null || true
        fi
    fi
}

port_answers() {
    # Read the greeting: "220" for SMTP, "* OK" for IMAP.
    local port=$1 want=$2 line
    line=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && head -n1 <&3" 2>/dev/null) || return 1
    case "$line" in "$want"*) return 0 ;; *) return 1 ;; esac
}

ensure_vmail() {
    if ! getent group vmail >/dev/null; then groupadd --system vmail; fi
    if ! getent passwd vmail >/dev/null; then
        useradd --system --gid vmail --home-dir /nonexistent --no-create-home \
            --shell /usr/sbin/nologin vmail
    fi
}

write_tls() {
    local dir=$1/tls
    mkdir -p "$dir"
    if [ -s "$dir/server.pem" ] && [ -s "$dir/server.key" ] && [ -s "$dir/ca.pem" ]; then return 0; fi
    (
        cd "$dir"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -keyout ca.key -out ca.pem -days 3650 -subj "/CN=Adjutant test CA" 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -keyout server.key -out server.csr -subj "/CN=mail.$DOMAIN" 2>/dev/null
        printf '%s\n' \
            "subjectAltName=DNS:localhost,DNS:mail.$DOMAIN,IP:127.0.0.1" \
            "basicConstraints=critical,CA:FALSE" \
            "keyUsage=critical,digitalSignature" \
            "extendedKeyUsage=serverAuth" >server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -out server.pem -days 3650 -extfile server.ext 2>/dev/null
        rm -f server.csr server.ext ca.srl
        chmod 600 ca.key server.key
        chmod 644 ca.pem server.pem
    )
}

# Moves FILE.new over FILE unless they are equal. A new file is backdated:
# Postfix waits about 2 s at start-up when a configuration file is brand new.
replace_if_changed() {
    if cmp -s "$1.new" "$1"; then rm -f "$1.new"; else touch -d "-1 minute" "$1.new" && mv -f "$1.new" "$1"; fi
}

write_postfix() {
    local dir=$1 cf=$1/postfix
    mkdir -p "$cf"
    local u
    {
        for u in "${USERS[@]}"; do echo "$u@$DOMAIN OK"; done
        echo "postmaster@$DOMAIN OK"
    } >"$cf/vmailbox.new"
    cat >"$cf/main.cf.new" <<EOF
# Generated by scripts/mailserver.sh: Adjutant's loopback test server.
compatibility_level = 3.6
myhostname = mail.$DOMAIN
mydomain = $DOMAIN
myorigin = \$mydomain
inet_interfaces = loopback-only
inet_protocols = ipv4
mydestination =
mynetworks = 127.0.0.0/8
relay_domains =
alias_maps =
alias_database =
append_dot_mydomain = no
biff = no
recipient_delimiter = +
message_size_limit = 52428800
smtpd_error_sleep_time = 0
virtual_mailbox_domains = $DOMAIN
virtual_mailbox_maps = texthash:$cf/vmailbox
virtual_transport = lmtp:unix:private/dovecot-lmtp
# One recipient per LMTP transaction, so that Dovecot writes each message's own
# Delivered-To (with the +token) and a "for <...>" in Received.
lmtp_destination_recipient_limit = 1
# Nothing leaves the machine.
default_transport = error:outbound mail disabled on the test server
relay_transport = error:outbound mail disabled on the test server
local_transport = error:local delivery disabled on the test server
smtpd_relay_restrictions = permit_mynetworks, permit_sasl_authenticated, reject_unauth_destination
smtpd_recipient_restrictions =
# No syslog here: log to a file.
maillog_file = $dir/log/postfix.log
maillog_file_prefixes = $dir/log, /var, /dev/stdout
# SMTP AUTH through Dovecot, also allowed without TLS (loopback tests).
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = private/auth
smtpd_tls_auth_only = no
smtpd_tls_cert_file = $dir/tls/server.pem
smtpd_tls_key_file = $dir/tls/server.key
smtpd_tls_security_level = may
smtp_tls_security_level = none
EOF
    cat >"$cf/master.cf.new" <<EOF
# Generated by scripts/mailserver.sh. chroot is "n" everywhere: nothing populates a jail.
127.0.0.1:$SMTP_PORT inet n - n - - smtpd
127.0.0.1:$SMTPS_PORT inet n - n - - smtpd
  -o smtpd_tls_wrappermode=yes
  -o smtpd_tls_security_level=encrypt
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
virtual   unix  -       n       n       -       -       virtual
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
EOF
    replace_if_changed "$cf/vmailbox"
    replace_if_changed "$cf/main.cf"
    replace_if_changed "$cf/master.cf"
}

write_dovecot() {
    local dir=$1 dc=$1/dovecot uid
    mkdir -p "$dc/run" "$dc/state" "$dir/mail"
    chown vmail:vmail "$dir/mail"
    chmod 750 "$dir/mail"
    uid=$(id -u vmail)
    : >"$dc/users"
    local u
    for u in "${USERS[@]}"; do echo "$u@$DOMAIN:{PLAIN}$PASSWORD::::::" >>"$dc/users"; done
    chmod 640 "$dc/users"
    chgrp dovecot "$dc/users" 2>/dev/null || true
    cat >"$dc/dovecot.conf" <<EOF
# Generated by scripts/mailserver.sh: Adjutant's loopback test server.
base_dir = $dc/run
state_dir = $dc/state
protocols = imap lmtp
listen = 127.0.0.1
log_path = $dir/log/dovecot.log
info_log_path = $dir/log/dovecot.log
ssl = yes
ssl_cert = <$dir/tls/server.pem
ssl_key = <$dir/tls/server.key
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = $uid
mail_uid = vmail
mail_gid = vmail
mail_location = maildir:$dir/mail/%d/%n/Maildir
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
# Delivered-To: the address as sent (judge+TOKEN@...), not the stripped one.
lmtp_hdr_delivery_address = original
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $dc/users
}
userdb {
  driver = static
  args = uid=vmail gid=vmail home=$dir/mail/%d/%n
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP_PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $IMAPS_PORT
    ssl = yes
  }
}
service pop3-login {
  inet_listener pop3 {
    port = 0
  }
  inet_listener pop3s {
    port = 0
  }
}
service lmtp {
  unix_listener $POSTFIX_SPOOL/private/dovecot-lmtp {
    mode = 0600
    user = postfix
    group = postfix
  }
}
service auth {
  unix_listener $POSTFIX_SPOOL/private/auth {
    mode = 0660
    user = postfix
    group = postfix
  }
}
# No growing delay after failed logins from 127.0.0.1 (tests fail logins on purpose).
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
protocol lmtp {
  postmaster_address = postmaster@$DOMAIN
}
EOF
}

stop_all() {
    local dir=$1 pid
    pid=$(postfix_pid)
    if alive "$pid"; then
        if postfix_is_ours "$pid" "$dir"; then
            # What `postfix quick-stop` does, without its 1 s polling sleep: stop the
            # master, and let the next start skip the slow (~2 s) integrity checks.
            terminate "$pid" postfix
            touch "$POSTFIX_SPOOL/quick-start"
        else
            die "a Postfix master ($pid) not started from $dir is running; stop it first"
        fi
    fi
    pid=$(dovecot_pid "$dir")
    if alive "$pid"; then terminate "$pid" dovecot; fi
    rm -f "$dir/dovecot/run/master.pid"
}

# Run a command that starts a daemon with none of our open files beyond
# 0-2. The daemons outlive this script: a test run under `flock
# /tmp/e2e.lock` would otherwise hand the lock's file to dovecot, which would
# hold the lock for as long as it runs and block every other mail test.
without_our_fds() {
    (
        for fd in $(ls /proc/$BASHPID/fd); do
            if [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ]; then
                eval "exec $fd>&-" 2>/dev/null || true
            fi
        done
        exec "$@"
    )
}

cmd_start() {
    need_root
    all_installed || die "not installed: run '$0 install' first"
    local dir
    dir=$(abs_dir "${1:-}")
    mkdir -p "$dir/log"
    stop_all "$dir"
    local port
    for port in "$SMTP_PORT" "$SMTPS_PORT" "$IMAP_PORT" "$IMAPS_PORT"; do
        if timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
            die "port $port is already taken by another program"
        fi
    done
    ensure_vmail
    write_tls "$dir"
    write_postfix "$dir"
    write_dovecot "$dir"
    # vmail must be able to reach DIR/mail.
    if ! su -s /bin/sh vmail -c "test -x '$dir'" 2>/dev/null; then
        die "user vmail cannot enter $dir (a parent directory is private); use a DIR under /tmp"
    fi
    install -d -o postfix -g postfix "$POSTFIX_SPOOL/private" 2>/dev/null || true
    without_our_fds dovecot -c "$dir/dovecot/dovecot.conf" </dev/null >>"$dir/log/dovecot.out" 2>&1 \
        || die "dovecot did not start; see $dir/log/dovecot.out and dovecot.log"
    without_our_fds postfix -c "$dir/postfix" start </dev/null >>"$dir/log/postfix.out" 2>&1 \
        || die "postfix did not start; see $dir/log/postfix.out and postfix.log"
    local ok=0
    for _ in $(seq 1 100); do
        if port_answers "$SMTP_PORT" 220 && port_answers "$IMAP_PORT" '* OK' \
            && [ -S "$POSTFIX_SPOOL/private/dovecot-lmtp" ]; then
            ok=1
            break
        fi
        sleep 0.1
    done
    [ "$ok" = 1 ] || die "servers did not answer on $SMTP_PORT/$IMAP_PORT; see $dir/log/"
    log "running: SMTP 127.0.0.1:$SMTP_PORT (STARTTLS), SMTPS :$SMTPS_PORT, IMAP :$IMAP_PORT (STARTTLS), IMAPS :$IMAPS_PORT; logs in $dir/log"
    echo "SMTP_PORT=$SMTP_PORT"
    echo "IMAP_PORT=$IMAP_PORT"
    echo "SMTPS_PORT=$SMTPS_PORT"
    echo "IMAPS_PORT=$IMAPS_PORT"
    echo "MAIL_TLS_CA=$dir/tls/ca.pem"
}

cmd_stop() {
    need_root
    local dir
    dir=$(abs_dir "${1:-}")
    mkdir -p "$dir/log"
    stop_all "$dir"
    log "stopped"
}

cmd_status() {
    local dir pid rc=0
    dir=$(abs_dir "${1:-}")
    pid=$(postfix_pid)
    if alive "$pid"; then echo "postfix: running (pid $pid)"; else echo "postfix: stopped"; rc=3; fi
    pid=$(dovecot_pid "$dir")
    if alive "$pid"; then echo "dovecot: running (pid $pid)"; else echo "dovecot: stopped"; rc=3; fi
    # A server started by an older script lacks the slot accounts: not ready.
    if [ "$rc" = 0 ] && ! grep -q "^${USERS[-1]}@$DOMAIN:" "$dir/dovecot/users" 2>/dev/null; then
        echo "accounts: ${USERS[-1]}@$DOMAIN missing (started by an older script)"
        rc=3
    fi
    if [ "$rc" = 0 ]; then
        if port_answers "$SMTP_PORT" 220; then
            echo "smtp: 127.0.0.1:$SMTP_PORT answers"
        else
            echo "smtp: no answer"
            rc=1
        fi
        if port_answers "$IMAP_PORT" '* OK'; then
            echo "imap: 127.0.0.1:$IMAP_PORT answers"
        else
            echo "imap: no answer"
            rc=1
        fi
    fi
    return "$rc"
}

case "${1:-}" in
    install) cmd_install ;;
    start) cmd_start "${2:-}" ;;
    stop) cmd_stop "${2:-}" ;;
    status) cmd_status "${2:-}" ;;
    *)
        echo "usage: $0 install | start DIR | stop DIR | status DIR" >&2
        exit 2
        ;;
esac
