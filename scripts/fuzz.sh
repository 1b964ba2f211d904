#!/usr/bin/env bash
# Contract fuzzing: every running service against its own OpenAPI document, with schemathesis.
#
#   scripts/fuzz.sh              # build, start the platform, fuzz every service, stop the platform
#   scripts/fuzz.sh --no-build   # use the executables already in .build/debug (scripts/test.sh does this)
#
# It starts the whole platform (`waypoint up --demo`) on a free loopback port range in a temporary directory, makes an
# account per role (traveller, guide, and an administrator through `auth create-admin`), then runs schemathesis (pinned,
# in a virtualenv under .cache/fuzz) once anonymously and once per role against every service the launcher started,
# each on the service's own URL with its own document, Services/<Name>/Sources/openapi.yaml. A service added to the
# launcher joins by itself. Any finding fails the run; schemathesis prints a `curl` line that reproduces it. The
# platform is stopped and the directory removed on exit, also on failure or Ctrl-C.
#
# What is checked, the budget and how to reproduce a finding: docs/contract-fuzzing.md.
#
# Environment (all optional):
#   WAYPOINT_FUZZ_SEED           schemathesis seed                      (default 20251116)
#   WAYPOINT_FUZZ_EXAMPLES       fuzzed examples per operation and run  (default 25)
#   WAYPOINT_FUZZ_RUN_TIMEOUT    seconds one schemathesis run may take  (default 240; past it the run fails)
#   WAYPOINT_FUZZ_SERVICES       comma list: fuzz only these services   (default: every service the launcher started)
#   WAYPOINT_FUZZ_IDENTITIES     comma list of anonymous, traveller, guide, admin (default: all four)
#   WAYPOINT_FUZZ_CHECKS         schemathesis checks instead of the stage's own (for trials)
#   WAYPOINT_FUZZ_CACHE          where the virtualenv lives             (default .cache/fuzz in the repository)
#   WAYPOINT_FUZZ_KEEP=1         keep the temporary directory (logs, reports) after the run
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/lib/common.sh
source scripts/lib/packages.sh
source scripts/lib/fuzz.sh

build=1
for argument in "$@"; do
    case "$argument" in
    --no-build) build=0 ;;
    *) waypoint_die "unknown argument: $argument (usage: scripts/fuzz.sh [--no-build])" ;;
    esac
done

waypoint_ensure_swift
waypoint_install_packages "${WAYPOINT_BUILD_PACKAGES[@]}" python3-venv curl
if [[ $build == 1 ]]; then
    waypoint_log "building the platform (swift build)"
    swift build
fi
waypoint_fuzz_install
waypoint_fuzz_cleanup_on_exit
waypoint_fuzz_start_platform
waypoint_fuzz_all
