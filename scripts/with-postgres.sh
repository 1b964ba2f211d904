#!/usr/bin/env bash
# Run one command next to a throwaway PostgreSQL 15 + PostGIS cluster on loopback, as the
# benchmarks do:
#
#   scripts/with-postgres.sh swift run -c release waypoint-bench …
#   scripts/with-postgres.sh sh -c 'psql "$WAYPOINT_TEST_POSTGRES_URL" -c "select postgis_version()"'
#
# The command sees WAYPOINT_TEST_POSTGRES_URL and WAYPOINT_BENCH_POSTGRES_URL (the same
# superuser URL, database waypoint_test), runs in the caller's working directory, and its
# exit code becomes this script's. The cluster is stopped and its temporary directory
# deleted afterwards, also when the command fails or is interrupted. Missing PostgreSQL
# packages are installed as in scripts/test.sh.
set -euo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: $0 COMMAND [ARGUMENTS…]" >&2
    exit 2
fi

scripts_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$scripts_dir/lib/common.sh"
source "$scripts_dir/lib/packages.sh"
source "$scripts_dir/lib/postgres.sh"

waypoint_install_packages "${WAYPOINT_POSTGRES_PACKAGES[@]}"
waypoint_pg_cleanup_on_exit
waypoint_pg_start
export WAYPOINT_BENCH_POSTGRES_URL="$WAYPOINT_TEST_POSTGRES_URL"

"$@"
