import Foundation
import NIOCore
import RoadNetwork
import Testing
@testable import WaypointBench

/// The gateway benchmark's bike mix without a platform: its proportions, the plan it sends (who sends what, with which
/// fix and which chunk), and the JSON it prints.
@Suite("The gateway benchmark's bike mix")
struct GatewayBikeMixTests {
    @Test("the kinds follow the shares exactly in every 100 requests, each kind spread evenly")
    func proportions() {
        #expect(BikeWorkload.shares.reduce(0, +) == 100)
        let kinds = BikeWorkload.kinds(count: 1_000)
        for start in stride(from: 0, to: 1_000, by: 100) {
            let block = kinds[start..<(start + 100)]
            #expect(BikeKind.allCases.map { kind in block.count { $0 == kind } } == BikeWorkload.shares)
        }
        // Positions (half the mix) come at least every third request, routes every sixth, boxes every fifth, uploads
        // every 50th.
        for (kind, gap) in [(BikeKind.position, 3), (.route, 6), (.bbox, 5), (.upload, 50)] {
            let at = kinds.indices.filter { kinds[$0] == kind }
            #expect(zip(at, at.dropFirst()).allSatisfy { $1 - $0 <= gap }, "\(kind.name)")
        }
        #expect(BikeWorkload.kinds(count: 37) == Array(kinds.prefix(37)), "deterministic")
    }

    /// Three riders on routes ~2 km due east, each with a trip.
    static func workload() -> BikeWorkload {
        let riders = (0..<3).map { index in
            let latitude = 48.40 + Double(index) * 0.01
            return BikeWorkload.Rider(token: "token-\(index)", session: UUID(), ride: RideAlong(points: [[latitude, 15.60], [latitude, 15.627]]))
        }
        return BikeWorkload(riders: riders, trips: (0..<3).map { BikeWorkload.Trip(rider: $0, id: "trip-\($0)") },
                            routes: ["/v1/routes?a", "/v1/routes?b"], boxes: ["/v1/paths?bbox=1", "/v1/paths?bbox=2", "/v1/paths?bbox=3"])
    }

    @Test("the plan: browsing to the anonymous pool, each rider's fixes on its connection where it is, each trip's chunks in order on its own")
    func plan() throws {
        let workload = Self.workload()
        let clock = Date(timeIntervalSince1970: 1_800_000_000)
        let rate = 50.0
        let plan = try workload.plan(count: 400, rate: rate, clock: clock, seed: 1)
        #expect(plan.count == 400)
        var fixes: [Int: [(index: Int, fix: [String: Any])]] = [:]
        var sequences: [Int: [Int]] = [:]
        var routes: [String] = [], boxes: [String] = []
        for (index, request) in plan.enumerated() {
            switch BikeKind(rawValue: request.kind)! {
            case .route:
                #expect(request.target == 0 && request.method == .GET && request.body == nil)
                routes.append(request.path)
            case .bbox:
                #expect(request.target == 0 && request.method == .GET && request.body == nil)
                boxes.append(request.path)
            case .position:
                let rider = request.target - 1
                #expect((0..<3).contains(rider) && request.method == .POST)
                #expect(request.path == "/v1/navigation/sessions/\(workload.riders[rider].session.uuidString.lowercased())/positions")
                let body = try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: request.body!).utf8)) as? [String: Any])
                let sent = try #require(body["fixes"] as? [[String: Any]])
                #expect(sent.count == 1)
                fixes[rider, default: []].append((index, sent[0]))
            case .upload:
                let trip = request.target - 4
                #expect((0..<3).contains(trip) && request.method == .POST && request.path == "/v1/trips/trip-\(trip)/samples")
                let body = try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: request.body!).utf8)) as? [String: Any])
                let sequence = try #require(body["sequence"] as? Int)
                sequences[trip, default: []].append(sequence)
                let chunkFixes = try #require(body["fixes"] as? [[String: Any]])
                #expect(chunkFixes.count == BikeWorkload.chunkSeconds)
                #expect((body["acceleration"] as? [Any])?.count == BikeWorkload.accelerationPerChunk)
                let times = chunkFixes.compactMap { $0["time"] as? Double }
                #expect(times.count == chunkFixes.count && zip(times, times.dropFirst()).allSatisfy { $1 == $0 + 1 }, "one fix a second")
                #expect(times.last! < clock.timeIntervalSince1970 - 60, "recorded before the load")
            }
        }
        #expect(routes.count == 80 && boxes.count == 112)
        #expect(Array(routes.prefix(4)) == ["/v1/routes?a", "/v1/routes?b", "/v1/routes?a", "/v1/routes?b"], "used in turn")
        #expect(Array(boxes.prefix(4)) == ["/v1/paths?bbox=1", "/v1/paths?bbox=2", "/v1/paths?bbox=3", "/v1/paths?bbox=1"])
        // 8 uploads over 3 trips: chunks 0, 1, 2 of the first two, 0 and 1 of the third, in order.
        #expect(sequences == [0: [0, 1, 2], 1: [0, 1, 2], 2: [0, 1]])
        // 200 positions, round robin: each rider's fixes stamped with their due time, where it is at 5 m/s.
        #expect(fixes.values.map(\.count).sorted() == [66, 67, 67])
        for (rider, sent) in fixes {
            let latitude = 48.40 + Double(rider) * 0.01
            for (index, fix) in sent {
                let due = Double(index) / rate
                let stamp = RideAlong.timestamp(clock.addingTimeInterval(due))
                #expect(fix["time"] as? String == stamp)
                let longitude = try #require(fix["lng"] as? Double)
                let along = RoadPoint(latitude: latitude, longitude: 15.60).metres(to: RoadPoint(latitude: latitude, longitude: longitude))
                #expect(abs(along - BikeWorkload.speed * due) < 0.5, "rider \(rider) at \(along) m after \(due) s")
            }
        }
    }

    @Test("the targets: one anonymous pool, a connection per rider with its token, a connection per trip with its rider's")
    func targets() throws {
        var workload = Self.workload()
        workload.trips = [BikeWorkload.Trip(rider: 2, id: "a"), BikeWorkload.Trip(rider: 0, id: "b")]
        let gateway = try SocketAddress(ipAddress: "127.0.0.1", port: 8080)
        let targets = workload.targets(gateway: gateway, host: "127.0.0.1:8080",
                                       browseSources: try LoopbackClients.sources(block: 5, connections: 4),
                                       riderSources: try LoopbackClients.sources(block: 6, connections: 3),
                                       tripSources: try LoopbackClients.sources(block: 7, connections: 2))
        #expect(targets.count == 6)
        #expect(targets[0].sources.count == 4 && targets[0].headers["Authorization"].isEmpty)
        #expect(targets[1...].allSatisfy { $0.sources.count == 1 })
        #expect(targets[1...3].map { $0.headers["Authorization"].first } == ["Bearer token-0", "Bearer token-1", "Bearer token-2"])
        #expect(targets[4...5].map { $0.headers["Authorization"].first } == ["Bearer token-2", "Bearer token-0"])
        #expect(Set(targets[1...].map { $0.sources[0].ipAddress! }).count == 5, "every rider and trip its own client address")
    }

    @Test("the JSON: \"bike\" holds errors and p50/p99 per kind over the measured requests; null without a bike mix")
    func json() throws {
        // 100 requests of the mix, the first 20 a warm-up: request i took i ms; the warm-up's and one measured
        // position failed.
        let kinds = BikeWorkload.kinds(count: 100)
        var records = LoadRecords(plan: kinds.map { PlannedRequest(target: 0, path: "/", kind: $0.rawValue) })
        for index in 0..<100 {
            records.latencyNanoseconds[index] = Int64(index) * 1_000_000
            records.outcomes[index] = .answered(status: 200)
        }
        records.outcomes[3] = .timedOut
        let failed = try #require(kinds.indices.first { $0 >= 20 && kinds[$0] == .position })
        records.outcomes[failed] = .answered(status: 503)
        let bike = BikeFigures(records, from: 20)
        #expect(bike.errors == 1)
        #expect(bike.positionMs.milliseconds.count == 40 && bike.uploadMs.milliseconds.count == 2)
        #expect(bike.routeMs.milliseconds.allSatisfy { $0 >= 20 }, "the warm-up is left out")

        func object(_ figures: GatewayFigures) throws -> [String: Any] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try #require(try JSONSerialization.jsonObject(with: encoder.encode(figures)) as? [String: Any])
        }
        let latency = GatewayFigures.LatencyPercentiles(records.latencies())
        var figures = GatewayFigures(rateRps: 1_000, durationS: 60, latencyMs: latency, errors: 0, overheadP50Ms: 0.8, idleConnectionsHeld: 10_000,
                                     gatewayRssMb: 230.5, bike: bike)
        let json = try object(figures)
        #expect(Set(json.keys) == ["rate_rps", "duration_s", "latency_ms", "errors", "overhead_p50_ms", "idle_connections_held", "gateway_rss_mb", "bike",
                                   "proxy", "peer", "ratio"])
        #expect(json["proxy"] is NSNull && json["peer"] is NSNull && json["ratio"] is NSNull, "no peer phase")
        let line = try #require(json["bike"] as? [String: Any])
        #expect(Set(line.keys) == ["errors", "route_ms", "position_ms", "upload_ms", "bbox_ms"])
        #expect(line["errors"] as? Int == 1)
        for key in ["route_ms", "position_ms", "upload_ms", "bbox_ms"] {
            let times = try #require(line[key] as? [String: Any], "\(key)")
            #expect(Set(times.keys) == ["p50", "p99"])
            let p50 = try #require(times["p50"] as? Double), p99 = try #require(times["p99"] as? Double)
            #expect(p50 >= 20 && p50 <= p99 && p99 <= 99, "\(key)")
        }
        figures.bike = nil
        #expect(try object(figures)["bike"] is NSNull)
    }

    @Test("the peer phase's figures: the gateway's and nginx's cost and their ratios, beside the other keys")
    func peerFigures() throws {
        let peers = ProxyComparison(gateway: ProxyCost(addedP50Ms: 0.12, cpuUsPerRequest: 150),
                                    nginx: ProxyCost(addedP50Ms: 0.06, cpuUsPerRequest: 60))
        let figures = GatewayFigures(rateRps: nil, durationS: nil, latencyMs: nil, errors: nil, overheadP50Ms: nil, idleConnectionsHeld: nil,
                                     gatewayRssMb: nil, bike: nil, peers: peers)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try #require(try JSONSerialization.jsonObject(with: encoder.encode(figures)) as? [String: Any])
        #expect(Set(json.keys) == ["rate_rps", "duration_s", "latency_ms", "errors", "overhead_p50_ms", "idle_connections_held", "gateway_rss_mb", "bike",
                                   "proxy", "peer", "ratio"])
        #expect(json["rate_rps"] is NSNull && json["latency_ms"] is NSNull, "--only proxy: the mixes did not run")
        let proxy = try #require(json["proxy"] as? [String: Any])
        #expect(proxy["added_p50_ms"] as? Double == 0.12 && proxy["cpu_us_per_request"] as? Double == 150)
        let nginx = try #require((json["peer"] as? [String: Any])?["nginx"] as? [String: Any])
        #expect(nginx["added_p50_ms"] as? Double == 0.06 && nginx["cpu_us_per_request"] as? Double == 60)
        let ratio = try #require(json["ratio"] as? [String: Any])
        #expect(ratio["added_p50"] as? Double == 2 && ratio["cpu"] as? Double == 2.5)
    }

    @Test("nginx's configuration: loopback only, keep-alive upstream, buffered access log, files in its own directory")
    func nginxConfiguration() {
        let text = NginxPeer.configurationText(directory: "/tmp/x", port: 20_001, upstream: "127.0.0.1:20002")
        for line in ["listen 127.0.0.1:20001;", "server 127.0.0.1:20002;", "keepalive 32;", "proxy_http_version 1.1;",
                     "proxy_set_header Connection \"\";", "access_log /tmp/x/access.log combined buffer=64k flush=1s;", "daemon off;"] {
            #expect(text.contains(line), "\(line)")
        }
        #expect(!text.contains("listen 0.0.0.0") && !text.contains("/var/"))
    }

    @Test("a fix at a distance along the route, clamped to its ends")
    func fixAt() throws {
        let ride = RideAlong(points: [[0, 0], [0, 0.009], [0.0045, 0.009]])
        let at300 = try #require(ride.fix(at: 300))
        #expect(abs(at300.along - 300) < 1e-9 && abs(at300.course - 90) < 0.01)
        #expect(ride.fix(at: 1_200)?.latitude ?? 0 > 0, "on the second leg")
        #expect(ride.fix(at: -5)?.along == 0)
        let end = try #require(ride.fix(at: 10_000))
        #expect(abs(end.latitude - 0.0045) < 1e-9 && abs(end.longitude - 0.009) < 1e-9)
        #expect(RideAlong(points: [[0, 0]]).fix(at: 0) == nil)
    }

    @Test("the setup reads the role from a token's claims")
    func claims() throws {
        let payload = Data(#"{"sub":"u","role":"moderator"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(try BikeSetup.claims(of: "e30.\(payload).sig")["role"] as? String == "moderator")
    }
}
