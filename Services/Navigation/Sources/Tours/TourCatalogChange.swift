import Contracts
import Foundation
import Messaging

/// A tour stop as navigation triggers it.
public struct NavigableStop: Codable, Sendable, Hashable {
    public var stopId: UUID
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// Metres around the stop in which it is reached (the guide's trigger radius).
    public var radius: Double
}

/// A published tour as navigation keeps it: its stops in order and who may navigate it.
public struct NavigableTour: Sendable, Hashable {
    public var tourId: UUID
    public var guideId: UUID
    public var title: String
    public var mode: TourMode
    public var stops: [NavigableStop]
}

/// One `waypoint.tours` event as a change to navigation's tour tables (published stops, entitlements); types
/// navigation does not use are `nil`.
enum TourCatalogChange: Sendable, Hashable {
    case published(tourId: UUID, guideId: UUID, title: String, mode: TourMode, stops: [NavigableStop])
    case deleted(tourId: UUID)
    case owns(tourId: UUID, userId: UUID)
    case disowns(tourId: UUID, userId: UUID)

    /// The change of each type navigation uses, by event type: the one list `of` reads and the consumer asks the feed
    /// for (``eventTypes``).
    private static let changes: [String: @Sendable (PublishedEvent) throws -> TourCatalogChange] = [
        TourPublished.eventType: { event in
            let e = try event.decode(TourPublished.self)
            return .published(tourId: e.tourId, guideId: e.guideId, title: e.details.title, mode: e.details.mode,
                              stops: e.stops.map { NavigableStop(stopId: $0.stopId, name: $0.name, latitude: $0.location.lat, longitude: $0.location.lng,
                                                                 radius: Double($0.triggerRadiusMetres)) })
        },
        TourDeleted.eventType: { event in .deleted(tourId: try event.decode(TourDeleted.self).tourId) },
        PurchaseCompleted.eventType: { event in
            let e = try event.decode(PurchaseCompleted.self)
            return .owns(tourId: e.tourId, userId: e.userId)
        },
        TourAcquired.eventType: { event in
            let e = try event.decode(TourAcquired.self)
            return .owns(tourId: e.tourId, userId: e.userId)
        },
        PurchaseRefunded.eventType: { event in
            let e = try event.decode(PurchaseRefunded.self)
            return .disowns(tourId: e.tourId, userId: e.userId)
        },
    ]

    /// The types that change navigation's tour tables.
    static let eventTypes = Set(changes.keys)

    static func of(_ event: PublishedEvent) throws -> TourCatalogChange? {
        try changes[event.eventType]?(event)
    }

    static func text(_ stops: [NavigableStop]) -> String {
        String(decoding: (try? JSONEncoder().encode(stops)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func stops(_ text: String) throws -> [NavigableStop] {
        try JSONDecoder().decode([NavigableStop].self, from: Data(text.utf8))
    }
}

/// Reads of the tour tables.
public protocol TourCatalogStore: Sendable {
    /// The tour `tourId` if `user` may navigate it (owns it, or is its guide); `nil` otherwise (unknown, deleted, not owned).
    func navigable(_ tourId: UUID, by user: UUID) async throws -> NavigableTour?
}

enum TourCatalogTables {
    static let consumer = "tour_catalog"
}
