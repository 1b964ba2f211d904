#!/usr/bin/env bash
# Run every test of the Waypoint package — the README's test command.
#
#   scripts/test.sh                      # build, then run all tests
#   scripts/test.sh --filter GeoTests    # extra arguments go to `swift test`
#
# On a fresh Debian 12 machine with Swift at /opt/swift, it installs the missing Debian
# packages (as root or with passwordless sudo), starts a throwaway PostgreSQL 15 + PostGIS + pgRouting
# cluster on loopback (stopped and deleted on exit, also on failure or Ctrl-C), then runs
# `swift build --build-tests` and `swift test`: first every suite but the ones that start
# the whole platform as processes, then those one at a time, then the contract-fuzzing stage
# (scripts/fuzz.sh: schemathesis against every service's OpenAPI document, see
# docs/contract-fuzzing.md). The exit code is non-zero when any run failed; with arguments,
# one `swift test ARGUMENTS` run only.
#
# Environment:
#   WAYPOINT_TEST_BACKENDS     store backends the conformance suites run against
#                              (default: sqlite,postgres)
#   WAYPOINT_TEST_DRY_RUN=1    do everything up to the swift commands (packages, cluster,
#                              PostGIS check), then print those commands and the test
#                              environment instead of running them, and stop the cluster.
#                              For checking this script without building the package.
# Exported to the tests:
#   WAYPOINT_PEERS_PYTHON      a Python with gpxpy and leuvenmapmatching (scripts/lib/peers.sh), the peers the
#                              record-trip statistics and map matching are checked against
#   WAYPOINT_TEST_POSTGRES_URL postgres://waypoint:waypoint@127.0.0.1:PORT/waypoint_test
#                              (a superuser; tests create their own schemas or databases)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/lib/common.sh
source scripts/lib/packages.sh
source scripts/lib/postgres.sh
source scripts/lib/peers.sh

waypoint_ensure_swift
waypoint_install_packages "${WAYPOINT_BUILD_PACKAGES[@]}" "${WAYPOINT_POSTGRES_PACKAGES[@]}" "${WAYPOINT_PEER_PACKAGES[@]}" python3-venv
waypoint_peers_install

waypoint_pg_cleanup_on_exit
waypoint_pg_start
export WAYPOINT_TEST_BACKENDS="${WAYPOINT_TEST_BACKENDS:-sqlite,postgres}"

if [[ "${WAYPOINT_TEST_DRY_RUN:-}" == 1 ]]; then
    echo "WAYPOINT_TEST_DRY_RUN=1: would run, in $(pwd):"
    echo "  WAYPOINT_TEST_BACKENDS=$WAYPOINT_TEST_BACKENDS"
    echo "  WAYPOINT_TEST_POSTGRES_URL=$WAYPOINT_TEST_POSTGRES_URL"
    echo "  WAYPOINT_PEERS_PYTHON=$WAYPOINT_PEERS_PYTHON"
    echo "  swift build --build-tests"
    echo "  swift test${*:+$(printf ' %q' "$@")}"
    [[ $# -gt 0 ]] || echo "  scripts/fuzz.sh --no-build"
    echo "  (swift is $(command -v swift))"
    exit 0
fi

waypoint_log "building the package and its tests"
swift build --build-tests
if [[ $# -gt 0 ]]; then
    waypoint_log "running the tests: swift test $*"
    status=0
    swift test --skip-build "$@" || status=$?
    exit "$status"
fi
# The suites that start the whole platform as processes (the launcher, the end-to-end journeys) run after the others
# and one at a time: beside the rest of the suite on a 2-core machine they starve its timing-sensitive tests, and
# each other. LauncherExtractsTests starts the three bike services on Monaco's XML and Helsinki's PBF in debug builds
# (three processes importing at once): in the main stage it was the largest share of the CPU the timing-sensitive
# suites lost (a CI run saw a 2 s timer fire 13 s late).
platform_suites=(LauncherIntegrationTests LauncherExtractsTests LauncherKafkaDemoTests EndToEndTests)
# The road-network and ride modules are seconds-long stretches of synchronous CPU work (extracts read, routed and
# matched in a debug build) that hold the cooperative pool's threads (two on these machines): beside the
# timing-sensitive suites they starved them for minutes (tokens outliving their clock skew, 5 s waits timing out; with
# RecordTripTests beside them the gateway's circuit-breaker and slow-client tests failed). They run on their own, after.
cpu_modules=(RoadNetworkTests RecordTripAnalysisTests RecordTripTests PathReviewTests WaypointBenchTests)
# Each stage's output also goes to a log, so that the end of the run can name what failed: a CI that keeps only the
# tail of a long run (the fuzzing stage prints thousands of lines) still shows which stage and which tests failed.
stage_logs="$(mktemp -d "${TMPDIR:-/tmp}/waypoint-test-logs.XXXXXX")"
failed_stages=()
run_stage() {
    local name="$1"
    shift
    waypoint_log "running $name"
    local stage_status=0
    "$@" 2>&1 | tee "$stage_logs/$name.log" || stage_status=$?
    if [[ $stage_status -ne 0 ]]; then
        failed_stages+=("$name")
    fi
}
run_stage main swift test --skip-build --skip "$(IFS='|'; echo "${platform_suites[*]} ${cpu_modules[*]}" | tr ' ' '|')"
for module in "${cpu_modules[@]}"; do
    run_stage "$module" swift test --skip-build --filter "$module"
done
for suite in "${platform_suites[@]}"; do
    run_stage "$suite" swift test --skip-build --filter "$suite"
done
run_stage fuzzing scripts/fuzz.sh --no-build
if [[ ${#failed_stages[@]} -eq 0 ]]; then
    waypoint_log "every stage passed"
    rm -rf "$stage_logs"
    exit 0
fi
waypoint_log "FAILED stages: ${failed_stages[*]}"
for name in "${failed_stages[@]}"; do
    waypoint_log "what failed in $name (the whole output: $stage_logs/$name.log):"
    grep -E '^✘|: error:|Test Case .* failed|Fatal error|unexpected signal|\*\*\* .*assert' "$stage_logs/$name.log" | head -n 60 >&2 || true
done
exit 1
