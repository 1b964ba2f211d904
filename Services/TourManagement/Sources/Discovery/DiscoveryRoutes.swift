import Contracts
import Foundation
import Geo
import Hummingbird
import ServiceKit

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

    /// Mounts search, map, detail and route under `/v1/tours`, open to everyone (a sent token must be valid).
    public func addRoutes(to routes: ServiceRoutes) {
        let group = routes.optionallyAuthenticated("/v1/tours")
        group.get(use: search)
        group.get("map", use: map)
        group.get(":id", use: show)
        group.get(":id/route", use: route)
    }

    /// `GET /v1/tours`: a page of published tours matching the filters, in the asked order.
    @Sendable func search(_ request: Request, context: ServiceRequestContext) async throws -> TourListResponse {
        var parameters = Self.parameters(request)
        parameters["currency"] = nil
        let display = try Self.displayCurrency(request)
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

    /// `GET /v1/tours/map?bbox=&zoom=`: clustered markers as GeoJSON; the list filters narrow the map too.
    @Sendable func map(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (box, zoom, filter) = try mapQuery(Self.parameters(request))
        let markers = try await catalog.markers(in: box, filter: filter)
        let collection = try TourMapClustering.featureCollection(TourMapClustering.cluster(markers, zoom: zoom))
        var headers = HTTPFields()
        headers[.contentType] = "application/geo+json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(collection))))
    }

    /// `GET /v1/tours/{id}`: the tour in full for those who may use it, a preview for everyone else; records the view.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> TourDetailResponse {
        let tour = try await Self.published(context, catalog, access: access)
        let user = context.identity.flatMap { UUID(uuidString: $0.subject) }
        let viewer = views.viewer(user: user, clientAddress: context.clientAddress(request),
                                  userAgent: request.headers[.userAgent])
        await views.record(tour: tour.tourId, guide: tour.guideId, viewer: viewer, user: user, at: now())
        let name = await guideNames([tour.guideId])[tour.guideId]
        let full = try await access.mayUse(tour, context.identity)
        var summary = TourSummaryResponse(tour, guideName: name, city: destinations.city(id: tour.details.destinationId), distanceMetres: nil,
                                          fullDescription: true)
        summary.convertedPrice = try await exchangeRates.converted(tour.details.price, to: try Self.displayCurrency(request))
        return TourDetailResponse(
            tour: summary,
            entitled: full, stops: tour.stops.map { TourDetailResponse.Stop($0, full: full) }, firstStop: tour.stops.first)
    }

    /// `GET /v1/tours/{id}/route`: the stops joined in order, as GeoJSON and as an encoded polyline, with each leg.
    @Sendable func route(_ request: Request, context: ServiceRequestContext) async throws -> TourRouteResponse {
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

    /// The map's box, zoom and filter; one 422 listing every bad parameter, the filters' included.
    func mapQuery(_ parameters: [String: String]) throws -> (BoundingBox, Int, DiscoveryFilter) {
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
        return (box!, zoom!, filter)
    }

    /// `?currency=`: the currency to add converted prices in (422 for an unknown one).
    static func displayCurrency(_ request: Request) throws -> CurrencyCode? {
        guard let code = request.uri.queryParameters.get("currency") else { return nil }
        guard let currency = CurrencyCode(code) else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "currency", code: "unsupported-currency",
                                                                 message: "must be an active ISO 4217 currency code such as EUR")])
        }
        return currency
    }

    /// A stop's id, name and place.
    static func stopName(_ stop: TourStop) -> TourDetailResponse.StopName {
        TourDetailResponse.StopName(id: stop.stopId.uuidString.lowercased(), name: stop.name, location: stop.location)
    }

    /// The listed tour named by the `id` path parameter; 404 for anything else (unknown, draft, unpublished, not a UUID).
    /// With `access`, an unpublished tour is still found for those who may use it (its buyers keep it).
    static func published(_ context: ServiceRequestContext, _ catalog: TourCatalog, access: TourAccess? = nil) async throws -> PublishedTour {
        let unknown = Problem.notFound("no such published tour", code: "unknown-tour")
        let id = try context.parameters.require("id", as: UUID.self, ifInvalid: unknown)
        guard let tour = try await catalog.tour(id, includeUnlisted: access != nil),
              tour.listed ? true : try await access!.mayUse(tour, context.identity)
        else { throw unknown }
        return tour
    }

    /// The query parameters, last value winning.
    static func parameters(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { result[String(name)] = String(value) }
        return result
    }
}
