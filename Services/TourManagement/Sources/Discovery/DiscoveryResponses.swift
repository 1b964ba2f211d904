import Contracts
import Foundation
import Geo
import Hummingbird
import ServiceKit

/// A published tour as lists show it.
struct TourSummaryResponse: Codable, Sendable {
    struct Guide: Codable, Sendable {
        var id: String
        /// The guide's public name from `auth`; `null` while unknown, for suspended and for erased accounts.
        var name: String?
    }

    struct Destination: Codable, Sendable {
        var id: Int64
        var name: String?
        var country: String?
    }

    struct Price: Codable, Sendable {
        var amountMinor: Int64
        var currency: String
        var free: Bool
    }

    struct Rating: Codable, Sendable {
        var average: Double?
        var count: Int
        var bayesian: Double
    }

    var id: String
    var revision: Int
    var title: String
    var description: String
    var guide: Guide
    var destination: Destination
    var themes: [TourTheme]
    var languages: [String]
    var price: Price
    /// `price` in the currency asked for with `?currency=` (approximate, from the operators' rates table).
    var convertedPrice: ConvertedPrice?
    var estimatedMinutes: Int
    var difficulty: TourDifficulty
    var mode: TourMode
    var lengthMetres: Int
    var stopCount: Int
    var start: LatLng
    var rating: Rating
    var popularity: Int
    var firstPublishedAt: Date
    var publishedAt: Date
    /// Metres from `near`, for searches with `near`.
    var distanceMetres: Int?

    /// Lists cut the description to this many characters.
    static let excerptLength = 280

    init(_ tour: PublishedTour, guideName: String?, city: City?, distanceMetres: Double?, fullDescription: Bool) {
        id = tour.tourId.uuidString.lowercased()
        revision = tour.revision
        title = tour.details.title
        description = fullDescription || tour.details.description.count <= Self.excerptLength
            ? tour.details.description : String(tour.details.description.prefix(Self.excerptLength - 1)) + "…"
        guide = Guide(id: tour.guideId.uuidString.lowercased(), name: guideName)
        destination = Destination(id: tour.details.destinationId, name: city?.name, country: city?.country)
        themes = tour.details.themes
        languages = tour.details.languages
        price = Price(amountMinor: tour.details.price.amountMinor, currency: tour.details.price.currency.code,
                      free: tour.details.price.amountMinor == 0)
        estimatedMinutes = tour.details.estimatedMinutes
        difficulty = tour.details.difficulty
        mode = tour.details.mode
        lengthMetres = tour.lengthMetres
        stopCount = tour.stopCount
        start = tour.start
        rating = Rating(average: tour.rating.average, count: tour.rating.count, bayesian: tour.rating.bayesian)
        popularity = tour.popularity
        firstPublishedAt = tour.firstPublishedAt
        publishedAt = tour.publishedAt
        self.distanceMetres = distanceMetres.map { Int($0.rounded()) }
    }
}

/// `GET /v1/tours`.
struct TourListResponse: ResponseEncodable {
    var tours: [TourSummaryResponse]
    /// Pass as `cursor` (with the same filters) for the next page; absent on the last page.
    var nextCursor: String?
}

/// `GET /v1/tours/{id}`: the summary with the whole description, every stop's name and place, and the first stop in
/// full (a preview). Travellers who own the tour, its guide and administrators get every stop in full.
struct TourDetailResponse: ResponseEncodable {
    struct StopName: Codable, Sendable {
        var id: String
        var name: String
        var location: LatLng
    }

    /// A stop: always name and place; text, trigger radius and media for those who may use the content.
    struct Stop: Codable, Sendable {
        var id: String
        var name: String
        var location: LatLng
        var description: String?
        var triggerRadiusMetres: Int?
        var media: [StopMedia]?

        init(_ stop: TourStop, full: Bool) {
            id = stop.stopId.uuidString.lowercased()
            name = stop.name
            location = stop.location
            description = full ? stop.description : nil
            triggerRadiusMetres = full ? stop.triggerRadiusMetres : nil
            media = full ? stop.media : nil
        }
    }

    var tour: TourSummaryResponse
    /// Whether the caller may use the full content (owns the tour, is its guide, or an administrator).
    var entitled: Bool
    var stops: [Stop]
    var firstStop: TourStop?
}

/// `GET /v1/tours/{id}/route`.
struct TourRouteResponse: ResponseEncodable {
    struct Leg: Codable, Sendable {
        var fromStopId: String
        var toStopId: String
        var distanceMetres: Int
    }

    var tourId: String
    var revision: Int
    /// The stops in order, `[lng, lat]` (RFC 7946).
    var geometry: LineString
    /// The same line as an encoded polyline (precision 5, Google's format).
    var polyline: String
    var legs: [Leg]
    var lengthMetres: Int
    var stops: [TourDetailResponse.StopName]
}
