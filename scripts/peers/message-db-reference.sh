#!/usr/bin/env bash
# The peer figures `waypoint-bench eventstore`'s PostgreSQL appends are compared with (issue 23, docs/benchmarks.md
# "eventstore" → "Against Message DB"): Message DB's `write_message` driven by pgbench with prepared statements, on the
# PostgreSQL that scripts/with-postgres.sh starts (fsync and synchronous_commit on, as for Waypoint's runs).
#
#   scripts/with-postgres.sh scripts/peers/message-db-reference.sh MESSAGE_DB_DATABASE_DIR [SECONDS]
#
# MESSAGE_DB_DATABASE_DIR is the `database` folder of a Message DB checkout (https://github.com/message-db/message-db,
# 1.3.0); it is not vendored here (MIT licence, but it is only a yardstick). Each workload runs SECONDS (default 20)
# on a fresh `message_store` schema in a database of its own, and prints one line: workload and events per second.
# Payloads are ~107 bytes of JSON, like the benchmark's events.
set -euo pipefail

source_dir=${1:?usage: message-db-reference.sh MESSAGE_DB_DATABASE_DIR [SECONDS]}
seconds=${2:-20}
url=${WAYPOINT_BENCH_POSTGRES_URL:?run inside scripts/with-postgres.sh}
database=message_db_reference
admin_url=$url
target_url=${url%/*}/$database
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

psql_run() { psql -q -v ON_ERROR_STOP=1 "$@" >/dev/null; }

install() {
    psql_run "$admin_url" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
    local files=(schema/message-store.sql extensions/pgcrypto.sql tables/messages.sql types/message.sql
        functions/message-store-version.sql functions/hash-64.sql functions/acquire-lock.sql functions/category.sql
        functions/is-category.sql functions/id.sql functions/cardinal-id.sql functions/stream-version.sql
        functions/write-message.sql indexes/messages-id.sql indexes/messages-stream.sql indexes/messages-category.sql)
    for file in "${files[@]}"; do
        PGOPTIONS='-c client_min_messages=warning' psql_run "$target_url" -f "$source_dir/$file"
    done
}

payload='{"tourId": "0b6c7a52-3f1e-4c2d-9a8b-5e6f7a8b9c0d", "amount": 1250, "currency": "EUR", "note": "x"}'
metadata='{"correlationStreamName": "bench-1"}'

# `:ver` (-D ver=-1: a new stream) lives for the client's whole session — pgbench keeps variables between
# transactions — so each client appends to its own stream with `expected_version` its current version.
cat >"$work/expected.sql" <<SQL
SELECT message_store.write_message(gen_random_uuid()::varchar, 'writer' || :client_id || '-' || :run, 'Deposited', '$payload'::jsonb, '$metadata'::jsonb, :ver);
\set ver :ver + 1
SQL
cat >"$work/any.sql" <<SQL
\set stream random(1, 1000000)
SELECT message_store.write_message(gen_random_uuid()::varchar, 'account-' || :stream, 'Deposited', '$payload'::jsonb, '$metadata'::jsonb);
SQL
cat >"$work/batch.sql" <<SQL
SELECT message_store.write_message(gen_random_uuid()::varchar, 'batch' || :client_id || '-' || :run, 'Deposited', '$payload'::jsonb, '$metadata'::jsonb)
FROM generate_series(1, 100);
SQL

# tps × events per transaction, from pgbench's "tps = N (without initial connection time)" line.
run() {
    local name=$1 clients=$2 script=$3 events=$4
    install
    local output
    output=$(PGOPTIONS='-c search_path=message_store,public -c client_min_messages=warning' \
        pgbench -n -M prepared -T "$seconds" -c "$clients" -j "$clients" -D run="$RANDOM" -D ver=-1 -f "$work/$script" "$target_url" 2>&1) \
        || { echo "$output" >&2; return 1; }
    local tps
    tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' <<<"$output")
    local failed
    failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$output")
    awk -v name="$name" -v tps="$tps" -v events="$events" -v failed="${failed:-0}" 'BEGIN { printf "%s: %.0f events/s (failed transactions: %s)\n", name, tps * events, failed }'
}

run "c1 expected version, own stream" 1 expected.sql 1
run "c16 expected version, own category each" 16 expected.sql 1
run "c16 no version check, random streams" 16 any.sql 1
run "c1 100-event statement" 1 batch.sql 100
psql_run "$admin_url" -c "DROP DATABASE IF EXISTS $database"
