import Contracts
import Foundation
import RecordTripAnalysis
import RoadNetwork
import ServiceKit

/// `{ "lat", "lng" }` in a request (DESIGN: coordinates in requests).
struct LatLngBody: Codable, Sendable, Hashable {
    var lat: Double
    var lng: Double

    var coordinate: Coordinate2D { Coordinate2D(latitude: lat, longitude: lng) }

    func validate(_ field: String, into validator: inout Validator) {
        validator.range(lat, field: "\(field).lat", -90.0...90.0)
        validator.range(lng, field: "\(field).lng", -180.0...180.0)
    }
}

/// One GPS fix as the phone sends it: seconds since the Unix epoch, WGS 84 degrees, metres, m/s, degrees. Values are
/// not judged here: the cleaner drops and counts what is impossible, and the raw upload is kept as sent.
struct FixBody: Codable, Sendable, Hashable {
    var time: Double
    var lat: Double
    var lng: Double
    var altitude: Double?
    var accuracy: Double?
    var speed: Double?
    var course: Double?

    var fix: GPSFix {
        GPSFix(time: time, latitude: lat, longitude: lng, altitude: altitude, accuracy: accuracy, speed: speed, course: course)
    }

    init(_ fix: GPSFix) {
        (time, lat, lng, altitude, accuracy, speed, course) = (fix.time, fix.latitude, fix.longitude, fix.altitude, fix.accuracy, fix.speed,
                                                               fix.course)
    }
}

/// `POST /v1/trips`.
struct CreateTripRequest: Codable, Sendable {
    var navigationSessionId: UUID?
}

/// The samples of a chunk or a preview.
struct SamplesBody: Codable, Sendable {
    var fixes: [FixBody]?
    var acceleration: [AccelerationSample]?

    var samples: TripSamples { TripSamples(fixes: (fixes ?? []).map(\.fix), acceleration: acceleration ?? []) }

    func validate(into validator: inout Validator) {
        let limits = TripLimits.standard
        validator.count(fixes, field: "fixes", max: limits.maximumFixes)
        validator.count(acceleration, field: "acceleration", max: limits.maximumAccelerationSamples)
        validator.require(!(fixes ?? []).isEmpty || !(acceleration ?? []).isEmpty, field: "fixes", code: "empty-chunk",
                          message: "a chunk carries at least one fix or accelerometer sample")
    }
}

/// `POST /v1/trips/{id}/samples`: a chunk and its sequence number (0, 1, 2, … in any order).
struct ChunkRequest: Codable, Sendable, ValidatableRequest {
    var sequence: Int
    var fixes: [FixBody]?
    var acceleration: [AccelerationSample]?

    var body: SamplesBody { SamplesBody(fixes: fixes, acceleration: acceleration) }

    func validate(into validator: inout Validator) {
        validator.range(sequence, field: "sequence", 0...TripLimits.standard.maximumSequence)
        body.validate(into: &validator)
    }
}

/// `POST /v1/trips/preview`.
struct PreviewRequest: Codable, Sendable, ValidatableRequest {
    var fixes: [FixBody]?
    var acceleration: [AccelerationSample]?

    func validate(into validator: inout Validator) {
        SamplesBody(fixes: fixes, acceleration: acceleration).validate(into: &validator)
    }
}

/// `POST /v1/trips/{id}/review`.
struct ReviewRequestBody: Codable, Sendable, ValidatableRequest {
    struct Decision: Codable, Sendable {
        var candidateId: UUID
        var action: String
        var kind: String?
        var severity: Double?
        var position: LatLngBody?
    }

    struct Added: Codable, Sendable {
        var position: LatLngBody
        var kind: String
        var severity: Double
    }

    struct Piece: Codable, Sendable {
        var osmNodes: [Int64]
        var geometry: [LatLngBody]
    }

    static let conditions = ["optimal", "medium", "sufficient", "requires-maintenance"]

    var decisions: [Decision]?
    var added: [Added]?
    var route: [Piece]?
    var submitAsPathDraft: Bool?
    var condition: String?

    func validate(into validator: inout Validator) {
        let kinds = ObstacleKind.allCases.map(\.rawValue)
        validator.count(decisions, field: "decisions", max: 1_000)
        validator.each(decisions, field: "decisions") { v, d in
            v.oneOf(d.action, field: "action", allowed: CandidateAction.allCases.map(\.rawValue))
            v.oneOf(d.kind, field: "kind", allowed: kinds)
            v.range(d.severity, field: "severity", 0.0...1.0)
            d.position?.validate("position", into: &v)
        }
        validator.count(added, field: "added", max: 100)
        validator.each(added, field: "added") { v, a in
            v.oneOf(a.kind, field: "kind", allowed: kinds)
            v.range(a.severity, field: "severity", 0.0...1.0)
            a.position.validate("position", into: &v)
        }
        validator.count(route, field: "route", min: 1, max: 100)
        validator.each(route, field: "route") { v, p in
            v.count(p.osmNodes, field: "osmNodes", min: 2, max: 100_000)
            v.count(p.geometry, field: "geometry", min: 2, max: 100_000)
            for (index, point) in p.geometry.enumerated() { point.validate("geometry[\(index)]", into: &v) }
        }
        validator.oneOf(condition, field: "condition", allowed: Self.conditions)
    }

    var request: TripReviewRequest {
        TripReviewRequest(
            decisions: (decisions ?? []).map {
                CandidateDecision(candidateId: $0.candidateId, action: CandidateAction(rawValue: $0.action) ?? .reject,
                                  kind: $0.kind.flatMap(ObstacleKind.init(rawValue:)), severity: $0.severity, position: $0.position?.coordinate)
            },
            added: (added ?? []).map { AddedObstacle(position: $0.position.coordinate, kind: ObstacleKind(rawValue: $0.kind) ?? .bump,
                                                     severity: $0.severity) },
            route: route.map { pieces in pieces.map { piece in
                let geometry = piece.geometry.map(\.coordinate)
                return RoutePiece(osmNodes: piece.osmNodes, geometry: geometry, lengthM: TripGeometry.length(geometry))
            } },
            submitAsPathDraft: submitAsPathDraft ?? false, condition: condition)
    }
}
