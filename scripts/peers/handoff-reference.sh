#!/usr/bin/env bash
# What one thread hand-off costs a single PostgreSQL writer on this machine (issue 23, docs/benchmarks.md "eventstore"
# → "What a thread hand-off costs one writer"): a libpq client (C, the library pgbench uses) inserts one row per
# autocommit statement into a table on the PostgreSQL that scripts/with-postgres.sh starts (fsync and
# synchronous_commit on), first from the thread that asked ("direct", as pgbench does), then with every statement
# handed to a second thread and its answer handed back ("hand-off": a request and a reply through a mutex and two
# condition variables — the least an asynchronous caller pays to have a blocking client run its statement).
#
#   scripts/with-postgres.sh scripts/peers/handoff-reference.sh [STATEMENTS] [ROUNDS]
#
# Prints, per round and way, statements per second and the process's CPU per statement (getrusage). Needs a C
# compiler (cc) and libpq's headers (libpq-dev, one of the build packages).
set -euo pipefail

statements=${1:-2000}
rounds=${2:-3}
url=${WAYPOINT_BENCH_POSTGRES_URL:?run inside scripts/with-postgres.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/handoff.c" <<'C'
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static PGconn *connection;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t asked = PTHREAD_COND_INITIALIZER, answered = PTHREAD_COND_INITIALIZER;
static int request = 0, reply = 0;
static long count;

static double seconds(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double cpu(void) {
    struct rusage u; getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

static void insert(long value) {
    char text[32]; snprintf(text, sizeof text, "%ld", value);
    const char *values[1] = { text };
    PGresult *result = PQexecPrepared(connection, "insert", 1, values, NULL, NULL, 0);
    if (PQresultStatus(result) != PGRES_COMMAND_OK) { fprintf(stderr, "%s", PQerrorMessage(connection)); exit(1); }
    PQclear(result);
}

/* The second thread: waits for a request, runs the statement, hands the answer back. */
static void *runner(void *unused) {
    for (long i = 0; i < count; i++) {
        pthread_mutex_lock(&lock);
        while (!request) pthread_cond_wait(&asked, &lock);
        request = 0;
        pthread_mutex_unlock(&lock);
        insert(i);
        pthread_mutex_lock(&lock);
        reply = 1;
        pthread_cond_signal(&answered);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv) {
    connection = PQconnectdb(argv[1]);
    if (PQstatus(connection) != CONNECTION_OK) { fprintf(stderr, "%s", PQerrorMessage(connection)); return 1; }
    PQclear(PQexec(connection, "SET client_min_messages = warning; DROP TABLE IF EXISTS handoff_reference;"
                               "CREATE TABLE handoff_reference (id bigserial PRIMARY KEY, value bigint NOT NULL)"));
    PQclear(PQprepare(connection, "insert", "INSERT INTO handoff_reference (value) VALUES ($1::bigint)", 1, NULL));
    count = atol(argv[2]);
    int rounds = atoi(argv[3]);
    for (int round = 1; round <= rounds; round++) {
        double c0 = cpu(), t0 = seconds();
        for (long i = 0; i < count; i++) insert(i);
        double t1 = seconds();
        printf("round %d direct:   %6.0f statements/s, %5.1f us CPU per statement\n", round, count / (t1 - t0), (cpu() - c0) / count * 1e6);
        pthread_t thread;
        pthread_create(&thread, NULL, runner, NULL);
        c0 = cpu(); t0 = seconds();
        for (long i = 0; i < count; i++) {
            pthread_mutex_lock(&lock);
            request = 1;
            pthread_cond_signal(&asked);
            while (!reply) pthread_cond_wait(&answered, &lock);
            reply = 0;
            pthread_mutex_unlock(&lock);
        }
        t1 = seconds();
        pthread_join(thread, NULL);
        printf("round %d hand-off: %6.0f statements/s, %5.1f us CPU per statement\n", round, count / (t1 - t0), (cpu() - c0) / count * 1e6);
    }
    PQclear(PQexec(connection, "DROP TABLE handoff_reference"));
    PQfinish(connection);
    return 0;
}
C

cc -O2 -o "$work/handoff" "$work/handoff.c" -I"$(pg_config --includedir)" -lpq -lpthread
"$work/handoff" "$url" "$statements" "$rounds"
