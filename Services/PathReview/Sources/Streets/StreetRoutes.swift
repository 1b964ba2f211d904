import Foundation
import Hummingbird
import ServiceKit

/// The public street routes under `/v1/streets`: search by name or around a point, and one street with its geometry.
public struct StreetRoutes: Sendable {
    let catalog: StreetCatalog

    static let defaultLimit = 20
    static let maximumLimit = 100
    /// Around a point: the default and the largest radius in metres (a wider search is a name search's job).
    static let defaultRadius = 200.0
    static let maximumRadius = 2_000.0
    /// Page cursors are ServiceKit's ``PageCursor`` with the offset as key and this fixed id (the catalogue has no UUIDs).
    static let cursorID = UUID(uuidString: "5eee7000-0000-4000-8000-000000000000")!

    /// The routes over `catalog`.
    public init(catalog: StreetCatalog) {
        self.catalog = catalog
    }

    /// Mounts the street routes (public: no token needed).
    public func addRoutes(to routes: ServiceRoutes) {
        let streets = routes.group("/v1/streets")
        streets.get(use: list)
        streets.get(":id", use: show)
    }

    /// `GET /v1/streets?q=&limit=&cursor=` or `GET /v1/streets?near=lat,lng&radiusM=&limit=&cursor=`.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> StreetListResponse {
        let query = request.uri.queryParameters
        var validator = Validator()
        let text = query.get("q")?.trimmingCharacters(in: .whitespaces)
        let near = query.get("near")
        validator.require(text != nil || near != nil, field: "q", code: "required", message: "give q (a street name) or near (lat,lng)")
        validator.require(text == nil || near == nil, field: "near", code: "conflict", message: "give q or near, not both")
        if let text { validator.length(text, field: "q", min: 1, max: 100) }
        let point = near.flatMap(Self.point)
        if near != nil {
            validator.require(point != nil, field: "near", code: "out-of-range",
                              message: "must be lat,lng with a latitude in -90…90 and a longitude in -180…180")
        }
        let radius = Self.number(query.get("radiusM"), default: Self.defaultRadius, field: "radiusM", 1...Self.maximumRadius, &validator)
        let limit = Int(Self.number(query.get("limit"), default: Double(Self.defaultLimit), field: "limit",
                                    1...Double(Self.maximumLimit), &validator, whole: true))
        let cursor = query.get("cursor").flatMap { PageCursor(encoded: $0) }
        validator.require(query.get("cursor") == nil || (cursor?.id == Self.cursorID && cursor!.key >= 0), field: "cursor",
                          code: "invalid-cursor", message: "is not a nextCursor of this list")
        try validator.check()
        let offset = Int(clamping: cursor?.key ?? 0)
        let page = if let point {
            catalog.near(latitude: point.latitude, longitude: point.longitude, radius: radius, offset: offset, limit: limit)
        } else {
            catalog.search(text ?? "", offset: offset, limit: limit)
        }
        return StreetListResponse(streets: page.entries.map(StreetSummaryResponse.init),
                                  nextCursor: page.nextOffset.map { PageCursor(key: Int64($0), id: Self.cursorID).encoded })
    }

    /// `GET /v1/streets/{id}`; 404 `unknown-street` for an unknown or malformed id.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> StreetDetailResponse {
        let unknown = Problem.notFound("no such street", code: "unknown-street")
        guard let entry = catalog.street(id: try context.parameters.require("id", as: Int64.self, ifInvalid: unknown)) else { throw unknown }
        return StreetDetailResponse(entry, lines: catalog.lines(of: entry.street))
    }

    /// `lat,lng` in range (NaN and infinities are out of range), `nil` otherwise.
    static func point(_ text: String) -> (latitude: Double, longitude: Double)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1],
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        return (latitude, longitude)
    }

    /// A query number within `bounds` (a whole one when `whole`), or `fallback` when absent; a field error otherwise.
    static func number(_ raw: String?, default fallback: Double, field: String, _ bounds: ClosedRange<Double>,
                       _ validator: inout Validator, whole: Bool = false) -> Double {
        guard let raw else { return fallback }
        let value = Double(raw)
        let valid = value.map { bounds.contains($0) && (!whole || $0.rounded() == $0) } ?? false
        validator.require(valid, field: field, code: "out-of-range",
                          message: "must be \(whole ? "a whole number" : "a number") from \(Self.format(bounds.lowerBound)) to \(Self.format(bounds.upperBound))")
        return valid ? value! : fallback
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }
}
