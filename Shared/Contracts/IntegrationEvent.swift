/// A payload published on a topic for other services: a fact, in past tense, that producer
/// and consumers agree on through this module.
///
/// A conforming type is the contract itself. Its JSON shape — encoded with ``ContractJSON`` —
/// is pinned by a golden file (see the `ContractTesting` library), so a change that would
/// break a consumer fails the producer's tests first.
///
/// Evolution follows the event-sourcing rules of the design: a payload only grows
/// backward-compatibly (new optional fields); a breaking change keeps the same
/// ``eventType``, bumps ``schemaVersion`` and ships an upcaster for the old shape.
///
/// ```swift
/// public struct TourPublished: IntegrationEvent {
///     public static let eventType = "TourPublished"
///     public static let schemaVersion = 1
///     public static let topic = Topic.tours
///     public let tourId: UUID
///     public let price: Money
///     public let publishedAt: Date
/// }
/// ```
public protocol IntegrationEvent: Codable, Sendable, Equatable {
    /// The stable name of this kind of event, carried in the envelope and as a Kafka
    /// header, e.g. `TourPublished`. Never renamed once published; by convention the Swift
    /// type name at the time of first publication.
    static var eventType: String { get }

    /// The version of the payload shape, starting at 1 and carried in the envelope and as a
    /// Kafka header; bumped only for a breaking change.
    static var schemaVersion: Int { get }

    /// The topic this event is published on.
    static var topic: Topic { get }
}
