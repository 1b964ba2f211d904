import Contracts
import EventSourcing
import Foundation
import Navigation
import NIOCore
import RoadNetwork
import ServiceTesting

extension PhaseContext {
    // MARK: Route search through the gateway

    /// `GET /v1/routes` (best + 2 alternatives, steps) through the gateway at `routeRate` per second, open loop, from 64
    /// anonymous clients (own loopback addresses: the gateway limits anonymous clients per address), after two seconds of
    /// warm-up on other pairs. Latency percentiles over the 200 answers; 422 `NoRoute`/`NoSegment` counted apart.
    func routeSearch() async throws -> NavigationFigures.RouteFigures {
        let rate = settings.routeRate, count = rate * settings.routeSeconds, warmUp = rate * 2
        let pairs = cities.pairs(count: count + warmUp, minimumMetres: 500, seed: settings.seed)
        guard pairs.count == count + warmUp else { throw BenchError("drew only \(pairs.count) route pairs") }
        let target = LoadTarget(name: "gateway", address: try Self.socketAddress(port: platform.gatewayPort), host: "127.0.0.1:\(platform.gatewayPort)",
                                headers: ["User-Agent": "waypoint-bench-navigation"],
                                sources: try LoopbackClients.sources(block: 31, connections: 64))
        let plan = pairs.map { PlannedRequest(target: 0, path: NavigationRequests.routePath($0.from, $0.to), kind: $0.city) }
        _ = try await OpenLoopLoad.run(targets: [target], plan: Array(plan.prefix(warmUp)), rate: Double(rate), timeout: .seconds(10), on: loop)
        logger.info("route search: warm-up of \(warmUp) done; \(count) requests at \(rate)/s through the gateway (64 clients 127.31.x.y)")
        let cpuBefore = ProcessResources.cpuTime()
        let records = try await OpenLoopLoad.run(targets: [target], plan: Array(plan.dropFirst(warmUp)), rate: Double(rate), timeout: .seconds(10),
                                                 on: loop)
        let cpu = ProcessResources.cpuTime() - cpuBefore
        var ok = 0, noRoute = 0, errors = 0
        var codes: [String: Int] = [:]
        for (index, outcome) in records.outcomes.enumerated() {
            if case .answered(let status) = outcome, status == 200 {
                ok += 1
                continue
            }
            let body = records.errorBodies[index] ?? ""
            if case .answered(422) = outcome, body.contains("\"NoRoute\"") || body.contains("\"NoSegment\"") {
                noRoute += 1
            } else {
                errors += 1
                codes[outcome.label + (body.isEmpty ? "" : " \(body.prefix(120))"), default: 0] += 1
            }
        }
        let latencies = records.indexedLatencies { if case .answered(200) = records.outcomes[$0] { true } else { false } }
        logger.info("""
            route search: \(latencies); ok \(ok), NoRoute/NoSegment \(noRoute), errors \(errors) \(codes); achieved \
            \(String(format: "%.1f", records.achievedRate))/s, send lag \(records.sendLag), queued \(records.queued); \
            process CPU \(String(format: "%.0f", cpu.seconds / max(records.wallTime.seconds, 0.001) * 100)) % of a core
            """)
        for (index, city) in cities.cities.enumerated() {
            logger.info("route search:   \(city.name): \(records.indexedLatencies { records.plan[$0].kind == index && records.outcomes[$0] == .answered(status: 200) })")
        }
        return NavigationFigures.RouteFigures(latencies: latencies, requests: records.plan.count, ok: ok, noRoute: noRoute, errors: errors,
                                              rateRPS: rate, achievedRPS: records.achievedRate, durationS: settings.routeSeconds)
    }

    // MARK: Position updates

    /// `NavigationSessions.track` with one fix per call, round robin over sessions riding along their routes (a fix
    /// every 10 m at 5 m/s), in process: the decision and the durable append, no HTTP.
    func positionsInProcess() async throws -> NavigationFigures.Counted {
        let sessions = max(10, min(100, settings.positions / 10))
        let perSession = (settings.positions + sessions - 1) / sessions
        let pairs = cities.pairs(count: sessions, minimumMetres: Double(perSession) * 10 + 300, seed: settings.seed &+ 1)
        let riders = try await startRiders(pairs, clockStart: { Date().addingTimeInterval(-3_600) }, label: "positions in process")
        let rides = riders.map { $0.ride.fixes(spacing: 10) }
        var latencies = Latencies(resolution: 0.001)
        var arrived = Set<Int>()
        let clock = ContinuousClock()
        var round = 0
        while latencies.milliseconds.count < settings.positions, arrived.count < riders.count {
            for (index, rider) in riders.enumerated() where !arrived.contains(index) && latencies.milliseconds.count < settings.positions {
                guard round < rides[index].count else {
                    arrived.insert(index)
                    continue
                }
                let fix = rides[index][round]
                let position = PositionFix(latitude: fix.latitude, longitude: fix.longitude, accuracy: 5, speed: BenchRider.speed, course: fix.course,
                                           time: rider.time(fix.along))
                let started = clock.now
                let answer = try await server.sessions.track(rider.session, rider: rider.user, fixes: [position])
                latencies.record(clock.now - started)
                if answer.arrived { arrived.insert(index) }
            }
            round += 1
        }
        logger.info("positions in process: \(latencies) over \(riders.count) sessions")
        return NavigationFigures.Counted(latencies: latencies, count: latencies.milliseconds.count)
    }

    /// `POST …/positions` with one fix through the gateway (a real token verified at the edge and by the service), one
    /// at a time, round robin over sessions riding along their routes.
    func positionsThroughGateway() async throws -> (NavigationFigures.Counted, Int) {
        let sessions = max(20, min(200, settings.positions / 10))
        let perSession = (settings.positions + sessions - 1) / sessions
        let pairs = cities.pairs(count: sessions, minimumMetres: Double(perSession) * 10 + 300, seed: settings.seed &+ 2)
        let riders = try await startRiders(pairs, clockStart: { Date().addingTimeInterval(-3_600) }, label: "positions through the gateway")
        let rides = riders.map { $0.ride.fixes(spacing: 10) }
        var latencies = Latencies(resolution: 0.001)
        var errors: [String: Int] = [:]
        var round = 0, sent = 0
        while sent < settings.positions, round < rides.map(\.count).max() ?? 0 {
            for (index, rider) in riders.enumerated() where round < rides[index].count && sent < settings.positions {
                let fix = rides[index][round]
                let body = RideAlong.body(fix, speed: BenchRider.speed, time: rider.time(fix.along))
                let answer = try await exchange(.POST, platform.gatewayBase, NavigationRequests.positionsPath(rider.session), json: body, token: rider.token)
                sent += 1
                if answer.status == 200 {
                    latencies.record(answer.elapsed)
                } else {
                    errors["status \(answer.status) \(String(decoding: answer.body.prefix(100), as: UTF8.self))", default: 0] += 1
                }
            }
            round += 1
        }
        logger.info("positions through the gateway: \(latencies) over \(riders.count) sessions; errors \(errors)")
        return (NavigationFigures.Counted(latencies: latencies, count: latencies.milliseconds.count), errors.values.reduce(0, +))
    }

    // MARK: Pushed guidance

    /// Riders, two at a time, each a new user with the gateway's push stream open: a session started through the
    /// gateway, then one fix per update through the gateway along its route. When an answer carries an instruction,
    /// the time from sending that update until the stream delivered the instruction (same session, step and phase) is
    /// one sample; the rider waits for it before its next fix.
    func pushLatency() async throws -> NavigationFigures.Counted {
        let pairs = cities.pairs(count: max(200, settings.pushes), minimumMetres: 800, maximumMetres: 3_000, seed: settings.seed &+ 3)
        let collected = Collected()
        let riders = 2
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<riders {
                group.addTask {
                    var index = worker
                    while await collected.count < settings.pushes, index < pairs.count {
                        try await ridePushed(pairs[index], collected: collected)
                        index += riders
                    }
                }
            }
            try await group.waitForAll()
        }
        let (latencies, missed, routes) = (await collected.latencies, await collected.missed, await collected.routes)
        logger.info("push: update → SSE \(latencies); instructions without a push within 5 s: \(missed); routes ridden \(routes)")
        return NavigationFigures.Counted(latencies: latencies, count: latencies.milliseconds.count)
    }

    private func ridePushed(_ pair: (city: Int, from: RoadPoint, to: RoadPoint), collected: Collected) async throws {
        let user = UUID()
        let token = try await BenchRider.token(user)
        let stream = PushStreamReader(client: client, base: platform.gatewayBase, token: token)
        defer { stream.close() }
        try await stream.waitUntilOpen(timeout: .seconds(10))
        let start = NavigationRequests.sessionBody(from: pair.from, to: pair.to)
        let started = try await exchange(.POST, platform.gatewayBase, "/v1/navigation/sessions", json: start, token: token)
        guard started.status == 201, let object = try JSONSerialization.jsonObject(with: started.body) as? [String: Any],
              let id = (object["id"] as? String).flatMap(UUID.init(uuidString:)) else { return }
        let session = id.uuidString.lowercased()
        // The departure's push: the stream is live for this session.
        _ = try await stream.arrival(timeout: .seconds(5)) { $0.data["sessionId"] == session && $0.data["phase"] == "depart" }
        let state = try await server.sessions.session(id, of: user)
        let rider = BenchRider(user: user, token: token, session: id, ride: RideAlong(points: state.route.points), start: Date().addingTimeInterval(-3_600))
        await collected.route()
        for fix in rider.ride.fixes(spacing: 10) {
            guard await collected.count < settings.pushes else { return }
            let body = RideAlong.body(fix, speed: BenchRider.speed, time: rider.time(fix.along))
            let sent = ContinuousClock.now
            let answer = try await exchange(.POST, platform.gatewayBase, NavigationRequests.positionsPath(id), json: body, token: token)
            guard answer.status == 200, let reply = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else {
                throw BenchError("push rider: positions answered \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            }
            if let instruction = reply["instruction"] as? [String: Any], let step = instruction["stepIndex"] as? Int,
               let phase = instruction["phase"] as? String {
                let pushed = try await stream.arrival(timeout: .seconds(5)) {
                    $0.data["sessionId"] == session && $0.data["stepIndex"] == "\(step)" && $0.data["phase"] == phase
                }
                if let pushed { await collected.record(pushed.at - sent) } else { await collected.miss() }
            }
            if reply["arrived"] as? Bool == true { return }
        }
    }

    /// The push samples of all riders.
    actor Collected {
        var latencies = Latencies(resolution: 0.01)
        var missed = 0
        var routes = 0
        var count: Int { latencies.milliseconds.count }
        func record(_ duration: Duration) { latencies.record(duration) }
        func miss() { missed += 1 }
        func route() { routes += 1 }
    }

    // MARK: Reroutes

    /// Per session: 200 m ridden on the route (one untimed update), then three fixes 60 m to the right of it at
    /// 270, 280 and 290 m, one per `track` call; the third asks for the reroute and is timed (in process: the tracker,
    /// a new route search from the rider's position, the append of the reroute's events).
    func reroutes() async throws -> NavigationFigures.RerouteFigures {
        let pairs = cities.pairs(count: settings.reroutes, minimumMetres: 1_000, seed: settings.seed &+ 4)
        let riders = try await startRiders(pairs, clockStart: { Date().addingTimeInterval(-3_600) }, label: "reroutes")
        var latencies = Latencies(resolution: 0.001)
        var rerouted = 0, attempts = 0
        let clock = ContinuousClock()
        for rider in riders where rider.ride.length > 400 {
            attempts += 1
            func position(_ fix: RideAlong.Fix) -> PositionFix {
                PositionFix(latitude: fix.latitude, longitude: fix.longitude, accuracy: 5, speed: BenchRider.speed, course: fix.course, time: rider.time(fix.along))
            }
            let onRoute = rider.ride.fixes(spacing: 10, to: 200).map(position)
            _ = try await server.sessions.track(rider.session, rider: rider.user, fixes: onRoute)
            let beside = rider.ride.fixes(spacing: 10, from: 270, to: 290, sideways: 60).map(position)
            guard beside.count == 3 else { continue }
            _ = try await server.sessions.track(rider.session, rider: rider.user, fixes: [beside[0]])
            _ = try await server.sessions.track(rider.session, rider: rider.user, fixes: [beside[1]])
            let started = clock.now
            let answer = try await server.sessions.track(rider.session, rider: rider.user, fixes: [beside[2]])
            let elapsed = clock.now - started
            if answer.rerouted == .offRoute {
                rerouted += 1
                latencies.record(elapsed)
            }
        }
        logger.info("reroutes (third fix 60 m off the route, in process): \(latencies); rerouted \(rerouted) of \(attempts)")
        return NavigationFigures.RerouteFigures(timed: NavigationFigures.Counted(latencies: latencies, count: latencies.milliseconds.count),
                                                rerouted: rerouted, attempts: attempts)
    }

    // MARK: The community overlay

    /// `overlayEvents` events of `waypoint.paths` appended at the path-review stand-in's feed — 80 % `PathApproved`
    /// along real node sequences (routes of the service's own planner between random pairs), 15 % `PathObstacleConfirmed`
    /// on two nodes of an approved path, 5 % `PathStatusChanged` — per path in order, 16 paths at a time; timed from
    /// the first append until the instance's `CommunityOverlay.current.version` counts all of them (the consumer reads
    /// the feed, applies each event in its transaction and bumps the counter; the overlay polls it, every 250 ms by
    /// default, and swaps in a rebuilt layer).
    func overlayApply() async throws -> (Double, NavigationFigures.OverlayRebuild) {
        let total = settings.overlayEvents
        let obstacles = total * 15 / 100, statuses = total * 5 / 100, approvals = total - obstacles - statuses
        var random = SeededGenerator(seed: settings.seed &+ 5)
        let pairs = cities.pairs(count: approvals * 2, minimumMetres: 300, maximumMetres: 3_000, seed: settings.seed &+ 6)
        var paths: [(id: UUID, nodes: [Int64], geometry: [RoadPoint])] = []
        for pair in pairs where paths.count < approvals {
            guard let plan = try? server.planner.plan(RouteQuery(points: [pair.from, pair.to])), let route = plan.routes.first,
                  route.legs[0].route.nodeIDs.count >= 3 else { continue }
            paths.append((UUID(uuid: Self.uuid(&random)), route.legs[0].route.nodeIDs, route.geometry))
        }
        guard paths.count == approvals else { throw BenchError("overlay: only \(paths.count) of \(approvals) paths planned") }
        let now = Date()
        let conditions = ["optimal", "medium", "sufficient", "requires-maintenance"]
        var groups: [(stream: String, events: [NewEvent])] = []
        for (index, path) in paths.enumerated() {
            var events = [try Self.new(PathApproved(pathId: path.id, name: "Bench path \(index)", osmNodes: path.nodes,
                                                    geometry: path.geometry.map { [$0.longitude, $0.latitude] }, lengthM: 1_000,
                                                    condition: conditions[index % conditions.count], details: PathApprovedDetails(), approvedAt: now))]
            if index < obstacles {
                let at = path.geometry[path.geometry.count / 2]
                events.append(try Self.new(PathObstacleConfirmed(obstacleId: UUID(uuid: Self.uuid(&random)), pathId: path.id, osmNodes: Array(path.nodes[1...2]),
                                                                 latitude: at.latitude, longitude: at.longitude, type: "pothole", confidence: 0.8,
                                                                 sightings: 3, confirmedAt: now)))
            } else if index < obstacles + statuses {
                events.append(try Self.new(PathStatusChanged(pathId: path.id, condition: "requires-maintenance", source: .reports, changedAt: now)))
            }
            groups.append(("path-draft-\(path.id.uuidString.lowercased())", events))
        }
        let store = platform.feeds.paths.storage.store
        let batches = groups
        let base = server.overlay.current.version
        let swapsBefore = platform.swaps.all.count
        let clock = ContinuousClock(), started = clock.now
        let appended = try await withThrowingTaskGroup(of: Void.self) { group -> Duration in
            for worker in 0..<16 {
                group.addTask {
                    for index in stride(from: worker, to: batches.count, by: 16) {
                        for event in batches[index].events {
                            _ = try await store.append([event], to: batches[index].stream, expectedVersion: .any)
                        }
                    }
                }
            }
            try await group.waitForAll()
            return clock.now - started
        }
        let deadline = started + .seconds(300)
        while server.overlay.current.version < base + Int64(total) {
            guard clock.now < deadline else { throw BenchError("overlay: version \(server.overlay.current.version), wanted \(base + Int64(total))") }
            try await Task.sleep(for: .milliseconds(1))
        }
        let elapsed = clock.now - started
        // The overlay logs a swap just after making it current: wait for that line (its rebuild time).
        while !platform.swaps.all.contains(where: { $0.version >= base + Int64(total) }), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        let swaps = Array(platform.swaps.all.dropFirst(swapsBefore))
        let last = swaps.last(where: { $0.version >= base + Int64(total) }) ?? swaps.last
        let rebuild = NavigationFigures.OverlayRebuild(lastMilliseconds: ((last?.milliseconds ?? 0) * 100).rounded() / 100,
                                                       maxMilliseconds: ((swaps.map(\.milliseconds).max() ?? 0) * 100).rounded() / 100,
                                                       swaps: swaps.count, events: total, paths: last?.paths ?? 0)
        logger.info("""
            overlay: \(total) events (\(approvals) approvals, \(obstacles) obstacles, \(statuses) condition changes) appended in \(appended), \
            the layer counted all of them after \(elapsed); \(swaps.count) swaps, rebuild ms \(swaps.map { String(format: "%.1f", $0.milliseconds) })
            """)
        return ((elapsed.seconds * 1_000 * 10).rounded() / 10, rebuild)
    }

    static func new<Event: IntegrationEvent>(_ event: Event) throws -> NewEvent {
        try NewEvent(eventType: Event.eventType, schemaVersion: Event.schemaVersion, encoding: event)
    }

    /// A random (version 4) UUID from the seeded generator.
    static func uuid(_ random: inout SeededGenerator) -> uuid_t {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
    }
}
