import Contracts
import Foundation

/// A second test-only event, never committed as a golden file: the record-mode and
/// missing-file tests write it into a temporary directory only.
struct ExampleEventAmended: IntegrationEvent {
    static let eventType = "ExampleEventAmended"
    static let schemaVersion = 2
    static let topic = Topic.tours

    let exampleId: UUID
    let amendedAt: Date
    let refund: Money?

    static let sample = ExampleEventAmended(
        exampleId: UUID(uuidString: "0E9B1A2C-3D4E-4F50-8162-738495A6B7C8")!,
        amendedAt: RFC3339Timestamp.date(from: "2026-11-22T10:00:00Z")!,
        refund: Money(amountMinor: -500, currency: .jpy)
    )
}
