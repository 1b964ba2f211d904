import Contracts
import Foundation
import Geo
import Hummingbird
import RecordTripAnalysis
import RoadNetwork

/// A place and time of the ride.
struct TripPointResponse: Codable, Sendable {
    var time: Date
    var lat: Double
    var lng: Double
    var altitude: Double?

    init(_ fix: GPSFix) {
        (time, lat, lng, altitude) = (Date(timeIntervalSince1970: fix.time), fix.latitude, fix.longitude, fix.altitude)
    }
}

/// The statistics of `GET /v1/trips/{id}` (metres, seconds, m/s).
struct StatisticsResponse: Codable, Sendable {
    var distanceM, elapsedS, movingS, averageSpeedMps, maxSpeedMps, elevationGainM, elevationLossM: Double
    var start: TripPointResponse?
    var end: TripPointResponse?
    /// `[west, south, east, north]` (GeoJSON order).
    var bbox: [Double]?

    init(_ s: TripStatistics) {
        (distanceM, elapsedS, movingS, averageSpeedMps, maxSpeedMps) = (s.distanceM, s.elapsedS, s.movingS, s.averageSpeedMps, s.maxSpeedMps)
        (elevationGainM, elevationLossM) = (s.elevationGainM, s.elevationLossM)
        start = s.start.map(TripPointResponse.init)
        end = s.end.map(TripPointResponse.init)
        bbox = s.boundingBox.flatMap { $0.count == 4 ? [$0[1], $0[0], $0[3], $0[2]] : nil }
    }
}

/// The matched route: GeoJSON, one polyline6 per piece, OSM nodes per piece, confidence.
struct RouteResponse: Codable, Sendable {
    var geometry: Geometry?
    var polyline6: [String]
    var osmNodes: [[Int64]]
    var lengthM: Double
    var confidence: Double
    var corrected: Bool
    /// The map data's licence asks for it wherever a route drawn on it is shown.
    var attribution = MapDataAttribution.openStreetMap

    init(_ pieces: [RoutePiece], confidence: Double, corrected: Bool) {
        geometry = TripGeometry.multiLine(pieces.map(\.geometry))
        polyline6 = pieces.map { TripGeometry.polyline6($0.geometry) }
        osmNodes = pieces.map(\.osmNodes)
        lengthM = pieces.reduce(0) { $0 + $1.lengthM }
        self.confidence = confidence
        self.corrected = corrected
    }
}

/// A pending obstacle candidate.
struct CandidateResponse: Codable, Sendable {
    var id: String
    var time: Date
    var lat: Double
    var lng: Double
    var kind: String
    var severity: Double
    var peakMps2: Double
    var speedMps: Double

    init(_ c: TripCandidate) {
        (id, time, lat, lng) = (c.id.lowercased, Date(timeIntervalSince1970: c.candidate.time), c.candidate.latitude, c.candidate.longitude)
        (kind, severity, peakMps2, speedMps) = (c.candidate.kind.rawValue, c.candidate.severity, c.candidate.peakMps2, c.candidate.speedMps)
    }
}

/// A confirmed obstacle of a review.
struct ObstacleResponse: Codable, Sendable {
    var id: String
    var candidateId: String?
    var lat: Double
    var lng: Double
    var kind: String
    var severity: Double
    var osmNodes: [Int64]

    init(_ o: ReviewedObstacle) {
        (id, candidateId, lat, lng) = (o.obstacleId.lowercased, o.candidateId?.lowercased, o.latitude, o.longitude)
        (kind, severity, osmNodes) = (o.kind.rawValue, o.severity, o.osmNodes)
    }
}

/// The outcome of the rider's review.
struct ReviewResponse: Codable, Sendable {
    var reviewedAt: Date
    var obstacles: [ObstacleResponse]
    var rejected: Int
    var routeCorrected: Bool
    var submittedAsPathDraft: Bool
}

/// `GET /v1/trips/{id}` and the answers of the commands on one trip.
struct TripResponse: ResponseEncodable, Sendable {
    var id: String
    var status: String
    var source: String
    var navigationSessionId: String?
    var createdAt: Date?
    var finishedAt: Date?
    /// Chunk sequence numbers received, ascending (a phone resumes an upload from the gaps).
    var chunks: [Int]
    var fixCount: Int
    var accelerationCount: Int
    var statistics: StatisticsResponse?
    var cleaning: CleaningCounts?
    var weather: WeatherObservation?
    var route: RouteResponse?
    /// Candidates waiting for the rider's review (empty once reviewed).
    var candidates: [CandidateResponse]
    var review: ReviewResponse?

    init(_ view: TripView) {
        let s = view.state
        (id, status, source, navigationSessionId) = ((s.tripId ?? UUID()).lowercased, s.status.rawValue, s.source,
                                                     s.navigationSessionId?.lowercased)
        (createdAt, finishedAt, chunks) = (s.createdAt, s.finishedAt, s.chunks.keys.sorted())
        (fixCount, accelerationCount, weather) = (s.fixCount, s.accelerationCount, s.weather)
        statistics = view.detail.map { StatisticsResponse($0.statistics) }
        cleaning = view.detail?.cleaning
        if let detail = view.detail {
            route = RouteResponse(view.outcome?.route ?? detail.route, confidence: detail.confidence, corrected: view.outcome?.route != nil)
        }
        candidates = s.review == nil ? (view.detail?.candidates ?? []).map(CandidateResponse.init) : []
        review = s.review.map {
            ReviewResponse(reviewedAt: $0.reviewedAt, obstacles: (view.outcome?.obstacles ?? []).map(ObstacleResponse.init), rejected: $0.rejected,
                           routeCorrected: $0.routeCorrected, submittedAsPathDraft: $0.submittedAsPathDraft)
        }
    }
}

/// One trip in a list.
struct TripSummaryResponse: Codable, Sendable {
    var id: String
    var status: String
    var source: String
    var createdAt: Date
    var rideStartedAt: Date?
    var finishedAt: Date?
    var figures: TripFigures?
    var candidateCount: Int
    var reviewed: Bool
    var hasWeather: Bool

    init(_ row: TripRow) {
        (id, status, source, createdAt, rideStartedAt, finishedAt) = (row.tripId.lowercased, row.status.rawValue, row.source, row.createdAt,
                                                                      row.rideStartedAt, row.finishedAt)
        (figures, candidateCount, reviewed, hasWeather) = (row.figures, row.candidateCount, row.reviewed, row.hasWeather)
    }
}

/// `GET /v1/trips`.
struct TripListResponse: ResponseEncodable, Sendable {
    var trips: [TripSummaryResponse]
    var nextCursor: String?
    /// Totals of the rider's finished trips in the requested period (`from`/`to`, default all time).
    var totals: TripTotals
}

/// `GET /v1/trips/summary`.
struct TripSummaryListResponse: ResponseEncodable, Sendable {
    struct Bucket: Codable, Sendable {
        var periodStart: Date
        var totals: TripTotals
    }

    var period: String
    var buckets: [Bucket]
}

/// `POST /v1/trips/preview`: the analysis, nothing stored.
struct PreviewResponse: ResponseEncodable, Sendable {
    var statistics: StatisticsResponse
    var cleaning: CleaningCounts
    var route: RouteResponse
    var candidates: [CandidateResponse]

    init(_ detail: TripAnalysisDetail) {
        statistics = StatisticsResponse(detail.statistics)
        cleaning = detail.cleaning
        route = RouteResponse(detail.route, confidence: detail.confidence, corrected: false)
        candidates = detail.candidates.map(CandidateResponse.init)
    }
}

extension UUID {
    /// The lower-case spelling every Waypoint response uses.
    var lowercased: String { uuidString.lowercased() }
}
