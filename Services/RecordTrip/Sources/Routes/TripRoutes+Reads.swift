import Contracts
import Foundation
import Geo
import Hummingbird
import NIOCore
import RecordTripAnalysis
import RoadNetwork
import ServiceKit

extension TripRoutes {
    static let defaultLimit = 20
    static let maximumLimit = 100

    /// `GET /v1/trips/{id}`: the owner's or an admin's.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> TripResponse {
        let (caller, isAdmin) = try Self.reader(context)
        return TripResponse(try await reads.view(try Self.tripID(context), caller: caller, isAdmin: isAdmin))
    }

    /// `GET /v1/trips?cursor&limit&from&to`: newest first, with the period's totals.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> TripListResponse {
        let rider = try context.requireCallerID()
        var validator = Validator()
        let query = request.uri.queryParameters
        var limit = Self.defaultLimit
        if let raw = query["limit"] {
            let parsed = Int(String(raw))
            validator.require(parsed != nil, field: "limit", code: "not-a-number", message: "must be a whole number")
            validator.range(parsed, field: "limit", 1...Self.maximumLimit)
            limit = parsed ?? limit
        }
        let cursor = query["cursor"].flatMap { PageCursor(encoded: String($0)) }
        validator.require(query["cursor"] == nil || cursor != nil, field: "cursor", code: "invalid-cursor",
                          message: "is not a nextCursor of this list")
        let (from, to) = Self.period(request, into: &validator)
        try validator.check()
        let page = try await reads.list(rider: rider, after: cursor, limit: limit, from: from, to: to)
        return TripListResponse(trips: page.rows.map(TripSummaryResponse.init), nextCursor: page.next?.encoded, totals: page.totals)
    }

    /// `GET /v1/trips/summary?period=week|month&from&to`.
    @Sendable func summary(_ request: Request, context: ServiceRequestContext) async throws -> TripSummaryListResponse {
        let rider = try context.requireCallerID()
        var validator = Validator()
        let raw = request.uri.queryParameters["period"].map(String.init) ?? SummaryPeriod.week.rawValue
        validator.oneOf(raw, field: "period", allowed: SummaryPeriod.allCases.map(\.rawValue))
        let (from, to) = Self.period(request, into: &validator)
        try validator.check()
        let period = SummaryPeriod(rawValue: raw) ?? .week
        let buckets = try await reads.summary(rider: rider, period: period, from: from, to: to)
        return TripSummaryListResponse(period: period.rawValue, buckets: buckets.map { .init(periodStart: $0.start, totals: $0.totals) })
    }

    /// `GET /v1/trips/{id}/export.gpx`: the raw upload as GPX 1.1.
    @Sendable func exportGPX(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (view, samples) = try await exportable(context)
        let document = GPXDocument(name: "Waypoint trip \(view.state.tripId!.uuidString.lowercased())", fixes: samples.fixes,
                                   acceleration: samples.acceleration)
        return Self.file(GPXWriter.write(document), type: "application/gpx+xml")
    }

    /// `GET /v1/trips/{id}/export.geojson`: the cleaned track, the route and the obstacles as a FeatureCollection.
    @Sendable func exportGeoJSON(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (view, samples) = try await exportable(context)
        var features: [Feature] = []
        let track = TrackCleaner.clean(samples.fixes).fixes.map { Coordinate2D(latitude: $0.latitude, longitude: $0.longitude) }
        if let line = TripGeometry.multiLine([track]) { features.append(Feature(geometry: line, properties: ["kind": "track"])) }
        let route = view.outcome?.route ?? view.detail?.route ?? []
        if let line = TripGeometry.multiLine(route.map(\.geometry)) { features.append(Feature(geometry: line, properties: [
            "kind": "route", "attribution": .string(MapDataAttribution.openStreetMap)])) }
        for candidate in view.state.review == nil ? view.detail?.candidates ?? [] : [] {
            let c = candidate.candidate
            features.append(Feature(geometry: TripGeometry.point(c.latitude, c.longitude),
                                    properties: ["kind": "candidate", "type": .string(c.kind.rawValue), "severity": .number(c.severity)]))
        }
        for obstacle in view.outcome?.obstacles ?? [] {
            features.append(Feature(geometry: TripGeometry.point(obstacle.latitude, obstacle.longitude),
                                    properties: ["kind": "obstacle", "type": .string(obstacle.kind.rawValue), "severity": .number(obstacle.severity)]))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Self.file(try encoder.encode(FeatureCollection(features)), type: "application/geo+json")
    }

    private func exportable(_ context: ServiceRequestContext) async throws -> (TripView, TripSamples) {
        let (caller, isAdmin) = try Self.reader(context)
        let trip = try Self.tripID(context)
        let view = try await reads.view(trip, caller: caller, isAdmin: isAdmin)
        guard let samples = try await commands.samples(of: trip) else { throw TripError.notFound }
        return (view, samples)
    }

    static func file(_ data: Data, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `from` and `to` (RFC 3339), 422 when unreadable.
    static func period(_ request: Request, into validator: inout Validator) -> (Date?, Date?) {
        func date(_ name: Substring) -> Date? {
            guard let raw = request.uri.queryParameters[name] else { return nil }
            let parsed = ServiceJSON.parseTimestamp(String(raw))
            validator.require(parsed != nil, field: String(name), code: "invalid-timestamp", message: "must be an RFC 3339 timestamp")
            return parsed
        }
        return (date("from"), date("to"))
    }
}
