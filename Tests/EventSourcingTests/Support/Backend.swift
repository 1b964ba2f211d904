import EventSourcing
import Foundation
import ServiceTesting
import Testing

/// A storage backend the conformance suites run against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The backends this run covers: `WAYPOINT_TEST_BACKENDS` (default `sqlite`, plus `postgres` when a URL is set).
    static var enabled: [Backend] {
        let environment = ProcessInfo.processInfo.environment
        if let list = environment["WAYPOINT_TEST_BACKENDS"] {
            return list.split(separator: ",").compactMap { Backend(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        }
        return environment["WAYPOINT_TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    /// The throwaway server's URL, which the test script exports.
    static var postgresURL: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["WAYPOINT_TEST_POSTGRES_URL"] else {
                throw TestSetupError("WAYPOINT_TEST_BACKENDS names postgres but WAYPOINT_TEST_POSTGRES_URL is not set; run scripts/test.sh")
            }
            return url
        }
    }
}
