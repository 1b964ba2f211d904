import Contracts
import Foundation
import Geo
import Logging
import PathReview
import RoadNetwork

/// One of the network's three cities: its junctions (graph vertices) and its share of the approved paths and boxes.
struct BenchCity: Sendable {
    var name: String
    var share: Double
    var vertices: [Int]
}

/// An approved path to seed: its draft id, author, the moderator who approves it, its content as the planner resolved
/// it, and when each step happened.
struct SeededPath: Sendable {
    var id: UUID
    var author: UUID
    var moderator: UUID
    var city: Int
    var content: PathDraftContent
    var createdAt: Date
}

/// One cyclist's obstacle report on a seeded path, placed on it as the service places one (projected onto the route).
struct SeededReport: Sendable {
    var reporter: UUID
    var obstacle: DraftObstacle
    var at: Date
}

/// A manual draft of 20 street pieces: the JSON body `POST /v1/paths/drafts` takes, and the same pieces for the planner.
struct ManualDraft: Sendable {
    var city: String
    var body: Data
    var pieces: [DraftPieceRequest]
}

/// Everything one run asks, drawn once from the seed and used on every backend: the approved paths and their reports,
/// the bbox requests, the street-name prefixes, the 20-piece drafts and the drafts that get approved.
struct PathsCorpus: Sendable {
    var cities: [BenchCity]
    var paths: [SeededPath]
    /// Reports per path, in the order they are made (index as `paths`).
    var reports: [[SeededReport]]
    var boxes: [BoxQuery]
    var prefixes: [String]
    var manualDrafts: [ManualDraft]
    /// Bodies of simple drafts (one drawn line) submitted and approved for approve → event.
    var approvalDrafts: [Data]

    /// The cities: name, a point inside it, share of the paths and boxes (issue 20: "over the three cities").
    static let cityCentres: [(name: String, latitude: Double, longitude: Double, share: Double)] = [
        ("helsinki", 60.17, 24.94, 0.4), ("krems", 48.41, 15.60, 0.4), ("monaco", 43.74, 7.42, 0.2),
    ]
    /// Metres (route length along the network) of a seeded path.
    static let pathLength = 200.0...3_000.0
    /// Pieces of a manual draft.
    static let manualPieces = 20
    /// Distinct manual drafts cycled through, at most (the same body twice makes a second draft: drafts are not
    /// deduplicated).
    static let manualDraftCount = 20
    /// Of reports, the share that lands on an obstacle already reported on that path (same type, within 8 m).
    static let repeatShare = 0.5

    static func make(_ settings: PathsBenchSettings, roads: PathReviewRoads, logger: Logger) throws -> PathsCorpus {
        var random = SeededGenerator(seed: settings.seed)
        let cities = Self.cities(roads.network.graph)
        for city in cities { logger.info("\(city.name): \(city.vertices.count) junctions") }
        let planner = PathDraftPlanner(roads: roads)
        let clock = ContinuousClock(), started = clock.now
        let authors = (0..<max(1, settings.paths / 5)).map { _ in UUID.v4(using: &random) }
        let moderators = (0..<10).map { _ in UUID.v4(using: &random) }
        let reporters = (0..<max(1, settings.reports / 10)).map { _ in UUID.v4(using: &random) }
        let now = Date()
        var paths: [SeededPath] = []
        var failures = 0
        while paths.count < settings.paths {
            let city = Self.pickCity(cities, &random)
            guard let route = Self.route(in: cities[city], planner: planner, graph: roads.network.graph, random: &random) else {
                failures += 1
                guard failures < settings.paths * 20 + 1_000 else { throw PathsBenchError("could not draw routes in \(cities[city].name)") }
                continue
            }
            let index = paths.count
            let obstacles = random.chance(0.1) ? [Self.obstacle(on: route, near: nil, random: &random)] : []
            let content = PathDraftContent(
                name: "Bench path \(index + 1) (\(cities[city].name))", condition: random.pick([.optimal, .optimal, .medium, .medium, .sufficient]),
                details: PathDetails(segregatedFromCars: random.chance(0.5), pedestriansAllowed: random.chance(0.5),
                                     surface: random.pick(["asphalt", "paving_stones", "gravel", "compacted"]), lit: random.chance(0.6)),
                route: route, obstacles: obstacles)
            // Approved over the last 25 days (the obstacle fading takes 30 days without a confirmation).
            let created = now.addingTimeInterval(-25 * 86_400 + Double(index) / Double(settings.paths) * 20 * 86_400)
            paths.append(SeededPath(id: UUID.v4(using: &random), author: random.pick(authors), moderator: random.pick(moderators), city: city,
                                    content: content, createdAt: created))
        }
        logger.info("\(paths.count) routes drawn in \(clock.now - started) (\(failures) draws refused: no route or outside 200 m–3 km)")
        var reports = [[SeededReport]](repeating: [], count: paths.count)
        for _ in 0..<settings.reports {
            let index = Int.random(in: 0..<paths.count, using: &random)
            let path = paths[index]
            // After the approval (an hour after creation), before now.
            let earliest = max(path.createdAt.addingTimeInterval(3_600), reports[index].last?.at ?? .distantPast)
            let at = earliest.addingTimeInterval(Double.random(in: 60...86_400, using: &random))
            let previous = random.chance(Self.repeatShare) ? reports[index].randomElement(using: &random)?.obstacle : nil
            reports[index].append(SeededReport(reporter: random.pick(reporters), obstacle: Self.obstacle(on: path.content.route, near: previous, random: &random),
                                               at: min(at, now.addingTimeInterval(-60))))
        }
        let boxes = (0..<(settings.boxes + PathsBenchSettings.warmUp(settings.boxes))).map { _ in
            Self.box(cities, graph: roads.network.graph, random: &random)
        }
        let prefixes = Self.prefixes(roads.streets, count: settings.searches + PathsBenchSettings.warmUp(settings.searches), random: &random)
        let manual = try Self.manualDrafts(cities.filter { $0.name != "monaco" }, count: min(manualDraftCount, settings.drafts), roads: roads,
                                           planner: planner, random: &random)
        logger.info("\(manual.count) manual drafts of \(Self.manualPieces) pieces (\(manual.map(\.city).joined(separator: ", ")))")
        let approvalDrafts = try paths.shuffled(using: &random).prefix(settings.approvals).map { path in
            let coordinates = path.content.route.coordinates
            let line: [[String: Double]] = [["lat": coordinates[0][0], "lng": coordinates[0][1]],
                                            ["lat": coordinates[coordinates.count - 1][0], "lng": coordinates[coordinates.count - 1][1]]]
            let body: [String: Any] = ["name": "Bench approval", "condition": "medium", "pieces": [["line": line]]]
            return try JSONSerialization.data(withJSONObject: body)
        }
        return PathsCorpus(cities: cities, paths: paths, reports: reports, boxes: boxes, prefixes: prefixes, manualDrafts: manual,
                           approvalDrafts: approvalDrafts)
    }

    /// The graph's junctions by nearest city centre (the three extracts lie hundreds of kilometres apart).
    static func cities(_ graph: RoadGraph) -> [BenchCity] {
        var cities = cityCentres.map { BenchCity(name: $0.name, share: $0.share, vertices: []) }
        for vertex in 0..<graph.vertexCount {
            let (latitude, longitude) = (graph.vertexLatitudes[vertex], graph.vertexLongitudes[vertex])
            let nearest = cityCentres.indices.min {
                hypot(cityCentres[$0].latitude - latitude, cityCentres[$0].longitude - longitude)
                    < hypot(cityCentres[$1].latitude - latitude, cityCentres[$1].longitude - longitude)
            }!
            cities[nearest].vertices.append(vertex)
        }
        return cities
    }

    static func pickCity(_ cities: [BenchCity], _ random: inout SeededGenerator) -> Int {
        var cumulative: [Double] = []
        for city in cities { cumulative.append((cumulative.last ?? 0) + city.share) }
        return random.weightedIndex(cumulative)
    }

    static func point(_ graph: RoadGraph, _ vertex: Int) -> RoadPoint {
        RoadPoint(latitude: graph.vertexLatitudes[vertex], longitude: graph.vertexLongitudes[vertex])
    }

    /// A route of the service's own planner (a drawn line of two junctions, routed with the bike profile) between two
    /// junctions of `city`, 200 m–3 km long; `nil` when this draw gave none.
    static func route(in city: BenchCity, planner: PathDraftPlanner, graph: RoadGraph, random: inout SeededGenerator) -> DraftRoute? {
        let a = point(graph, random.pick(city.vertices))
        for _ in 0..<50 {
            let b = point(graph, random.pick(city.vertices))
            guard (150.0...2_500.0).contains(a.metres(to: b)) else { continue }
            guard let (route, _) = try? planner.plan(pieces: [.line([a, b])], obstacles: []), pathLength.contains(route.lengthMetres) else { return nil }
            return route
        }
        return nil
    }

    /// An obstacle placed on `route` as the planner places one: a point within 10 m of the route (8 m of `near`, with
    /// its type, when given) projected onto it.
    static func obstacle(on route: DraftRoute, near previous: DraftObstacle?, random: inout SeededGenerator) -> DraftObstacle {
        let line = Polyline(route.coordinates.compactMap { try? Coordinate(latitude: $0[0], longitude: $0[1]) })
        let type = previous?.type ?? random.pick(PathObstacleType.allCases)
        let anchor = previous.flatMap { try? Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
            ?? point(on: line, at: Double.random(in: 0...line.length, using: &random))
        let raw = anchor.destination(bearing: Double.random(in: 0..<360, using: &random),
                                     distance: Double.random(in: 0...(previous == nil ? 10 : 8), using: &random))
        let projection = line.projection(of: raw)!
        return DraftObstacle(type: type, latitude: projection.point.latitude, longitude: projection.point.longitude,
                             offsetMetres: projection.distanceAlong, note: random.chance(0.3) ? "seen on the bench's ride" : nil)
    }

    /// The point `offset` metres along `line` (linear within a segment: segments are metres long).
    static func point(on line: Polyline, at offset: Double) -> Coordinate {
        var along = 0.0
        for (a, b) in zip(line.coordinates, line.coordinates.dropFirst()) {
            let length = a.distance(to: b)
            if along + length >= offset, length > 0 {
                let f = (offset - along) / length
                return (try? Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * f, longitude: a.longitude + (b.longitude - a.longitude) * f)) ?? a
            }
            along += length
        }
        return line.coordinates.last!
    }

    /// A city viewport (``BoxQuery/viewport(city:around:random:)``) centred on a random junction of a city drawn by share.
    static func box(_ cities: [BenchCity], graph: RoadGraph, random: inout SeededGenerator) -> BoxQuery {
        let city = pickCity(cities, &random)
        return BoxQuery.viewport(city: city, around: point(graph, random.pick(cities[city].vertices)), random: &random)
    }

    /// What people type into a street search: the start (3–8 letters) of a real street's first word, or its first word
    /// and the start of the next, from streets of every city.
    static func prefixes(_ catalog: StreetCatalog, count: Int, random: inout SeededGenerator) -> [String] {
        let names = catalog.index.streets.map(\.name)
        var prefixes: [String] = []
        for _ in 0..<count {
            let words = random.pick(names).split(separator: " ").map(String.init)
            let whole = words.count > 1 && random.chance(0.3)
            let word = whole ? words[1] : words[0]
            let cut = String(word.prefix(Int.random(in: 3...max(3, min(8, word.count)), using: &random)))
            prefixes.append(whole ? words[0] + " " + cut : cut)
        }
        return prefixes
    }

    /// 20-piece manual drafts: a bike route through four junctions of Krems or Helsinki (each 800 m or more from the one
    /// before), cut into its streets in travel order; each run of edges of one compatible street is a piece from its first to its last point (part of
    /// the street), the first 20 kept; unnamed stretches between them are the gaps the planner joins. A draft the
    /// planner refuses is drawn again.
    static func manualDrafts(_ cities: [BenchCity], count: Int, roads: PathReviewRoads, planner: PathDraftPlanner,
                             random: inout SeededGenerator) throws -> [ManualDraft] {
        let graph = roads.network.graph
        var drafts: [ManualDraft] = []
        var draws = 0, most = 0, routed = 0
        while drafts.count < count {
            draws += 1
            guard draws < 20_000 else { throw PathsBenchError("no 20-piece manual draft could be drawn (\(routed) routes, at most \(most) pieces)") }
            let city = cities[draws % cities.count]
            // A ride through four junctions of the city, each at least 800 m from the one before.
            let stops = (0..<4).map { _ in point(graph, random.pick(city.vertices)) }
            guard zip(stops, stops.dropFirst()).allSatisfy({ $0.metres(to: $1) >= 800 }),
                  let route = try? roads.router.route(RouteRequest(origin: stops[0], destination: stops[3], via: Array(stops[1...2]),
                                                                   snapRadius: PathDraftPlanner.snapRadius)).routes.first
            else { continue }
            var runs: [(street: Int64, from: RoadPoint, to: RoadPoint)] = []
            var current: (street: Int64, from: RoadPoint, to: RoadPoint)?
            for segment in route.segments {
                let street = roads.streets.index.street(ofEdge: segment.edge)
                let usable = street.flatMap { roads.streets.street(id: $0.id) }?.compatibility.compatible ?? false
                guard let street, usable, let first = segment.coordinates.first, let last = segment.coordinates.last else {
                    if let run = current { runs.append(run) }
                    current = nil
                    continue
                }
                if current?.street == street.id {
                    current!.to = last
                } else {
                    if let run = current { runs.append(run) }
                    current = (street.id, first, last)
                }
            }
            if let run = current { runs.append(run) }
            routed += 1
            most = max(most, runs.filter { $0.from.metres(to: $0.to) >= 20 }.count)
            let pieces = runs.filter { $0.from.metres(to: $0.to) >= 20 }.prefix(manualPieces)
            guard pieces.count == manualPieces else { continue }
            let requests = pieces.map { DraftPieceRequest.street(id: $0.street, from: $0.from, to: $0.to) }
            guard (try? planner.plan(pieces: requests, obstacles: [])) != nil else { continue }
            let pieceBodies: [[String: Any]] = pieces.map {
                ["streetId": $0.street, "from": ["lat": $0.from.latitude, "lng": $0.from.longitude],
                 "to": ["lat": $0.to.latitude, "lng": $0.to.longitude]]
            }
            let details: [String: Any] = ["segregatedFromCars": true, "surface": "asphalt"]
            let object: [String: Any] = ["name": "Bench manual draft (\(city.name))", "condition": "medium", "details": details, "pieces": pieceBodies]
            let body = try JSONSerialization.data(withJSONObject: object)
            drafts.append(ManualDraft(city: city.name, body: body, pieces: requests))
        }
        return drafts
    }
}
