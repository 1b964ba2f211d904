import Contracts
import Foundation
@testable import Navigation
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// The route search's answer (`RouteSearchResponse`) writes its own JSON (``JSONWritableResponse``): the same members
/// and values as the service's `JSONEncoder` (which fixes no member order), over random route searches on Krems —
/// alternatives, via points, both geometry formats, steps on and off, both languages — with approved paths and
/// obstacles added to the routes (names with quotes, slashes, controls and non-ASCII; path statuses of any name).
/// (Debug builds also check every answer of every other test.)
@Suite("navigation: the route search's JSON equals JSONEncoder's")
struct RouteResponseJSONTests {
    static let names = ["Donaulände", "Weg \"am Hang\"", "B3/E55", "tab\there", "Ring — Süd 🚲", "", "back\\slash"]

    /// A junction of the Krems network, a few metres off it.
    static func point(_ random: inout SeededGenerator) -> RoadPoint {
        let graph = NavigationTestNetwork.roads.graph
        let vertex = Int.random(in: 0..<graph.vertexCount, using: &random)
        return RoadPoint(latitude: graph.vertexLatitudes[vertex] + Double.random(in: -0.00005...0.00005, using: &random),
                         longitude: graph.vertexLongitudes[vertex] + Double.random(in: -0.00005...0.00005, using: &random))
    }

    static func stretch(_ random: inout SeededGenerator) -> PathStretchResponse {
        let from = Double.random(in: 0...5_000, using: &random)
        return PathStretchResponse(RouteAnnotations.PathStretch(id: UUID(), name: names.randomElement(using: &random)!,
                                                                condition: ["optimal", "requires maintenance", "closed/unsafe"].randomElement(using: &random)!,
                                                                from: from, to: from + Double.random(in: 0...900, using: &random)))
    }

    static func obstacle(_ random: inout SeededGenerator) -> ObstacleResponse {
        ObstacleResponse(RouteAnnotations.ObstaclePassed(id: UUID(), pathId: UUID(), type: ["pothole", "bump", "rough-surface"].randomElement(using: &random)!,
                                                         confidence: Double.random(in: 0...1, using: &random), location: point(&random),
                                                         at: Double.random(in: 0...5_000, using: &random), penalty: Double.random(in: 0...300, using: &random)))
    }

    @Test("300 random searches: the writer says what the service encoder says, members in declaration order")
    func answers() async throws {
        try await NavigationApp.with(.sqlite) { _, server, _ in
            var random = SeededGenerator(seed: 2_026)
            var written = 0, withSteps = 0, geojson = 0, alternatives = 0
            for _ in 0..<300 {
                let points = (0..<(Int.random(in: 0...5, using: &random) == 0 ? 3 : 2)).map { _ in Self.point(&random) }
                let query = RouteQuery(points: points, alternatives: Int.random(in: 0...2, using: &random),
                                       geometries: RouteQuery.GeometryFormat.allCases.randomElement(using: &random)!,
                                       steps: Bool.random(using: &random), language: InstructionLanguage.allCases.randomElement(using: &random)!)
                guard let plan = try? server.planner.plan(query) else { continue }
                var response = RouteSearchResponse(plan, query: query)
                for index in response.routes.indices where Bool.random(using: &random) {
                    response.routes[index].paths = (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.stretch(&random) }
                    response.routes[index].obstacles = (0..<Int.random(in: 0...2, using: &random)).map { _ in Self.obstacle(&random) }
                    response.routes[index].score.metresByPathStatus[Self.names.randomElement(using: &random)!] = Double.random(in: 0...900, using: &random)
                }
                let bytes = try #require(response.jsonBytes(style: .service))
                let expected = try ServiceJSON.makeEncoder().encode(response)
                #expect(JSONOutput.equivalent(Data(bytes), expected),
                        "\(String(decoding: bytes, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
                #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(#"{"code":"Ok","routes":[{"distance":"#))
                written += 1
                if query.steps { withSteps += 1 }
                if query.geometries == .geojson { geojson += 1 }
                if response.routes.count > 1 { alternatives += 1 }
            }
            // The draw covers every shape of answer.
            #expect(written >= 150 && withSteps >= 50 && geojson >= 50 && alternatives >= 30, "\(written) \(withSteps) \(geojson) \(alternatives)")
        }
    }

    @Test("a dictionary's members are written by key, whatever the hash order")
    func dictionaryOrder() {
        var output = JSONOutput(style: .service)
        output.object { $0.member("m", ["b": 2.5, "a": 1.0, "ä": 3.0, "B/": 4.0]) }
        #expect(String(decoding: output.bytes, as: UTF8.self) == #"{"m":{"B\/":4,"a":1,"b":2.5,"ä":3}}"#)
    }
}
