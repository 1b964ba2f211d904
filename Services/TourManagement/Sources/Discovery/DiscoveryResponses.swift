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
struct TourListResponse: Encodable, Sendable {
    var tours: [TourSummaryResponse]
    /// Pass as `cursor` (with the same filters) for the next page; absent on the last page.
    var nextCursor: String?
}

/// `GET /v1/tours/{id}`: the summary with the whole description, every stop's name and place, and the first stop in
/// full (a preview). Travellers who own the tour, its guide and administrators get every stop in full.
struct TourDetailResponse: Encodable, Sendable {
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

// The catalogue's two hot answers write themselves (``JSONWritableResponse``): at 1,000 catalogue requests/s
// `JSONEncoder` (and Foundation's date formatting inside it) was a tenth of tour-management's CPU. Members are written
// in declaration order, nil optionals left out, as the synthesised `Encodable` does; debug builds check every answer
// against `JSONEncoder`.

extension TourListResponse: JSONWritableResponse {
    func write(to output: inout JSONOutput) {
        output.object { output in
            output.key("tours")
            output.array(of: tours) { output, tour in tour.write(to: &output) }
            output.member("nextCursor", nextCursor)
        }
    }
}

extension TourDetailResponse: JSONWritableResponse {
    func write(to output: inout JSONOutput) {
        output.object { output in
            output.key("tour")
            tour.write(to: &output)
            output.member("entitled", entitled)
            output.key("stops")
            output.array(of: stops) { output, stop in
                output.object { output in
                    output.member("id", stop.id)
                    output.member("name", stop.name)
                    output.key("location")
                    stop.location.writeService(to: &output)
                    output.member("description", stop.description)
                    output.member("triggerRadiusMetres", stop.triggerRadiusMetres)
                    if let media = stop.media {
                        output.key("media")
                        media.writeService(to: &output)
                    }
                }
            }
            if let firstStop {
                output.key("firstStop")
                output.object { output in
                    output.member("stopId", firstStop.stopId)
                    output.member("name", firstStop.name)
                    output.member("description", firstStop.description)
                    output.key("location")
                    firstStop.location.writeService(to: &output)
                    output.member("triggerRadiusMetres", firstStop.triggerRadiusMetres)
                    output.key("media")
                    firstStop.media.writeService(to: &output)
                }
            }
        }
    }
}

extension TourSummaryResponse {
    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("id", id)
            output.member("revision", revision)
            output.member("title", title)
            output.member("description", description)
            output.key("guide")
            output.object { output in
                output.member("id", guide.id)
                output.member("name", guide.name)
            }
            output.key("destination")
            output.object { output in
                output.member("id", destination.id)
                output.member("name", destination.name)
                output.member("country", destination.country)
            }
            output.key("themes")
            output.array(of: themes) { output, theme in output.value(theme.rawValue) }
            output.member("languages", languages)
            output.key("price")
            output.object { output in
                output.member("amountMinor", price.amountMinor)
                output.member("currency", price.currency)
                output.member("free", price.free)
            }
            if let convertedPrice {
                output.key("convertedPrice")
                output.object { output in
                    output.member("amountMinor", convertedPrice.amountMinor)
                    output.member("currency", convertedPrice.currency.code)
                    output.member("ratesUpdatedAt", convertedPrice.ratesUpdatedAt)
                }
            }
            output.member("estimatedMinutes", estimatedMinutes)
            output.member("difficulty", difficulty.rawValue)
            output.member("mode", mode.rawValue)
            output.member("lengthMetres", lengthMetres)
            output.member("stopCount", stopCount)
            output.key("start")
            start.writeService(to: &output)
            output.key("rating")
            output.object { output in
                output.member("average", rating.average)
                output.member("count", rating.count)
                output.member("bayesian", rating.bayesian)
            }
            output.member("popularity", popularity)
            output.member("firstPublishedAt", firstPublishedAt)
            output.member("publishedAt", publishedAt)
            output.member("distanceMetres", distanceMetres)
        }
    }
}

extension LatLng {
    /// `{"lat":…,"lng":…}` (declaration order is also sorted order).
    fileprivate func writeService(to output: inout JSONOutput) {
        output.object { output in
            output.member("lat", lat)
            output.member("lng", lng)
        }
    }
}

extension [StopMedia] {
    fileprivate func writeService(to output: inout JSONOutput) {
        output.array(of: self) { output, media in
            output.object { output in
                output.member("sha256", media.sha256)
                output.member("kind", media.kind)
                output.member("contentType", media.contentType)
                output.member("size", media.size)
            }
        }
    }
}
