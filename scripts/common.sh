# shellcheck shell=bash
# scripts/common.sh — shared by scripts/demo.sh and scripts/test.sh (sourced, not run).
#
# Provides: PGVER, PGBIN, PG_CONFIG, RUN_USER; log, die, as_root, as_pguser, ensure_packages,
# ensure_run_user.  Works on Debian 12 and Ubuntu, as root or as a user with sudo, without stdin.

PGVER=15
PGBIN="${PGBIN:-/usr/lib/postgresql/$PGVER/bin}"
PG_CONFIG="${PG_CONFIG:-$PGBIN/pg_config}"
# PostgreSQL refuses to run as root: when invoked as root, servers run as this user
# not "themis": the bootstrap superuser is named after it, and "$user" in search_path would then
# resolve to the extension's schema
RUN_USER="${THEMIS_RUN_USER:-themisrun}"
export DEBIAN_FRONTEND=noninteractive

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# run a command as root (sudo when not root)
as_root() {
    if is_root; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root for: $* (run as root, or install sudo)"
    fi
}

# run a command as the unprivileged server user (root) or as ourselves (not root), from directory $1
as_pguser() {
    local dir="$1"; shift
    if is_root; then
        (cd "$dir" && runuser -u "$RUN_USER" -- env HOME="$dir" USER="$RUN_USER" LOGNAME="$RUN_USER" "$@")
    else
        (cd "$dir" && "$@")
    fi
}

pkg_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# apt-get install the build and server packages that are missing (nothing if all are there)
ensure_packages() {
    local pkgs=("postgresql-$PGVER" "postgresql-server-dev-$PGVER" build-essential)
    local missing=() p
    if ! command -v dpkg-query >/dev/null 2>&1; then
        [ -x "$PG_CONFIG" ] || die "no dpkg and no $PG_CONFIG: install PostgreSQL $PGVER with its server headers"
        return 0
    fi
    for p in "${pkgs[@]}"; do
        pkg_installed "$p" || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "packages present: ${pkgs[*]}"
        return 0
    fi
    log "installing: ${missing[*]}"
    as_root apt-get update -qq </dev/null
    # Ubuntu releases other than 22.10/23.04 ship another PostgreSQL major: use the PGDG repository then
    if ! apt-cache show "postgresql-$PGVER" >/dev/null 2>&1; then
        log "postgresql-$PGVER is not in the configured repositories: adding apt.postgresql.org (PGDG)"
        as_root apt-get install -y -qq --no-install-recommends postgresql-common ca-certificates curl gnupg lsb-release </dev/null
        as_root /usr/share/postgresql-common/pgdg/apt.postgresql.org.sh -y </dev/null
        as_root apt-get update -qq </dev/null
    fi
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
    [ -x "$PG_CONFIG" ] || die "$PG_CONFIG missing after installing ${missing[*]}"
}

# when root: make sure the unprivileged user exists
ensure_run_user() {
    is_root || return 0
    if ! id "$RUN_USER" >/dev/null 2>&1; then
        log "creating OS user $RUN_USER (PostgreSQL servers run as it)"
        local nologin=/usr/sbin/nologin
        [ -x "$nologin" ] || nologin=/bin/false
        useradd --system --no-create-home --home-dir /nonexistent --shell "$nologin" "$RUN_USER" \
            || die "cannot create user $RUN_USER"
    fi
}

# make -C DIR with the PostgreSQL 15 pg_config
pgmake() { make PG_CONFIG="$PG_CONFIG" "$@"; }
