import Foundation
import Geo

/// One sighting of an obstacle on an approved path: a cyclist's report or a ride's detection.
public struct ObstacleSighting: Sendable, Hashable {
    public var type: PathObstacleType
    /// WGS 84 degrees.
    public var latitude: Double
    public var longitude: Double
    public var seenAt: Date

    /// A sighting with every value given.
    public init(type: PathObstacleType, latitude: Double, longitude: Double, seenAt: Date) {
        self.type = type
        self.latitude = latitude
        self.longitude = longitude
        self.seenAt = seenAt
    }
}

/// An open obstacle of an approved path as the clustering sees it. Its position is its first sighting's (the anchor):
/// later sightings never move it, so an obstacle cannot creep along a path sighting by sighting.
public struct OpenObstacle: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var type: PathObstacleType
    public var latitude: Double
    public var longitude: Double
    /// Sightings counted into it so far.
    public var sightings: Int
    /// The confidence at `lastConfirmedAt` (see ``ObstacleConfidence``).
    public var confidence: Double
    public var lastConfirmedAt: Date

    /// An open obstacle with every value given.
    public init(id: UUID, type: PathObstacleType, latitude: Double, longitude: Double, sightings: Int,
                confidence: Double, lastConfirmedAt: Date) {
        self.id = id
        self.type = type
        self.latitude = latitude
        self.longitude = longitude
        self.sightings = sightings
        self.confidence = confidence
        self.lastConfirmedAt = lastConfirmedAt
    }
}

/// How sightings become obstacles (issue 20, point 6), pure: a sighting joins the NEAREST open obstacle of the same type
/// whose anchor lies within ``joinRadiusMetres`` (sightings + 1, confidence by ``ObstacleConfidence/confirmed(_:at:)``);
/// with none, it opens a new obstacle (1 sighting, ``ObstacleConfidence/starting``). Sightings are taken in the order
/// given (the log's order), so replaying the log gives the same obstacles.
public enum ObstacleClustering {
    /// Sightings of one type this close (metres, great circle) to an open obstacle's anchor are that obstacle: GPS
    /// on a phone is good to ~5 m, a cyclist's tap on a map to ~10 m.
    public static let joinRadiusMetres = 15.0

    /// The index in `open` of the obstacle `sighting` joins, or `nil` for a new obstacle (ties: the first given).
    public static func match(_ sighting: ObstacleSighting, among open: [OpenObstacle]) -> Int? {
        var best: (index: Int, distance: Double)?
        for (index, obstacle) in open.enumerated() where obstacle.type == sighting.type {
            let distance = metres(obstacle.latitude, obstacle.longitude, sighting.latitude, sighting.longitude)
            if distance <= joinRadiusMetres, distance < (best?.distance ?? .infinity) { best = (index, distance) }
        }
        return best?.index
    }

    /// `open` after `sighting`: the joined obstacle updated, or a new one (id from `newId`) appended at the end.
    public static func add(_ sighting: ObstacleSighting, to open: [OpenObstacle], newId: () -> UUID) -> (obstacles: [OpenObstacle], index: Int) {
        var obstacles = open
        if let index = match(sighting, among: open) {
            obstacles[index].confidence = ObstacleConfidence.confirmed(obstacles[index], at: sighting.seenAt)
            obstacles[index].sightings += 1
            obstacles[index].lastConfirmedAt = max(obstacles[index].lastConfirmedAt, sighting.seenAt)
            return (obstacles, index)
        }
        obstacles.append(OpenObstacle(id: newId(), type: sighting.type, latitude: sighting.latitude,
                                      longitude: sighting.longitude, sightings: 1,
                                      confidence: ObstacleConfidence.starting, lastConfirmedAt: sighting.seenAt))
        return (obstacles, obstacles.count - 1)
    }

    /// Every sighting in order (``add(_:to:newId:)`` one by one).
    public static func cluster(_ sightings: [ObstacleSighting], open: [OpenObstacle] = [], newId: () -> UUID = UUID.init)
        -> [OpenObstacle] {
        sightings.reduce(open) { add($1, to: $0, newId: newId).obstacles }
    }

    /// Great-circle metres between two points given in degrees (Geo's haversine); invalid points are infinitely far.
    static func metres(_ latitudeA: Double, _ longitudeA: Double, _ latitudeB: Double, _ longitudeB: Double) -> Double {
        guard let a = try? Coordinate(latitude: latitudeA, longitude: longitudeA),
              let b = try? Coordinate(latitude: latitudeB, longitude: longitudeB) else { return .infinity }
        return a.distance(to: b)
    }
}

/// An obstacle's confidence (0…1) and its fading, pure:
/// - a new obstacle (a draft's, a report's or a ride's first sighting) starts at ``starting`` (0.5);
/// - confidence decays with time since the last confirmation, halving every ``halfLifeDays`` (14) days;
/// - a confirmation halves the remaining doubt of the decayed value: `c' = c + (1 − c) / 2`;
/// - an obstacle unconfirmed for the configured fade days (`WAYPOINT_PATH_OBSTACLE_FADE_DAYS`, default 30) fades.
public enum ObstacleConfidence {
    /// A first sighting's confidence.
    public static let starting = 0.5
    /// Days for an unconfirmed obstacle's confidence to halve.
    public static let halfLifeDays = 14.0

    /// `obstacle`'s confidence at `date` (never above its value at its last confirmation).
    public static func current(_ obstacle: OpenObstacle, at date: Date) -> Double {
        let days = max(0, date.timeIntervalSince(obstacle.lastConfirmedAt) / 86_400)
        return obstacle.confidence * pow(0.5, days / halfLifeDays)
    }

    /// The confidence after a confirmation at `date`.
    public static func confirmed(_ obstacle: OpenObstacle, at date: Date) -> Double {
        let decayed = current(obstacle, at: date)
        return min(1, decayed + (1 - decayed) / 2)
    }

    /// Whether `obstacle` has gone unconfirmed for `fadeDays` days at `date`.
    public static func hasFaded(_ obstacle: OpenObstacle, at date: Date, fadeDays: Int) -> Bool {
        date.timeIntervalSince(obstacle.lastConfirmedAt) >= Double(fadeDays) * 86_400
    }

    /// The ids of the obstacles of `open` that fade at `date`, in the order given.
    public static func faded(_ open: [OpenObstacle], at date: Date, fadeDays: Int) -> [UUID] {
        open.filter { hasFaded($0, at: date, fadeDays: fadeDays) }.map(\.id)
    }
}
