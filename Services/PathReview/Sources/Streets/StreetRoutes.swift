import EventSourcing
import Foundation
import Hummingbird
import RoadNetwork
import ServiceKit

/// The street routes under `/v1/streets`: search by name or around a point, and one street with its geometry (public),
/// each street with its compatibility now (``StreetStatus``); moderators mark a street incompatible or lift the mark.
public struct StreetRoutes: Sendable {
    let catalog: StreetCatalog
    let status: StreetStatus
    let marks: AggregateRepository<StreetMarkAggregate, AnyEventStore>
    let now: @Sendable () -> Date

    static let defaultLimit = 20
    static let maximumLimit = 100
    /// Around a point: the default and the largest radius in metres (a wider search is a name search's job).
    static let defaultRadius = 200.0
    static let maximumRadius = 2_000.0
    /// Page cursors are ServiceKit's ``PageCursor`` with the offset as key and this fixed id (the catalogue has no UUIDs).
    static let cursorID = UUID(uuidString: "5eee7000-0000-4000-8000-000000000000")!

    /// The routes over `catalog`, judging streets by `status`, keeping moderators' marks in `store` (`street-<id>`).
    public init(catalog: StreetCatalog, status: StreetStatus, store: AnyEventStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.catalog = catalog
        self.status = status
        self.marks = AggregateRepository(store: store)
        self.now = now
    }

    /// Mounts the street routes: reads are public, marks are for moderators and admins.
    public func addRoutes(to routes: ServiceRoutes) {
        let streets = routes.group("/v1/streets")
        streets.get(use: list)
        streets.get(":id", use: show)
        let moderated = routes.authenticated("/v1/streets", requiring: .moderator, .admin)
        moderated.put(":id/incompatible", use: mark)
        moderated.delete(":id/incompatible", use: lift)
    }

    /// `PUT /v1/streets/{id}/incompatible`: no path may be drawn on the street (idempotent); the street as it is now.
    @Sendable func mark(_ request: Request, context: ServiceRequestContext) async throws -> StreetDetailResponse {
        try await change(context, incompatible: true)
    }

    /// `DELETE /v1/streets/{id}/incompatible`: the mark is lifted (idempotent); the street as it is now.
    @Sendable func lift(_ request: Request, context: ServiceRequestContext) async throws -> StreetDetailResponse {
        try await change(context, incompatible: false)
    }

    private func change(_ context: ServiceRequestContext, incompatible: Bool) async throws -> StreetDetailResponse {
        let identity = try context.requireIdentity()
        let entry = try Self.entry(context, catalog)
        let id = entry.street.id, nodes = catalog.osmNodes(of: entry.street), at = now()
        let command: StreetMarkCommand = incompatible ? .markIncompatible(streetId: id, osmNodes: nodes, at: at) : .liftMark(streetId: id, osmNodes: nodes, at: at)
        let stream = StreetMarkAggregate.streamID(id)
        do {
            let loaded = try await marks.load(stream)
            let events = try StreetMarkAggregate.decide(command, loaded.state)
            if !events.isEmpty {
                let metadata = EventMetadata(actorID: identity.subject, traceparent: context.traceparent)
                _ = try await marks.store.append(try events.map { try StreetMarkAggregate.payload(of: $0).newEvent(metadata: metadata) }, to: stream,
                                                 expectedVersion: loaded.version == 0 ? .noStream : .exact(loaded.version))
            }
        } catch EventStoreError.wrongExpectedVersion {
            throw Problem.conflict("The street's mark was changed at the same time; retry.", code: "version-conflict")
        }
        // The read model may not have the change yet: the mark is what was just decided.
        var resolved = try await status.resolve([entry])[0]
        var reasons = resolved.compatibility.reasons.filter { $0 != .markedIncompatible }
        if incompatible { reasons.append(.markedIncompatible) }
        resolved.compatibility = StreetCompatibility(reasons: reasons)
        return StreetDetailResponse(resolved, lines: catalog.lines(of: entry.street))
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
        return StreetListResponse(streets: try await status.resolve(page.entries).map(StreetSummaryResponse.init),
                                  nextCursor: page.nextOffset.map { PageCursor(key: Int64($0), id: Self.cursorID).encoded })
    }

    /// `GET /v1/streets/{id}`; 404 `unknown-street` for an unknown or malformed id.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> StreetDetailResponse {
        let entry = try Self.entry(context, catalog)
        return StreetDetailResponse(try await status.resolve([entry])[0], lines: catalog.lines(of: entry.street))
    }

    /// The street of the `{id}` parameter; 404 `unknown-street` for an unknown or malformed id.
    static func entry(_ context: ServiceRequestContext, _ catalog: StreetCatalog) throws -> StreetCatalog.Entry {
        let unknown = Problem.notFound("no such street", code: "unknown-street")
        guard let entry = catalog.street(id: try context.parameters.require("id", as: Int64.self, ifInvalid: unknown)) else { throw unknown }
        return entry
    }

    /// `lat,lng` in range (NaN and infinities are out of range), `nil` otherwise.
    static func point(_ text: String) -> (latitude: Double, longitude: Double)? {
        RoadPoint(latLng: text).map { ($0.latitude, $0.longitude) }
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
