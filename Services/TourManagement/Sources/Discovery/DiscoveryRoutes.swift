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

/// Public discovery routes: search, detail, map, route. Answers come from the discovery read model, which trails a
/// publication by the projection's poll interval.
public struct DiscoveryRoutes: Sendable {
    let catalog: TourCatalog
    let destinations: DestinationIndex
    /// Public names of guides by id (from `auth`, through the `waypoint.auth` consumer); missing ids have none.
    let guideNames: @Sendable ([UUID]) async -> [UUID: String]
    let access: TourAccess
    let views: TourViewRecorder
    let exchangeRates: ExchangeRates
    let now: @Sendable () -> Date

    public init(catalog: TourCatalog, destinations: DestinationIndex, access: TourAccess, views: TourViewRecorder, exchangeRates: ExchangeRates,
                now: @escaping @Sendable () -> Date = Date.init,
                guideNames: @escaping @Sendable ([UUID]) async -> [UUID: String] = { _ in [:] }) {
        self.catalog = catalog
        self.destinations = destinations
        self.access = access
        self.views = views
        self.exchangeRates = exchangeRates
        self.now = now
        self.guideNames = guideNames
    }

    public func add(to routes: ServiceRoutes) {
        let catalog = catalog, destinations = destinations, guideNames = guideNames, access = access, views = views, now = now
        let exchangeRates = exchangeRates
        /// `?currency=`: the currency to add converted prices in (422 for an unknown one).
        @Sendable func displayCurrency(_ request: Request) throws -> CurrencyCode? {
            guard let code = request.uri.queryParameters.get("currency") else { return nil }
            guard let currency = CurrencyCode(code) else {
                throw Problem.unprocessable(fieldErrors: [FieldError(field: "currency", code: "unsupported-currency",
                                                                     message: "must be an active ISO 4217 currency code such as EUR")])
            }
            return currency
        }
        let group = routes.optionallyAuthenticated("/v1/tours")

        group.get { request, _ -> TourListResponse in
            var parameters = Self.parameters(request)
            parameters["currency"] = nil
            let display = try displayCurrency(request)
            let query = try DiscoveryQuery.parse(parameters) { destinations.city(id: $0) != nil }
            let page = try await catalog.search(query)
            let names = await guideNames(Array(Set(page.hits.map(\.tour.guideId))))
            var tours: [TourSummaryResponse] = []
            for hit in page.hits {
                var summary = TourSummaryResponse(hit.tour, guideName: names[hit.tour.guideId], city: destinations.city(id: hit.tour.details.destinationId),
                                                  distanceMetres: hit.distanceMetres, fullDescription: false)
                summary.convertedPrice = try await exchangeRates.converted(hit.tour.details.price, to: display)
                tours.append(summary)
            }
            return TourListResponse(tours: tours, nextCursor: page.nextCursor?.encoded)
        }

        group.get("map") { request, _ -> Response in
            let parameters = Self.parameters(request)
            var validator = Validator()
            var box: BoundingBox?
            if let raw = parameters["bbox"] {
                box = try? BoundingBox(queryValue: raw)
                validator.require(box != nil, field: "bbox", code: "invalid-bbox",
                                  message: "must be west,south,east,north in degrees (longitudes -180…180, latitudes -90…90, south ≤ north)")
            } else {
                validator.present(box, field: "bbox")
            }
            let zoom = parameters["zoom"].map { Int($0) ?? -1 }
            validator.present(zoom, field: "zoom")
            validator.range(zoom, field: "zoom", TourMapClustering.zoomRange)
            // The list filters narrow the map too (except q, sort, cursor and limit).
            var filterParameters = parameters
            for name in ["bbox", "zoom", "q", "sort", "cursor", "limit", "currency"] { filterParameters[name] = nil }
            var filter = DiscoveryFilter()
            do {
                filter = try DiscoveryQuery.parse(filterParameters) { destinations.city(id: $0) != nil }.filter
            } catch let problem as Problem {
                for error in problem.fieldErrors { validator.require(false, field: error.field, code: error.code, message: error.message) }
            }
            try validator.check()
            let markers = try await catalog.markers(in: box!, filter: filter)
            let collection = try TourMapClustering.featureCollection(TourMapClustering.cluster(markers, zoom: zoom!))
            var headers = HTTPFields()
            headers[.contentType] = "application/geo+json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(collection))))
        }

        group.get(":id") { request, context -> TourDetailResponse in
            let tour = try await Self.published(context, catalog, access: access)
            let user = context.identity.flatMap { UUID(uuidString: $0.subject) }
            let viewer = views.viewer(user: user, clientAddress: context.clientAddress(request),
                                      userAgent: request.headers[.userAgent])
            await views.record(tour: tour.tourId, guide: tour.guideId, viewer: viewer, user: user, at: now())
            let name = await guideNames([tour.guideId])[tour.guideId]
            let full = try await access.mayUse(tour, context.identity)
            var summary = TourSummaryResponse(tour, guideName: name, city: destinations.city(id: tour.details.destinationId), distanceMetres: nil,
                                              fullDescription: true)
            summary.convertedPrice = try await exchangeRates.converted(tour.details.price, to: try displayCurrency(request))
            return TourDetailResponse(
                tour: summary,
                entitled: full, stops: tour.stops.map { TourDetailResponse.Stop($0, full: full) }, firstStop: tour.stops.first)
        }

        group.get(":id/route") { _, context -> TourRouteResponse in
            let tour = try await Self.published(context, catalog)
            let coordinates = try tour.stops.map { try Coordinate(latitude: $0.location.lat, longitude: $0.location.lng) }
            let polyline = Polyline(coordinates)
            let legs = zip(tour.stops, tour.stops.dropFirst()).map { from, to in
                TourRouteResponse.Leg(fromStopId: from.stopId.uuidString.lowercased(), toStopId: to.stopId.uuidString.lowercased(),
                                      distanceMetres: Int(TourAggregate.lengthMetres([from, to]).rounded()))
            }
            return TourRouteResponse(tourId: tour.tourId.uuidString.lowercased(), revision: tour.revision,
                                     geometry: try LineString(polyline), polyline: polyline.encoded(), legs: legs,
                                     lengthMetres: tour.lengthMetres, stops: tour.stops.map(Self.stopName))
        }
    }

    static func stopName(_ stop: TourStop) -> TourDetailResponse.StopName {
        TourDetailResponse.StopName(id: stop.stopId.uuidString.lowercased(), name: stop.name, location: stop.location)
    }

    /// The listed tour named by the `id` path parameter; 404 for anything else (unknown, draft, unpublished, not a UUID).
    /// With `access`, an unpublished tour is still found for those who may use it (its buyers keep it).
    static func published(_ context: ServiceRequestContext, _ catalog: TourCatalog, access: TourAccess? = nil) async throws -> PublishedTour {
        guard let id = UUID(uuidString: try context.parameters.require("id")),
              let tour = try await catalog.tour(id, includeUnlisted: access != nil),
              tour.listed ? true : try await access!.mayUse(tour, context.identity)
        else {
            throw Problem.notFound("no such published tour", code: "unknown-tour")
        }
        return tour
    }

    /// The query parameters, last value winning.
    static func parameters(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { result[String(name)] = String(value) }
        return result
    }
}
