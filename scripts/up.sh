#!/usr/bin/env bash
# Run the whole Waypoint platform on this machine — the README's run command.
#
#   scripts/up.sh            # build if needed, start every service and the gateway, Ctrl-C stops them
#   scripts/up.sh --demo     # ... and seed demo accounts, three published tours, three approved Krems bike paths and a ride
#
# On a fresh Debian 12 machine with Swift at /opt/swift, it installs the missing Debian packages the build needs (as
# root or with passwordless sudo), then hands over to `swift run waypoint up`, which builds the service executables,
# starts them on the embedded default (SQLite under ./data, the embedded feed transport) or on PostgreSQL and Kafka,
# waits until each is ready and supervises them. Every argument goes to `waypoint up` (see `swift run waypoint up --help`
# and docs/operations.md):
#
#   --data-dir DIR      SQLite files, media, bundles, the launcher's state and secrets (default ./data)
#   --base-port N       the gateway's port; the services take the next six (default 8080)
#   --kafka BROKERS     Kafka instead of the embedded feed
#   --postgres URL      PostgreSQL instead of SQLite: one database per service on that server (waypoint_auth, ...),
#                       created if missing, PostGIS where needed; postgres://user:password@host:port[/database]
#   --postgres-prefix P database name prefix with --postgres (default waypoint_)
#   --only a,b          start only these services
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/lib/common.sh
source scripts/lib/packages.sh

waypoint_ensure_swift
waypoint_install_packages "${WAYPOINT_BUILD_PACKAGES[@]}"

waypoint_log "building the launcher (swift build --product waypoint)"
exec swift run waypoint up "$@"
