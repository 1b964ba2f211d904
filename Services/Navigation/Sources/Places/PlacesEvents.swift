import Contracts
import EventSourcing
import Foundation

// The events of a traveller's places stream (`places-<user id>`). They stay inside navigation (not published): names
// and coordinates are a person's home and work, so they are sealed with the traveller's key (``SubjectSeal``) — the
// ids, kinds and times are in clear.

/// What a sealed favourite or recent location holds besides its name: the coordinate and, for a favourite, the
/// tour-management destination it belongs to.
public struct SealedPlace: Codable, Sendable, Hashable {
    public var lat: Double
    public var lng: Double
    public var destinationId: Int64?

    public init(lat: Double, lng: Double, destinationId: Int64? = nil) {
        (self.lat, self.lng, self.destinationId) = (lat, lng, destinationId)
    }
}

/// A favourite was added: its name (a sealed JSON string) and place (a sealed ``SealedPlace``).
public struct FavouritePlaceAdded: EventPayload, Hashable {
    public static let eventType = "FavouritePlaceAdded"
    public var userId: UUID
    public var placeId: UUID
    public var name: SealedPersonalData
    public var place: SealedPersonalData
    public var addedAt: Date
}

/// A favourite got a new name (a sealed JSON string).
public struct FavouritePlaceRenamed: EventPayload, Hashable {
    public static let eventType = "FavouritePlaceRenamed"
    public var userId: UUID
    public var placeId: UUID
    public var name: SealedPersonalData
    public var renamedAt: Date
}

/// A favourite was removed.
public struct FavouritePlaceRemoved: EventPayload, Hashable {
    public static let eventType = "FavouritePlaceRemoved"
    public var userId: UUID
    public var placeId: UUID
    public var removedAt: Date
}

/// How a recent location was used.
public enum RecentPlaceKind: String, Codable, Sendable, Hashable, CaseIterable {
    case searched
    case navigated
}

/// A location the traveller searched or navigated to that is not near any of their recents: it enters the list at
/// `at`; `evicted` are the oldest recents it pushes out of the last ``PlacesAggregate/recentLimit``.
public struct RecentPlaceRecorded: EventPayload, Hashable {
    public static let eventType = "RecentPlaceRecorded"
    public var userId: UUID
    public var recentId: UUID
    /// A sealed JSON string, absent for an unnamed location.
    public var name: SealedPersonalData?
    public var place: SealedPersonalData
    public var kind: RecentPlaceKind
    public var at: Date
    public var evicted: [UUID]
}

/// A location within ``PlacesRules/sameSpotMetres`` of recent `recentId` was used again: that recent moves to the top
/// with time `at` and this kind; `name`, when the new use had one, replaces its name.
public struct RecentPlaceRevisited: EventPayload, Hashable {
    public static let eventType = "RecentPlaceRevisited"
    public var userId: UUID
    public var recentId: UUID
    public var name: SealedPersonalData?
    public var kind: RecentPlaceKind
    public var at: Date
}

/// The traveller cleared their recent locations.
public struct RecentPlacesCleared: EventPayload, Hashable {
    public static let eventType = "RecentPlacesCleared"
    public var userId: UUID
    public var clearedAt: Date
}

/// The traveller's account was erased (auth's `UserErased`): their key is destroyed, every list is empty and stays so.
public struct PlacesErased: EventPayload, Hashable {
    public static let eventType = "PlacesErased"
    public var userId: UUID
    public var erasedAt: Date
}
