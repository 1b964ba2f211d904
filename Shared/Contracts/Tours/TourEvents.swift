import Foundation

// The published language of `tour-management` on `waypoint.tours`, authoring part. A tour is one stream
// (`tour-<id>`): a working copy that guides edit, and published revisions that travellers see. Consumers that show a
// tour (discovery in tour-management itself, analytics) read `TourPublished`, which carries the whole published
// revision, so they need no other event to know what is public.

/// Themes a tour can have (the documented list; a new theme is a backward-compatible addition).
public enum TourTheme: String, Codable, Sendable, Hashable, CaseIterable {
    case history, food, art, architecture, nature, nightlife, shopping, culture, religion, family, photography
    case hiddenGems = "hidden-gems"
}

/// How a tour is travelled.
public enum TourMode: String, Codable, Sendable, Hashable, CaseIterable {
    case walk, bike
}

/// How demanding a tour is.
public enum TourDifficulty: String, Codable, Sendable, Hashable, CaseIterable {
    case easy, moderate, challenging
}

/// A point in requests and events: `{"lat", "lng"}` (DESIGN: coordinates in requests as lat/lng).
public struct LatLng: Codable, Sendable, Hashable {
    public var lat: Double
    public var lng: Double

    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }
}

/// Media of a stop: a content-addressed upload.
public struct StopMedia: Codable, Sendable, Hashable {
    /// SHA-256 of the content, hex: also its address (`/v1/media/<sha256>`).
    public var sha256: String
    /// `image`, `audio` or `video`.
    public var kind: String
    public var contentType: String
    public var size: Int64

    public init(sha256: String, kind: String, contentType: String, size: Int64) {
        self.sha256 = sha256
        self.kind = kind
        self.contentType = contentType
        self.size = size
    }
}

/// The editable details of a tour, as a whole.
public struct TourDetails: Codable, Sendable, Hashable {
    public var title: String
    public var description: String
    /// GeoNames id of the destination city.
    public var destinationId: Int64
    public var themes: [TourTheme]
    /// BCP 47 tags, e.g. `["de", "en"]`.
    public var languages: [String]
    /// 0 minor units = free.
    public var price: Money
    public var estimatedMinutes: Int
    public var difficulty: TourDifficulty
    public var mode: TourMode

    public init(title: String, description: String, destinationId: Int64, themes: [TourTheme], languages: [String], price: Money,
                estimatedMinutes: Int, difficulty: TourDifficulty, mode: TourMode) {
        self.title = title
        self.description = description
        self.destinationId = destinationId
        self.themes = themes
        self.languages = languages
        self.price = price
        self.estimatedMinutes = estimatedMinutes
        self.difficulty = difficulty
        self.mode = mode
    }
}

/// One stop, as a whole.
public struct TourStop: Codable, Sendable, Hashable {
    public var stopId: UUID
    public var name: String
    public var description: String
    public var location: LatLng
    public var triggerRadiusMetres: Int
    public var media: [StopMedia]

    public init(stopId: UUID, name: String, description: String, location: LatLng, triggerRadiusMetres: Int, media: [StopMedia]) {
        self.stopId = stopId
        self.name = name
        self.description = description
        self.location = location
        self.triggerRadiusMetres = triggerRadiusMetres
        self.media = media
    }
}

/// A guide started a tour (a draft).
public struct TourDrafted: IntegrationEvent {
    public static let eventType = "TourDrafted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var guideId: UUID
    public var details: TourDetails
    public var draftedAt: Date

    public init(tourId: UUID, guideId: UUID, details: TourDetails, draftedAt: Date) {
        self.tourId = tourId
        self.guideId = guideId
        self.details = details
        self.draftedAt = draftedAt
    }
}

/// The working copy's details after a change (whole).
public struct TourDetailsChanged: IntegrationEvent {
    public static let eventType = "TourDetailsChanged"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var details: TourDetails
    public var changedAt: Date

    public init(tourId: UUID, details: TourDetails, changedAt: Date) {
        self.tourId = tourId
        self.details = details
        self.changedAt = changedAt
    }
}

/// A stop was added to the working copy at `position` (0-based; later stops move down).
public struct StopAdded: IntegrationEvent {
    public static let eventType = "StopAdded"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var stop: TourStop
    public var position: Int
    public var addedAt: Date

    public init(tourId: UUID, stop: TourStop, position: Int, addedAt: Date) {
        self.tourId = tourId
        self.stop = stop
        self.position = position
        self.addedAt = addedAt
    }
}

/// A stop of the working copy after a change (whole).
public struct StopChanged: IntegrationEvent {
    public static let eventType = "StopChanged"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var stop: TourStop
    public var changedAt: Date

    public init(tourId: UUID, stop: TourStop, changedAt: Date) {
        self.tourId = tourId
        self.stop = stop
        self.changedAt = changedAt
    }
}

/// The working copy's stops in their new order (every stop id, once).
public struct StopsReordered: IntegrationEvent {
    public static let eventType = "StopsReordered"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var stopIds: [UUID]
    public var reorderedAt: Date

    public init(tourId: UUID, stopIds: [UUID], reorderedAt: Date) {
        self.tourId = tourId
        self.stopIds = stopIds
        self.reorderedAt = reorderedAt
    }
}

/// A stop left the working copy.
public struct StopRemoved: IntegrationEvent {
    public static let eventType = "StopRemoved"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var stopId: UUID
    public var removedAt: Date

    public init(tourId: UUID, stopId: UUID, removedAt: Date) {
        self.tourId = tourId
        self.stopId = stopId
        self.removedAt = removedAt
    }
}

/// An uploaded medium was attached to a stop of the working copy.
public struct MediaAttached: IntegrationEvent {
    public static let eventType = "MediaAttached"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var stopId: UUID
    public var media: StopMedia
    public var attachedAt: Date

    public init(tourId: UUID, stopId: UUID, media: StopMedia, attachedAt: Date) {
        self.tourId = tourId
        self.stopId = stopId
        self.media = media
        self.attachedAt = attachedAt
    }
}

/// The working copy became published revision `revision` (1, 2, …), with everything a reader needs.
public struct TourPublished: IntegrationEvent {
    public static let eventType = "TourPublished"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var guideId: UUID
    public var revision: Int
    public var details: TourDetails
    public var stops: [TourStop]
    /// Great-circle length along the stops in order, metres.
    public var lengthMetres: Int
    public var publishedAt: Date

    public init(tourId: UUID, guideId: UUID, revision: Int, details: TourDetails, stops: [TourStop], lengthMetres: Int,
                publishedAt: Date) {
        self.tourId = tourId
        self.guideId = guideId
        self.revision = revision
        self.details = details
        self.stops = stops
        self.lengthMetres = lengthMetres
        self.publishedAt = publishedAt
    }
}

/// The tour is no longer public (its revisions stay in the log).
public struct TourUnpublished: IntegrationEvent {
    public static let eventType = "TourUnpublished"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var unpublishedAt: Date

    public init(tourId: UUID, unpublishedAt: Date) {
        self.tourId = tourId
        self.unpublishedAt = unpublishedAt
    }
}

/// A draft untouched for 30 days was expired by the scheduled job.
public struct TourDraftExpired: IntegrationEvent {
    public static let eventType = "TourDraftExpired"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var lastChangedAt: Date
    public var expiredAt: Date

    public init(tourId: UUID, lastChangedAt: Date, expiredAt: Date) {
        self.tourId = tourId
        self.lastChangedAt = lastChangedAt
        self.expiredAt = expiredAt
    }
}

/// The guide deleted a draft that was never published.
public struct TourDeleted: IntegrationEvent {
    public static let eventType = "TourDeleted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var tourId: UUID
    public var deletedAt: Date

    public init(tourId: UUID, deletedAt: Date) {
        self.tourId = tourId
        self.deletedAt = deletedAt
    }
}
