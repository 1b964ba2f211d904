#!/usr/bin/env bash
# One-shot job of docker-compose.yml: creates Waypoint's topics on the KRaft broker, idempotently.
# Event topics keep everything (retention.ms=-1): analytics and new consumers rebuild from the beginning of a topic.
# Notifications are user-facing pushes and expire after 7 days.
set -euo pipefail

bootstrap="${KAFKA_BOOTSTRAP:-kafka:9092}"
partitions="${WAYPOINT_TOPIC_PARTITIONS:-4}"
topics=/opt/kafka/bin/kafka-topics.sh

create() {
    local topic=$1 retention=$2
    "$topics" --bootstrap-server "$bootstrap" --create --if-not-exists --topic "$topic" \
        --partitions "$partitions" --replication-factor 1 \
        --config retention.ms="$retention" --config min.insync.replicas=1
}

for topic in waypoint.auth waypoint.tours waypoint.paths waypoint.navigation waypoint.trips; do
    create "$topic" -1
done
create waypoint.notifications 604800000

"$topics" --bootstrap-server "$bootstrap" --list
