import Contracts
import Foundation
import Geo
import RecordTripAnalysis
import RoadNetwork

/// A continuous stretch of the matched (or corrected) route: OSM nodes and geometry.
public struct RoutePiece: Codable, Sendable, Hashable {
    public var osmNodes: [Int64]
    public var geometry: [Coordinate2D]
    /// Metres along `geometry`.
    public var lengthM: Double

    /// A piece of route.
    public init(osmNodes: [Int64], geometry: [Coordinate2D], lengthM: Double) {
        self.osmNodes = osmNodes
        self.geometry = geometry
        self.lengthM = lengthM
    }
}

/// An obstacle candidate with the id the rider's review names it by.
public struct TripCandidate: Codable, Sendable, Hashable {
    public var id: UUID
    public var candidate: ObstacleCandidate
}

/// Everything placed that the analysis of a ride found (sealed in the log, ``TripAnalysed/detail``).
public struct TripAnalysisDetail: Codable, Sendable, Hashable {
    public var statistics: TripStatistics
    public var cleaning: CleaningCounts
    public var keptFixCount: Int
    public var route: [RoutePiece]
    /// 0…1, the matcher's.
    public var confidence: Double
    public var candidates: [TripCandidate]

    /// Metres of matched route.
    public var matchedLengthM: Double { route.reduce(0) { $0 + $1.lengthM } }

    /// The figures published and listed in clear.
    public var figures: TripFigures {
        TripFigures(distanceM: statistics.distanceM, elapsedS: statistics.elapsedS, movingS: statistics.movingS,
                    averageSpeedMps: statistics.averageSpeedMps, maxSpeedMps: statistics.maxSpeedMps,
                    elevationGainM: statistics.elevationGainM, elevationLossM: statistics.elevationLossM)
    }
}

/// The ride analysis chain of issue 19: cleaning → statistics → map matching → obstacle candidates, each step the
/// analysis library's function. Pure: the same samples give the same result (candidate ids aside).
public struct TripAnalyzer: Sendable {
    /// The map matcher over the service's road network; `nil` leaves the route empty.
    public let matcher: MapMatcher?

    /// The chain with `matcher` (`nil`: no route).
    public init(matcher: MapMatcher?) {
        self.matcher = matcher
    }

    /// Analyses a ride's samples (fixes in upload order; the cleaner sorts, drops and counts).
    public func analyse(_ samples: TripSamples) -> TripAnalysisDetail {
        let cleaned = TrackCleaner.clean(samples.fixes)
        let statistics = Self.finite(TripStatisticsCalculator.compute(cleaned))
        let observations = cleaned.fixes.map {
            MatchObservation(time: $0.time, latitude: $0.latitude, longitude: $0.longitude, accuracy: $0.accuracy,
                             speed: $0.speed, course: $0.course)
        }
        let matched = observations.isEmpty ? nil : matcher?.match(observations)
        let route = (matched?.pieces ?? []).map { RoutePiece(osmNodes: $0.osmNodes, geometry: $0.geometry, lengthM: $0.length) }
        let line = route.flatMap(\.geometry)
        let candidates = samples.acceleration.isEmpty ? [] :
            ObstacleDetector.detect(acceleration: samples.acceleration, fixes: cleaned.fixes, route: line.isEmpty ? nil : line)
        return TripAnalysisDetail(statistics: statistics, cleaning: cleaned.dropped, keptFixCount: cleaned.fixes.count, route: route,
                                  confidence: (matched?.confidence).map { $0.isFinite ? $0 : 0 } ?? 0,
                                  candidates: candidates.filter { [$0.latitude, $0.longitude, $0.severity, $0.peakMps2, $0.speedMps, $0.time]
                                      .allSatisfy(\.isFinite) }.map { TripCandidate(id: .v7(), candidate: $0) })
    }

    /// The statistics with every non-finite figure as 0: JSON (events, responses) cannot carry NaN or infinity, and a
    /// figure the calculator could not compute must not fail the rider's finish.
    static func finite(_ s: TripStatistics) -> TripStatistics {
        func f(_ value: Double) -> Double { value.isFinite ? value : 0 }
        var copy = s
        (copy.distanceM, copy.elapsedS, copy.movingS) = (f(s.distanceM), f(s.elapsedS), f(s.movingS))
        (copy.averageSpeedMps, copy.maxSpeedMps) = (f(s.averageSpeedMps), f(s.maxSpeedMps))
        (copy.elevationGainM, copy.elevationLossM) = (f(s.elevationGainM), f(s.elevationLossM))
        copy.boundingBox = s.boundingBox.flatMap { $0.allSatisfy(\.isFinite) ? $0 : nil }
        return copy
    }
}

/// OSM node positions of the loaded road network, to place an obstacle on the street piece (directed node pair) of a
/// route nearest to it.
public struct OSMNodeLocator: Sendable {
    let positions: [Int64: Coordinate2D]

    /// Every shape node of `graph` (vertices included).
    public init(graph: RoadGraph) {
        var positions: [Int64: Coordinate2D] = [:]
        positions.reserveCapacity(graph.shapeNodeIDs.count)
        for index in graph.shapeNodeIDs.indices {
            positions[graph.shapeNodeIDs[index]] = Coordinate2D(latitude: graph.shapeLatitudes[index], longitude: graph.shapeLongitudes[index])
        }
        self.positions = positions
    }

    /// No network: nothing is placed on nodes.
    public init() {
        positions = [:]
    }

    /// The consecutive node pair of `route` nearest to the point (within 50 m), `[]` when none is known or near.
    public func nodePair(near latitude: Double, _ longitude: Double, on route: [RoutePiece], within limit: Double = 50) -> [Int64] {
        guard let point = try? Coordinate(latitude: latitude, longitude: longitude) else { return [] }
        var best: (distance: Double, pair: [Int64])?
        for piece in route where piece.osmNodes.count >= 2 {
            for index in 0..<(piece.osmNodes.count - 1) {
                let from = piece.osmNodes[index], to = piece.osmNodes[index + 1]
                guard let a = coordinate(from), let b = coordinate(to) else { continue }
                let distance = Segment(from: a, to: b).projection(of: point).distance
                if distance <= limit, distance < best?.distance ?? .infinity { best = (distance, [from, to]) }
            }
        }
        return best?.pair ?? []
    }

    private func coordinate(_ node: Int64) -> Coordinate? {
        positions[node].flatMap { try? Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
    }
}
