import Contracts
import Foundation
import RoadNetwork
import ServiceKit

/// `{ "lat", "lng" }` in a request (DESIGN: coordinates in requests).
struct LatLngBody: Codable, Sendable, Hashable {
    var lat: Double
    var lng: Double

    var point: RoadPoint { RoadPoint(latitude: lat, longitude: lng) }

    func check(_ field: String, _ validator: inout Validator) {
        validator.require(lat.isFinite && (-90...90).contains(lat), field: "\(field).lat", code: "out-of-range", message: "must be -90…90")
        validator.require(lng.isFinite && (-180...180).contains(lng), field: "\(field).lng", code: "out-of-range", message: "must be -180…180")
    }
}

/// `POST /v1/navigation/sessions`: `{ "from", "to", "via"?, "alternative"?, "lang"? }`.
struct SessionStartBody: Codable, Sendable {
    var from: LatLngBody?
    var to: LatLngBody?
    var via: [LatLngBody]?
    var alternative: Int?
    var lang: String?

    func start() throws -> SessionStart {
        var validator = Validator()
        validator.present(from, field: "from")
        validator.present(to, field: "to")
        from?.check("from", &validator)
        to?.check("to", &validator)
        validator.count(via, field: "via", max: RoadRouter.maximumViaPoints)
        for (index, point) in (via ?? []).enumerated() { point.check("via[\(index)]", &validator) }
        validator.range(alternative, field: "alternative", 0...RouteQuery.maximumAlternatives)
        validator.require(alternative ?? 0 == 0 || (via ?? []).isEmpty, field: "alternative", code: "conflict",
                          message: "alternatives are searched only between two points (no via)")
        validator.oneOf(lang, field: "lang", allowed: InstructionLanguage.allCases.map(\.rawValue))
        try validator.check()
        return SessionStart(from: from!.point, to: to!.point, via: (via ?? []).map(\.point), alternative: alternative ?? 0,
                            language: lang.flatMap(InstructionLanguage.init) ?? .en)
    }
}

/// One fix: `{ "lat", "lng", "accuracy"?, "speed"?, "course"?, "time" }`.
struct FixBody: Codable, Sendable, Equatable {
    var lat: Double
    var lng: Double
    var accuracy: Double?
    var speed: Double?
    var course: Double?
    var time: Date
}

/// `POST /v1/navigation/sessions/{id}/positions`: `{ "fixes": [ … ] }` (1–100 fixes).
struct PositionsBody: Codable, Sendable, Equatable {
    var fixes: [FixBody]

    /// Earliest fix time accepted: anything before is a clock that was never set (1970) or a replay from another year.
    static let earliest = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
    /// How far in the future a fix may be (clock skew between phone and server).
    static let skew: TimeInterval = 60

    func fixes(now: Date) throws -> [PositionFix] {
        var validator = Validator()
        validator.count(fixes, field: "fixes", min: 1, max: NavigationSessions.maximumBatch)
        for (index, fix) in fixes.prefix(NavigationSessions.maximumBatch).enumerated() {
            let field = "fixes[\(index)]"
            LatLngBody(lat: fix.lat, lng: fix.lng).check(field, &validator)
            validator.require(fix.accuracy.map { $0.isFinite && (0...10_000).contains($0) } ?? true, field: "\(field).accuracy", code: "out-of-range",
                              message: "must be 0…10000 metres")
            validator.require(fix.speed.map { $0.isFinite && (0...100).contains($0) } ?? true, field: "\(field).speed", code: "out-of-range",
                              message: "must be 0…100 m/s")
            validator.require(fix.course.map { $0.isFinite && (0..<360).contains($0) } ?? true, field: "\(field).course", code: "out-of-range",
                              message: "must be 0 ≤ course < 360 degrees")
            validator.require(fix.time >= Self.earliest, field: "\(field).time", code: "too-old", message: "is before 2000: the device clock is not set")
            validator.require(fix.time <= now.addingTimeInterval(Self.skew), field: "\(field).time", code: "in-the-future",
                              message: "is more than \(Int(Self.skew)) s ahead of the server's clock")
        }
        try validator.check()
        return fixes.map { PositionFix(latitude: $0.lat, longitude: $0.lng, accuracy: $0.accuracy, speed: $0.speed, course: $0.course, time: $0.time) }
    }
}

/// `POST /v1/navigation/sessions/{id}/end`: `{ "tripId"? }` — the record-trip trip the ride was recorded as.
struct SessionEndBody: Codable, Sendable {
    var tripId: UUID?
}

/// `POST /v1/navigation/tour-sessions`: `{ "tourId", "from", "lang"? }`.
struct TourSessionBody: Codable, Sendable {
    var tourId: UUID?
    var from: LatLngBody?
    var lang: String?

    func checked() throws -> (tourId: UUID, from: RoadPoint, language: InstructionLanguage) {
        var validator = Validator()
        validator.present(tourId, field: "tourId")
        validator.present(from, field: "from")
        from?.check("from", &validator)
        validator.oneOf(lang, field: "lang", allowed: InstructionLanguage.allCases.map(\.rawValue))
        try validator.check()
        return (tourId!, from!.point, lang.flatMap(InstructionLanguage.init) ?? .en)
    }
}

extension PositionsBody: FastJSONReadable {
    /// The common body — `{"fixes":[{"lat":…,"lng":…,"accuracy":…,"speed":…,"course":…,"time":"…"}]}`, numbers and a
    /// plain timestamp — read without `Codable` (`JSONDecoder` was the largest cost of a position update after the
    /// HTTP stack); the time is parsed by the same function as the service decoder's, so every body read here gives
    /// exactly what `JSONDecoder` gives. Anything else (`null`, another member, a repeated one, an escape, a time that
    /// does not parse) answers `nil` and is decoded, and refused, by `JSONDecoder` as before.
    static func readFast(_ data: Data) -> PositionsBody? {
        StrictJSONCursor.read(data) { cursor -> PositionsBody? in
            var fixes: [FixBody]?
            let complete = cursor.object { cursor, key in
                guard key == "fixes", fixes == nil, let read = cursor.array({ $0.positionFix() }) else { return false }
                fixes = read
                return true
            }
            guard complete, let fixes else { return nil }
            return PositionsBody(fixes: fixes)
        }
    }
}

extension StrictJSONCursor {
    static let positionFixNames = ["lat", "lng", "accuracy", "speed", "course", "time"]

    /// One fix of a position update, or `nil` when it is not of the strict shape.
    mutating func positionFix() -> FixBody? {
        var values = [Double](repeating: 0, count: 5)
        var time: Date?
        var seen = 0
        let complete = object { cursor, key in
            guard let index = Self.positionFixNames.firstIndex(of: key), seen & (1 << index) == 0 else { return false }
            seen |= 1 << index
            if index == 5 {
                guard let text = cursor.plainString(), let parsed = ServiceJSON.parseTimestamp(text) else { return false }
                time = parsed
            } else {
                guard let value = cursor.number() else { return false }
                values[index] = value
            }
            return true
        }
        guard complete, seen & 0b100011 == 0b100011, let time else { return nil }
        func optional(_ index: Int) -> Double? { seen & (1 << index) == 0 ? nil : values[index] }
        return FixBody(lat: values[0], lng: values[1], accuracy: optional(2), speed: optional(3), course: optional(4), time: time)
    }
}
