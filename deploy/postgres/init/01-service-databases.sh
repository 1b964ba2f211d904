#!/usr/bin/env bash
# First start of the postgis/postgis container: one database per service, each owned by its own role (no service can
# read another's tables), with PostGIS installed by the superuser (services are not superusers).
# Runs once, when the data volume is empty (docker-entrypoint-initdb.d).
set -euo pipefail

: "${WAYPOINT_SERVICE_DB_PASSWORD:?set WAYPOINT_SERVICE_DB_PASSWORD}"

# Database (and role) names: the service names with "-" as "_".
databases=(auth tour_management path_review navigation record_trip analytics)

for database in "${databases[@]}"; do
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
         -v role="$database" -v password="$WAYPOINT_SERVICE_DB_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'role', :'password')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', :'role', :'role')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'role') \gexec
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', :'role') \gexec
SQL
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$database" <<'SQL'
CREATE EXTENSION IF NOT EXISTS postgis;
SQL
done
