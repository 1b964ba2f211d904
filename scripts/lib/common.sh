# shellcheck shell=bash
# Shared helpers for Waypoint's scripts. Source it; it defines functions and nothing runs.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
#
# Messages go to stderr so that a command's own stdout (e.g. `swift test`) stays clean.

# Print a progress message.
waypoint_log() {
    printf '==> %s\n' "$*" >&2
}

# Print an error and exit non-zero.
waypoint_die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# The repository root: the parent of the scripts/ directory holding this file.
waypoint_repo_root() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
}

# Run a command with root privileges: directly when already root, through passwordless
# sudo otherwise. Returns 1 (without running anything) when neither is possible.
waypoint_as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        return 1
    fi
}

# Whether root privileges are available without a prompt.
waypoint_can_be_root() {
    [[ $(id -u) -eq 0 ]] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }
}

# Put the Swift toolchain on PATH: a fresh machine has it at /opt/swift (override with
# WAYPOINT_SWIFT_ROOT), which a non-login shell (CI) may not have on PATH yet.
waypoint_ensure_swift() {
    if command -v swift >/dev/null 2>&1; then
        return 0
    fi
    local root="${WAYPOINT_SWIFT_ROOT:-/opt/swift}"
    if [[ -x "$root/usr/bin/swift" ]]; then
        export PATH="$root/usr/bin:$PATH"
    else
        waypoint_die "swift is not on PATH and not at $root/usr/bin; install Swift 6.3 or set WAYPOINT_SWIFT_ROOT"
    fi
}
