# shellcheck shell=bash
# Debian packages the build and the tests need, and an idempotent installer for them.
# Requires lib/common.sh.

# Used by the scripts that source this file.
# shellcheck disable=SC2034

# System libraries the Swift package links against, plus what SwiftPM needs to fetch
# dependencies.
WAYPOINT_BUILD_PACKAGES=(librdkafka-dev libsqlite3-dev libpq-dev libcrypt-dev zlib1g-dev pkg-config git ca-certificates python3)
# The throwaway PostgreSQL cluster of the tests and benchmarks (lib/postgres.sh), with PostGIS and pgRouting
# (the road network's oracle: pgr_dijkstra on our exported edge table).
WAYPOINT_POSTGRES_PACKAGES=(postgresql-15 postgresql-15-postgis-3 postgresql-15-pgrouting)
# The peers the benchmarks compare against: nginx as a plain reverse proxy (`waypoint-bench gateway`'s peer phase,
# which also installs it itself when missing). scripts/test.sh installs it (the bench's launched test runs the phase);
# the build does not need it. Like postgresql-15, on a host with systemd the package starts its default service.
WAYPOINT_PEER_PACKAGES=(nginx-light)

# Print, one per line, the packages among the arguments that are not fully installed.
waypoint_missing_packages() {
    local package status
    for package in "$@"; do
        # `dpkg -s` also succeeds for a removed package whose config files remain, so
        # check the status line, not only the exit code. (Captured first: with pipefail,
        # `dpkg -s | grep -q` could fail when grep stops reading early.)
        status=$(dpkg -s "$package" 2>/dev/null || true)
        if ! grep -qx 'Status: install ok installed' <<<"$status"; then
            printf '%s\n' "$package"
        fi
    done
}

# Install whichever of the given packages are missing. Runs `apt-get update` only when
# something is missing. Needs root or passwordless sudo; without either, lists what is
# missing and exits non-zero.
waypoint_install_packages() {
    command -v dpkg >/dev/null 2>&1 || waypoint_die "dpkg not found: these scripts target Debian 12"
    local missing
    mapfile -t missing < <(waypoint_missing_packages "$@")
    if [[ ${#missing[@]} -eq 0 ]]; then
        return 0
    fi
    if ! waypoint_can_be_root; then
        printf 'error: missing Debian packages: %s\n' "${missing[*]}" >&2
        printf 'Install them as root, then run this again:\n  apt-get install -y %s\n' "${missing[*]}" >&2
        exit 1
    fi
    waypoint_log "installing missing Debian packages: ${missing[*]}"
    waypoint_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null >&2
    waypoint_as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >&2
}
