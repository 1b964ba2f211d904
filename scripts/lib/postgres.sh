# shellcheck shell=bash
# A throwaway PostgreSQL 15 + PostGIS (+ pgRouting) cluster for tests and benchmarks: a fresh data
# directory under a temporary directory, listening on 127.0.0.1 only, on a free port.
# Requires lib/common.sh and the packages in WAYPOINT_POSTGRES_PACKAGES (lib/packages.sh).
#
#   waypoint_pg_cleanup_on_exit   # first, so that a half-started cluster is removed too
#   waypoint_pg_start             # exports WAYPOINT_TEST_POSTGRES_URL
#   …
#   (the EXIT trap runs waypoint_pg_stop)
#
# The cluster has a superuser role `waypoint` (password `waypoint`, checked with
# SCRAM over TCP) and a database `waypoint_test` with the postgis extension; tests create
# their own schemas or databases in it. pgRouting is installed there too (the road network's
# oracle test runs pgr_dijkstra on its exported edge table). The bootstrap superuser `postgres` is reachable
# only over the Unix socket in the temporary directory.
#
# Environment (optional):
#   WAYPOINT_PG_BIN         PostgreSQL binaries     (default /usr/lib/postgresql/15/bin)
#   WAYPOINT_PG_FIRST_PORT  first port to try        (default 55432; up to 100 ports are tried)
#   WAYPOINT_PG_TMPDIR      parent of the temp dir   (default /tmp; must be traversable by
#                           the postgres user when running as root)

WAYPOINT_PG_DIR=""
WAYPOINT_PG_PORT=""

# Run a PostgreSQL tool as the cluster owner, from inside the cluster directory (the owner
# may not be allowed into the caller's working directory). `initdb` refuses to run as
# root, so as root the owner is the `postgres` system user; otherwise it is the caller.
_waypoint_pg_as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        # runuser lives in /usr/sbin, which a minimal PATH may leave out.
        local runuser
        runuser=$(command -v runuser || echo /usr/sbin/runuser)
        (cd "$WAYPOINT_PG_DIR" && "$runuser" -u postgres -- "$@")
    else
        (cd "$WAYPOINT_PG_DIR" && "$@")
    fi
}

# psql as the bootstrap superuser over the cluster's Unix socket; extra arguments follow.
_waypoint_pg_psql() {
    _waypoint_pg_as_owner "$WAYPOINT_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
        -h "$WAYPOINT_PG_DIR" -p "$WAYPOINT_PG_PORT" -U postgres "$@"
}

# Whether nothing accepts TCP connections on 127.0.0.1:$1.
_waypoint_pg_port_is_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# C.UTF-8 keeps collation byte-wise but classifies non-ASCII letters as letters, which
# full-text search on names like "Dürnstein" needs. Falls back to C where it is missing.
_waypoint_pg_locale() {
    if locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$'; then
        echo C.UTF-8
    else
        echo C
    fi
}

# Create the cluster's data directory in a new temporary directory.
_waypoint_pg_init() {
    WAYPOINT_PG_DIR=$(mktemp -d "${WAYPOINT_PG_TMPDIR:-/tmp}/waypoint-pg.XXXXXX")
    if [[ $(id -u) -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || waypoint_die "no 'postgres' system user; is postgresql-15 installed?"
        chown postgres:postgres "$WAYPOINT_PG_DIR"
    fi
    # --no-sync only skips flushing initdb's own files; the server below runs with fsync=on.
    if ! _waypoint_pg_as_owner "$WAYPOINT_PG_BIN/initdb" -D "$WAYPOINT_PG_DIR/data" -U postgres \
        --encoding=UTF8 --locale="$(_waypoint_pg_locale)" --auth-local=trust --auth-host=scram-sha-256 \
        --no-sync >"$WAYPOINT_PG_DIR/initdb.log" 2>&1; then
        cat "$WAYPOINT_PG_DIR/initdb.log" >&2
        waypoint_die "initdb failed"
    fi
    _waypoint_pg_as_owner tee -a "$WAYPOINT_PG_DIR/data/postgresql.conf" >/dev/null <<CONF

# Throwaway test cluster (scripts/lib/postgres.sh)
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WAYPOINT_PG_DIR'
fsync = on
timezone = 'UTC'
max_connections = 200
CONF
}

# Start the server on the first free port from WAYPOINT_PG_FIRST_PORT; a port taken
# between the check and the bind (another test run) just moves on to the next one.
_waypoint_pg_start_on_free_port() {
    local port="${WAYPOINT_PG_FIRST_PORT:-55432}" last log="$WAYPOINT_PG_DIR/postgres.log"
    [[ "$port" =~ ^[0-9]+$ ]] || waypoint_die "WAYPOINT_PG_FIRST_PORT must be a port number, not '$port'"
    last=$((port + 99))
    for ((; port <= last; port++)); do
        _waypoint_pg_port_is_free "$port" || continue
        WAYPOINT_PG_PORT=$port
        rm -f "$log" # so that the check below reads this attempt's messages only
        if _waypoint_pg_as_owner "$WAYPOINT_PG_BIN/pg_ctl" -D "$WAYPOINT_PG_DIR/data" -l "$log" \
            -o "-p $port" -w -t 60 start >/dev/null 2>&1; then
            return 0
        fi
        if ! grep -qE 'could not bind|could not create any TCP/IP sockets|already in use' "$log" 2>/dev/null; then
            tail -n 30 "$log" >&2 2>/dev/null || true
            waypoint_die "PostgreSQL did not start (log above)"
        fi
    done
    waypoint_die "no free port in ${WAYPOINT_PG_FIRST_PORT:-55432}–$last"
}

# Start the throwaway cluster and export WAYPOINT_TEST_POSTGRES_URL.
waypoint_pg_start() {
    WAYPOINT_PG_BIN="${WAYPOINT_PG_BIN:-/usr/lib/postgresql/15/bin}"
    [[ -x "$WAYPOINT_PG_BIN/initdb" ]] || waypoint_die "no PostgreSQL 15 at $WAYPOINT_PG_BIN (package postgresql-15)"
    waypoint_log "starting a throwaway PostgreSQL 15 + PostGIS cluster"
    _waypoint_pg_init
    _waypoint_pg_start_on_free_port
    local attempt
    for ((attempt = 0; attempt < 120; attempt++)); do
        "$WAYPOINT_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$WAYPOINT_PG_PORT" && break
        sleep 0.5
    done
    "$WAYPOINT_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$WAYPOINT_PG_PORT" \
        || waypoint_die "PostgreSQL on port $WAYPOINT_PG_PORT is not ready"
    _waypoint_pg_psql -d postgres \
        -c "CREATE ROLE waypoint LOGIN SUPERUSER PASSWORD 'waypoint'" \
        -c "CREATE DATABASE waypoint_test OWNER waypoint" >/dev/null
    _waypoint_pg_psql -d waypoint_test -c "CREATE EXTENSION IF NOT EXISTS postgis" >/dev/null \
        || waypoint_die "PostGIS is not usable (package postgresql-15-postgis-3)"
    _waypoint_pg_psql -d waypoint_test -c "CREATE EXTENSION IF NOT EXISTS pgrouting" >/dev/null \
        || waypoint_die "pgRouting is not usable (package postgresql-15-pgrouting)"
    export WAYPOINT_TEST_POSTGRES_URL="postgres://waypoint:waypoint@127.0.0.1:$WAYPOINT_PG_PORT/waypoint_test"
    waypoint_log "PostgreSQL is ready at 127.0.0.1:$WAYPOINT_PG_PORT (data in $WAYPOINT_PG_DIR)"
}

# Stop the cluster at once and delete its temporary directory. Safe to call more than
# once, and when the cluster never started. Prints nothing, so that the output of the
# command it wrapped stays last.
waypoint_pg_stop() {
    local dir="$WAYPOINT_PG_DIR" pid=""
    [[ -n "$dir" && -d "$dir" ]] || return 0
    if [[ -f "$dir/data/postmaster.pid" ]]; then
        pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null || true)
        # If pg_ctl cannot stop it (e.g. it was told to stop already), end the server we
        # started by its own pid; its backends follow when their postmaster dies.
        if ! _waypoint_pg_as_owner "$WAYPOINT_PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop \
            >/dev/null 2>&1 && [[ "$pid" =~ ^[0-9]+$ ]]; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    WAYPOINT_PG_DIR=""
    case "$dir" in
    */waypoint-pg.*) rm -rf -- "$dir" ;;
    esac
}

# Stop the cluster whenever the calling script ends: normally, on error, or on Ctrl-C /
# SIGTERM / SIGHUP (which exit with 128 + the signal number).
waypoint_pg_cleanup_on_exit() {
    trap 'waypoint_pg_stop' EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
}
