import Foundation
import NIOCore
import NIOHTTP1

/// The four kinds of request of the gateway benchmark's bike mix.
enum BikeKind: Int, CaseIterable, Sendable {
    /// `GET /v1/routes?from=…&to=…&alternatives=2&steps=true` (anonymous).
    case route
    /// `POST /v1/navigation/sessions/{id}/positions` with one fix, by the session's rider.
    case position
    /// `POST /v1/trips/{id}/samples`: a minute of a ride (60 fixes, 3,000 accelerometer samples), by the trip's rider.
    case upload
    /// `GET /v1/paths?bbox=…&zoom=…` (anonymous): the approved paths of a city viewport.
    case bbox

    var name: String {
        switch self {
        case .route: "route"
        case .position: "position"
        case .upload: "upload"
        case .bbox: "bbox"
        }
    }
}

/// What the bike mix sends, built from the riders, sessions and trips the setup made (``BikeSetup``): the targets (one
/// anonymous pool, one connection per session, one per trip) and a plan of requests in the mix's proportions.
///
/// Targets, in this order: 0 the anonymous pool (route searches and bbox reads, `browseSources` connections, each its
/// own client address); `1...riders.count` one connection per rider for its session's position updates (the phone's);
/// then one connection per trip for its chunk uploads (the phone's second connection: a minute's chunk does not hold
/// up the next fix).
struct BikeWorkload: Sendable {
    /// A rider with a navigation session on its route.
    struct Rider: Sendable {
        var token: String
        var session: UUID
        /// The session's route as the service answered it.
        var ride: RideAlong
    }

    /// A trip being recorded, by rider `rider`.
    struct Trip: Sendable {
        var rider: Int
        var id: String
    }

    var riders: [Rider]
    var trips: [Trip]
    /// `GET /v1/routes` paths, used in turn.
    var routes: [String]
    /// `GET /v1/paths?bbox=` paths, used in turn.
    var boxes: [String]

    /// Shares of the mix in percent, in the order of ``BikeKind/allCases``: route 20, position 50, upload 2, bbox 28.
    /// 1,000 navigating riders sending a fix every 2 s are half of 1,000 requests/s; each also records its ride and
    /// uploads a minute's chunk about once a minute (2 %: 20/s); the rest are people planning rides (route searches)
    /// and looking at the path map (bbox reads).
    static let shares = [20, 50, 2, 28]
    /// The riders' speed along their routes, m/s (the navigation bench's).
    static let speed = BenchRider.speed
    /// Seconds of ride per uploaded chunk and accelerometer samples in it (50 Hz): the `trips` benchmark's chunk.
    static let chunkSeconds = 60, accelerationPerChunk = 3_000

    /// The kinds of `count` consecutive requests: smooth weighted round robin over ``shares`` (nginx's), so every 100
    /// requests hold exactly the shares, each kind spread evenly through them (a rider's fixes come at a steady pace).
    static func kinds(count: Int) -> [BikeKind] {
        let total = shares.reduce(0, +)
        var current = shares.map { _ in 0 }
        return (0..<count).map { _ in
            for k in current.indices { current[k] += shares[k] }
            let chosen = current.indices.max { current[$0] < current[$1] || (current[$0] == current[$1] && $0 > $1) }!
            current[chosen] -= total
            return BikeKind.allCases[chosen]
        }
    }

    /// The targets of ``plan(count:rate:clock:seed:)``: the anonymous pool from `browseSources`, each rider and each
    /// trip from an address of its own (`riderSources`, `tripSources`: at least one per rider and trip).
    func targets(gateway: SocketAddress, host: String, browseSources: [SocketAddress], riderSources: [SocketAddress],
                 tripSources: [SocketAddress]) -> [LoadTarget] {
        let agent = "waypoint-bench-bike"
        var targets = [LoadTarget(name: "bike browse", address: gateway, host: host, headers: ["User-Agent": agent], sources: browseSources)]
        for (index, rider) in riders.enumerated() {
            targets.append(LoadTarget(name: "rider \(index)", address: gateway, host: host,
                                      headers: ["User-Agent": agent, "Authorization": "Bearer \(rider.token)"], sources: [riderSources[index]]))
        }
        for (index, trip) in trips.enumerated() {
            targets.append(LoadTarget(name: "trip \(index)", address: gateway, host: host,
                                      headers: ["User-Agent": agent, "Authorization": "Bearer \(riders[trip.rider].token)"],
                                      sources: [tripSources[index]]))
        }
        return targets
    }

    /// `count` requests at `rate` per second (request `i` is due `i / rate` seconds after the start), kinds by
    /// ``kinds(count:)``:
    ///
    /// - route search `j`: `routes[j % routes.count]`; bbox read `j`: `boxes[j % boxes.count]` (both to target 0);
    /// - position update `j`: rider `j % riders.count`, one fix where that rider is at the request's due time — every
    ///   rider sets off from its route's start at `clock` and rides at ``speed`` — stamped with that time (never ahead of
    ///   the server's clock: the load starts after `clock`);
    /// - upload `j`: trip `j % trips.count`, chunk number `j / trips.count` of its ride: the rider's route at 1 Hz from
    ///   the start (round again when it ends), timed to end before `clock`, with 50 Hz accelerometer noise drawn from
    ///   `seed`. Each trip's chunks go in order on its own connection.
    func plan(count: Int, rate: Double, clock: Date, seed: UInt64) throws -> [PlannedRequest] {
        let kinds = Self.kinds(count: count)
        let uploads = kinds.count { $0 == .upload }
        // Trip t sends uploads t, t + trips.count, …: only those chunks are made (each ~190 KB).
        let chunks = try trips.enumerated().map { index, trip in
            let count = uploads / trips.count + (index < uploads % trips.count ? 1 : 0)
            return try Self.chunks(of: riders[trip.rider].ride, count: count, endingBefore: clock, seed: seed &+ UInt64(index))
                .map { ByteBuffer(data: $0) }
        }
        var seen = BikeKind.allCases.map { _ in 0 }
        return try kinds.enumerated().map { index, kind in
            let j = seen[kind.rawValue]
            seen[kind.rawValue] += 1
            let due = Double(index) / rate
            switch kind {
            case .route:
                guard !routes.isEmpty else { throw BenchError("the bike mix has no route pairs") }
                return PlannedRequest(target: 0, path: routes[j % routes.count], kind: kind.rawValue)
            case .bbox:
                guard !boxes.isEmpty else { throw BenchError("the bike mix has no boxes") }
                return PlannedRequest(target: 0, path: boxes[j % boxes.count], kind: kind.rawValue)
            case .position:
                guard !riders.isEmpty else { throw BenchError("the bike mix has no riders") }
                let r = j % riders.count
                guard let fix = riders[r].ride.fix(at: Self.speed * due) else { throw BenchError("rider \(r)'s route has no geometry") }
                let body = RideAlong.body(fix, speed: Self.speed, time: clock.addingTimeInterval(due))
                return PlannedRequest(target: 1 + r, method: .POST, path: NavigationRequests.positionsPath(riders[r].session),
                                      body: ByteBuffer(string: body), kind: kind.rawValue)
            case .upload:
                guard !trips.isEmpty else { throw BenchError("the bike mix has no trips") }
                let t = j % trips.count
                return PlannedRequest(target: 1 + riders.count + t, method: .POST, path: "/v1/trips/\(trips[t].id)/samples",
                                      body: chunks[t][j / trips.count], kind: kind.rawValue)
            }
        }
    }

    /// `count` chunk bodies of a ride along `ride` at ``speed``, one fix a second, the last fix a minute before `end`.
    static func chunks(of ride: RideAlong, count: Int, endingBefore end: Date, seed: UInt64) throws -> [Data] {
        guard count > 0 else { return [] }
        let path = ride.fixes(spacing: speed)
        guard !path.isEmpty else { throw BenchError("a trip's route has no geometry") }
        let seconds = count * chunkSeconds
        let start = end.timeIntervalSince1970.rounded(.down) - Double(seconds) - 60
        let fixes = (0..<seconds).map { second in
            let fix = path[second % path.count]
            return RecordedRide.Fix(time: start + Double(second), latitude: fix.latitude, longitude: fix.longitude, accuracy: 5)
        }
        return try RecordedRide(fixes, fixesPerChunk: chunkSeconds, accelerationPerChunk: accelerationPerChunk, seed: seed).chunkBodies
    }
}

/// The `bike` object of the gateway benchmark's JSON: `{"errors", "route_ms", "position_ms", "upload_ms", "bbox_ms"}`,
/// each time `{"p50", "p99"}` in ms to 0.01 over every measured request of its kind (failed ones included, with the
/// time until they failed), measured from the request's intended send time.
struct BikeFigures: Encodable, Sendable {
    /// Failed measured requests of every kind: non-2xx answers, timeouts, connection failures.
    var errors: Int
    var routeMs: Latencies
    var positionMs: Latencies
    var uploadMs: Latencies
    var bboxMs: Latencies

    /// The figures of `records`' requests from index `from` on (the warm-up before it is left out).
    init(_ records: LoadRecords, from first: Int) {
        let measured = first..<records.plan.count
        errors = measured.count { records.outcomes[$0].isError }
        func kind(_ kind: BikeKind) -> Latencies {
            records.indexedLatencies { $0 >= first && records.plan[$0].kind == kind.rawValue }
        }
        routeMs = kind(.route)
        positionMs = kind(.position)
        uploadMs = kind(.upload)
        bboxMs = kind(.bbox)
    }

    subscript(kind: BikeKind) -> Latencies {
        switch kind {
        case .route: routeMs
        case .position: positionMs
        case .upload: uploadMs
        case .bbox: bboxMs
        }
    }

    private enum CodingKeys: String, CodingKey {
        case errors, routeMs = "route_ms", positionMs = "position_ms", uploadMs = "upload_ms", bboxMs = "bbox_ms"
    }
}
