import Foundation

// The published language of `tour-management` on `waypoint.tours`: a traveller's favourite tours (issue 6).
//
// Stream `favourites-<userId>` (user ids are pseudonymous).

/// A traveller marked a tour as a favourite.
public struct TourFavourited: IntegrationEvent {
    public static let eventType = "TourFavourited"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var favouritedAt: Date

    public init(tourId: UUID, userId: UUID, favouritedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.favouritedAt = favouritedAt
    }
}

/// A traveller removed a tour from their favourites.
public struct TourUnfavourited: IntegrationEvent {
    public static let eventType = "TourUnfavourited"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var userId: UUID
    public var unfavouritedAt: Date

    public init(tourId: UUID, userId: UUID, unfavouritedAt: Date) {
        self.tourId = tourId
        self.userId = userId
        self.unfavouritedAt = unfavouritedAt
    }
}
