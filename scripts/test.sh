#!/usr/bin/env bash
# Run every test of the Waypoint package — the README's test command.
#
#   scripts/test.sh                      # build, then run all tests
#   scripts/test.sh --filter GeoTests    # extra arguments go to `swift test`
#
# On a fresh Debian 12 machine with Swift at /opt/swift, it installs the missing Debian
# packages (as root or with passwordless sudo), starts a throwaway PostgreSQL 15 + PostGIS
# cluster on loopback (stopped and deleted on exit, also on failure or Ctrl-C), then runs
# `swift build --build-tests` and `swift test`. The output ends with swift test's own
# summary and the exit code is swift test's.
#
# Environment:
#   WAYPOINT_TEST_BACKENDS     store backends the conformance suites run against
#                              (default: sqlite,postgres)
#   WAYPOINT_TEST_DRY_RUN=1    do everything up to the swift commands (packages, cluster,
#                              PostGIS check), then print those commands and the test
#                              environment instead of running them, and stop the cluster.
#                              For checking this script without building the package.
# Exported to the tests:
#   WAYPOINT_TEST_POSTGRES_URL postgres://waypoint:waypoint@127.0.0.1:PORT/waypoint_test
#                              (a superuser; tests create their own schemas or databases)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/lib/common.sh
source scripts/lib/packages.sh
source scripts/lib/postgres.sh

waypoint_ensure_swift
waypoint_install_packages "${WAYPOINT_BUILD_PACKAGES[@]}" "${WAYPOINT_POSTGRES_PACKAGES[@]}"

waypoint_pg_cleanup_on_exit
waypoint_pg_start
export WAYPOINT_TEST_BACKENDS="${WAYPOINT_TEST_BACKENDS:-sqlite,postgres}"

if [[ "${WAYPOINT_TEST_DRY_RUN:-}" == 1 ]]; then
    echo "WAYPOINT_TEST_DRY_RUN=1: would run, in $(pwd):"
    echo "  WAYPOINT_TEST_BACKENDS=$WAYPOINT_TEST_BACKENDS"
    echo "  WAYPOINT_TEST_POSTGRES_URL=$WAYPOINT_TEST_POSTGRES_URL"
    echo "  swift build --build-tests"
    echo "  swift test${*:+$(printf ' %q' "$@")}"
    echo "  (swift is $(command -v swift))"
    exit 0
fi

waypoint_log "building the package and its tests"
swift build --build-tests
waypoint_log "running the tests"
swift test "$@"
