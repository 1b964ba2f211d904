import AsyncHTTPClient
import Foundation
import Logging
import Messaging
import NIOCore
import NIOHTTP1
import RecordTrip
import RecordTripAnalysis
import RoadNetwork
import ServiceKit
import ServiceTesting

/// The HTTP half of `waypoint-bench trips`: the real `record-trip` service (embedded default: SQLite in a temporary
/// data directory, fsync on, the Krems network) on a loopback port, driven through HTTP with signed access tokens.
///
/// - **Ingest**: `riders` riders at once each record a 1-hour ride as the phone uploads it — a chunk a minute, 60
///   fixes and 3,000 accelerometer samples (50 Hz) per chunk, 60 chunks; `ingest_fixes_per_s` = fixes acknowledged ÷
///   wall time, with the chunk latency.
/// - **Finish → event**: each of those trips is finished, one at a time; the time from sending `POST …/finish` until a
///   consumer long-polling the service's embedded feed (`GET /v1/internal/events?wait=`, what path-review and
///   analytics read on the embedded transport) receives its `TripFinished`.
struct TripServiceBench {
    var network: LoadedRoadNetwork
    var riders: Int
    var seed: UInt64
    var logger: Logger

    /// Chunks per ride and what each carries.
    static let chunks = 60, fixesPerChunk = 60, accelerationPerChunk = 3_000
    static let internalToken = "waypoint-bench-internal-token"

    struct Figures {
        var ingestFixesPerSecond: Double
        var chunkMilliseconds: Latencies
        var finishToEvent: Latencies
    }

    func run() async throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-bench-trips-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let quiet = Self.quietLogger
        let configuration = try RecordTripConfiguration.fromEnvironment([
            "WAYPOINT_DATA_DIR": directory.path, "WAYPOINT_INTERNAL_TOKEN": Self.internalToken,
            "WAYPOINT_AUTH_URL": "http://127.0.0.1:\(try closedPort())", "WAYPOINT_RECORD_TRIP_EXTRACTS": "unused",
        ])
        let rides = try makeRides()
        return try await ServiceStorage.withOpen(configuration.runtime, logger: quiet) { storage in
            let server = try await RecordTripServer.assemble(configuration, storage: storage, roads: RecordTripRoads(network: network),
                                                             logger: quiet)
            return try await LoopbackServer.run({ reportPort in
                try server.application(metrics: ServiceMetrics(),
                                       keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                       logger: quiet, onServerRunning: { reportPort($0.localAddress!.port!) })
            }, body: { port in
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                do {
                    let figures = try await measure(TripsHTTP(client: client, base: "http://127.0.0.1:\(port)"), rides: rides)
                    try await client.shutdown()
                    return figures
                } catch {
                    try? await client.shutdown()
                    throw error
                }
            })
        }
    }

    private func measure(_ http: TripsHTTP, rides: [RecordedRide]) async throws -> Figures {
        var tokens: [String] = [], trips: [String] = []
        for _ in rides {
            tokens.append(try await TokenForge.token(UUID()))
            trips.append(try await http.createTrip(token: tokens.last!))
        }
        let clock = ContinuousClock()
        let started = clock.now
        let (uploadTrips, uploadTokens) = (trips, tokens)
        let chunkTimes = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for index in rides.indices {
                group.addTask { try await Self.upload(rides[index], trip: uploadTrips[index], token: uploadTokens[index], http: http) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let elapsed = clock.now - started
        var chunkLatencies = Latencies()
        chunkTimes.forEach { chunkLatencies.record($0) }
        let fixes = Double(rides.count * Self.chunks * Self.fixesPerChunk)
        logger.info("ingest: \(rides.count) riders × \(Self.chunks) chunks in \(elapsed): \(Int(fixes / elapsed.seconds)) fixes/s; chunk \(chunkLatencies)")
        let finishes = try await finishToEvent(http, trips: trips, tokens: tokens)
        logger.info("finish → TripFinished on the feed: \(finishes)")
        return Figures(ingestFixesPerSecond: (fixes / elapsed.seconds).rounded(), chunkMilliseconds: chunkLatencies, finishToEvent: finishes)
    }

    /// Uploads a ride's chunks in order, each timed.
    private static func upload(_ ride: RecordedRide, trip: String, token: String, http: TripsHTTP) async throws -> [Duration] {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for (sequence, body) in ride.chunkBodies.enumerated() {
            let elapsed = try await clock.measure { try await http.postChunk(trip: trip, sequence: sequence, body: body, token: token) }
            times.append(elapsed)
        }
        return times
    }

    /// Finishes each trip in turn and times it until the feed watcher has seen its `TripFinished`.
    private func finishToEvent(_ http: TripsHTTP, trips: [String], tokens: [String]) async throws -> Latencies {
        let watcher = EmbeddedFeedWatcher(http: BenchHTTP(client: http.client, base: http.base), token: Self.internalToken)
        let head = try await watcher.head()
        var latencies = Latencies()
        let clock = ContinuousClock()
        for (trip, token) in zip(trips, tokens) {
            let started = clock.now
            async let seen: Void = watcher.waitFor("TripFinished", on: "trip-\(trip.lowercased())", after: head)
            try await http.finish(trip: trip, token: token)
            try await seen
            latencies.record(clock.now - started)
        }
        return latencies
    }

    /// One synthetic 1-hour ride per rider over Krems (`RideSimulator`, σ 5 m, 1 Hz) with 50 Hz accelerometer samples
    /// (gravity on z and Gaussian noise), cut into the chunk bodies the phone would send.
    private func makeRides() throws -> [RecordedRide] {
        let simulator = RoadNetwork.RideSimulator(router: RoadRouter(network: network))
        var settings = RoadNetwork.RideSimulator.Settings(noiseSigma: 5)
        settings.startTime = Date().timeIntervalSince1970.rounded() - 7_200
        return try (0..<riders).map { index in
            guard let ride = simulator.longRide(duration: 3_600, settings: settings, seed: seed &+ UInt64(index) &* 104_729) else {
                throw TripsBenchError("no 1-hour ride could be drawn on the network")
            }
            let fixes = ride.observations.prefix(Self.chunks * Self.fixesPerChunk).map {
                RecordedRide.Fix(time: $0.time, latitude: $0.latitude, longitude: $0.longitude, accuracy: $0.accuracy)
            }
            return try RecordedRide(fixes, fixesPerChunk: Self.fixesPerChunk, accelerationPerChunk: Self.accelerationPerChunk,
                                    seed: seed &+ UInt64(index))
        }
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "waypoint.record-trip")
        logger.logLevel = .critical
        return logger
    }
}
