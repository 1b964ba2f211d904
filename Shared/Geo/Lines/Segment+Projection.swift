import Foundation

extension Segment {
    /// Up to this many metres (segment length, and query point to segment start) the projection is
    /// done on a local flat map; beyond it, on the sphere.
    ///
    /// A straight line on that map strays from the great circle by about L² · tan φ / 8R, which for
    /// L = 1 km is 3 cm at 60° of latitude — below GPS noise — while the flat projection is several
    /// times cheaper than vector algebra, and every GPS fix of a ride is matched against every
    /// nearby street segment, almost all of them far shorter than 1 km.
    static let localPlaneLimit: Double = 1_000

    /// Latitudes, in degrees, beyond which meridians converge too fast for a flat map.
    static let localPlaneLatitudeLimit: Double = 80

    /// The point of this segment nearest to `point`, how far along the segment it lies, and the
    /// distance in metres to it.
    ///
    /// Short segments near the query point (the common case: a GPS fix against a street) are
    /// projected on a local equirectangular map — x = Δlongitude · cos(mid-latitude), y = Δlatitude —
    /// around the segment; everything else is projected exactly onto the great-circle arc. Either
    /// way the reported `distance` is the haversine distance to the foot point. A zero-length
    /// segment projects everything onto its start (fraction 0).
    public func projection(of point: Coordinate) -> SegmentProjection {
        localPlaneProjection(of: point) ?? sphericalProjection(of: point)
    }

    /// Great-circle distance in metres from `point` to the nearest point of this segment.
    public func distance(to point: Coordinate) -> Double {
        projection(of: point).distance
    }

    /// Projection on an equirectangular map centred on the segment, or nil when the map would be
    /// too distorted for this segment and point.
    private func localPlaneProjection(of point: Coordinate) -> SegmentProjection? {
        let referenceLatitude = (start.latitude + end.latitude) / 2
        guard abs(referenceLatitude) < Self.localPlaneLatitudeLimit else { return nil }
        let xScale = cos(referenceLatitude.radians)
        // Map degrees relative to the start; wrapping the longitude delta keeps segments that cross
        // the antimeridian short instead of going the long way round.
        func mapped(_ c: Coordinate) -> (x: Double, y: Double) {
            (normalizedLongitude(c.longitude - start.longitude) * xScale, c.latitude - start.latitude)
        }
        let b = mapped(end)
        let q = mapped(point)
        let metresPerDegree = Earth.meanRadius * .pi / 180
        let farthest = max(b.x * b.x + b.y * b.y, q.x * q.x + q.y * q.y).squareRoot() * metresPerDegree
        guard farthest <= Self.localPlaneLimit else { return nil }

        let lengthSquared = b.x * b.x + b.y * b.y
        let along = lengthSquared > 0 ? (q.x * b.x + q.y * b.y) / lengthSquared : 0
        let fraction = min(1, max(0, along))
        let foot: Coordinate = switch fraction {
        case 0: start
        case 1: end
        default: Coordinate(
            computedLatitude: start.latitude + fraction * b.y,
            longitude: start.longitude + fraction * b.x / xScale
        )
        }
        return SegmentProjection(point: foot, fraction: fraction, distance: point.distance(to: foot))
    }

    /// Exact projection onto the great-circle arc, for long segments, distant points and polar regions.
    private func sphericalProjection(of point: Coordinate) -> SegmentProjection {
        let a = UnitVector(start)
        let b = UnitVector(end)
        let p = UnitVector(point)
        let normal = a.cross(b)
        // Coincident or antipodal ends do not fix a great circle; fall back to the nearer end.
        guard normal.length > 1e-12 else { return nearerEnd(to: point) }
        let n = normal.scaled(by: 1 / normal.length)
        let inPlane = p.minus(n.scaled(by: p.dot(n)))
        // The query is a pole of the arc's great circle: every arc point is equally far away.
        guard inPlane.length > 1e-12 else {
            return SegmentProjection(point: start, fraction: 0, distance: point.distance(to: start))
        }
        let foot = inPlane.scaled(by: 1 / inPlane.length)
        let isWithinArc = a.cross(foot).dot(n) >= 0 && foot.cross(b).dot(n) >= 0
        guard isWithinArc else { return nearerEnd(to: point) }
        let footCoordinate = foot.coordinate
        return SegmentProjection(
            point: footCoordinate,
            fraction: min(1, a.angle(to: foot) / a.angle(to: b)),
            distance: point.distance(to: footCoordinate)
        )
    }

    private func nearerEnd(to point: Coordinate) -> SegmentProjection {
        let toStart = point.distance(to: start)
        let toEnd = point.distance(to: end)
        return toStart <= toEnd
            ? SegmentProjection(point: start, fraction: 0, distance: toStart)
            : SegmentProjection(point: end, fraction: 1, distance: toEnd)
    }
}
