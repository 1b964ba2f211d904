import Contracts
import Foundation

/// A test-only integration event that exercises every published-language value type, pinned
/// by `Tests/Golden/waypoint.auth/ExampleEventRecorded.v1.json`.
struct ExampleEventRecorded: IntegrationEvent {
    static let eventType = "ExampleEventRecorded"
    static let schemaVersion = 1
    static let topic = Topic.auth

    let exampleId: UUID
    let actorRole: UserRole
    let price: Money
    let occurredAt: Date
    let websiteURL: URL
    /// Left out of the JSON when `nil`, as every optional field of a contract is.
    let note: String?
    let tags: [String]

    /// The values pinned in the committed golden file.
    static let pinned = ExampleEventRecorded(
        exampleId: UUID(uuidString: "6F1C2D3E-4B5A-4978-8A1B-2C3D4E5F6A7B")!,
        actorRole: .guide,
        price: Money(amountMinor: 1299, currency: .eur),
        occurredAt: RFC3339Timestamp.date(from: "2026-11-22T10:00:00.123Z")!,
        websiteURL: URL(string: "https://tours.example/krems/wachau")!,
        note: nil,
        tags: ["cycling", "wine"]
    )
}
