// Umbrella header for the system librdkafka (Debian: librdkafka-dev).
// rdkafka_mock.h gives the in-process mock cluster the tests use as a real Kafka broker over TCP.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
