import Foundation
import RoadNetwork
import ServiceTesting

/// Origin–destination pairs for `waypoint-bench navigation` and the gateway benchmark's bike mix, city by city on one
/// network of one or several extracts: each city is the vertices nearest to its centre (``NavigationBenchCity``); its
/// *main component* is the largest strongly connected component of the bike graph among them (every vertex of it
/// reaches every other, so a route always exists on the profile's weights, and the community layer never forbids what
/// the profile allows). A pair is two random points inside the city's bounding box, each snapped to the nearest vertex
/// of that component, at least `minimumMetres` and at most `maximumMetres` apart.
struct CityPairs: Sendable {
    /// One city's part of the network.
    struct City: Sendable {
        var name: String
        /// Latitudes and longitudes of the city's main-component vertices.
        var latitudes: [Double]
        var longitudes: [Double]
        var south: Double, north: Double, west: Double, east: Double
        /// Vertices of the city in all (any component).
        var vertices: Int
    }

    let cities: [City]

    /// The cities of `graph`: every vertex goes to the nearest of `centres` (by equirectangular distance, fine for
    /// cities hundreds of kilometres apart); per city the largest strong component among its vertices.
    init(graph: RoadGraph, centres: [NavigationBenchCity]) {
        let (components, _) = graph.strongComponents()
        var members = centres.map { _ in [Int]() }
        for vertex in 0..<graph.vertexCount {
            let nearest = Self.nearestIndex(latitude: graph.vertexLatitudes[vertex], longitude: graph.vertexLongitudes[vertex],
                                            latitudes: centres.map(\.latitude), longitudes: centres.map(\.longitude))
            members[nearest].append(vertex)
        }
        cities = zip(centres, members).map { centre, vertices in
            var sizes: [Int32: Int] = [:]
            for vertex in vertices { sizes[components[vertex], default: 0] += 1 }
            let main = sizes.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
            let inMain = vertices.filter { components[$0] == main }
            let latitudes = inMain.map { graph.vertexLatitudes[$0] }, longitudes = inMain.map { graph.vertexLongitudes[$0] }
            return City(name: centre.name, latitudes: latitudes, longitudes: longitudes, south: latitudes.min() ?? 0, north: latitudes.max() ?? 0,
                        west: longitudes.min() ?? 0, east: longitudes.max() ?? 0, vertices: vertices.count)
        }
    }

    init(cities: [City]) {
        self.cities = cities
    }

    /// `count` pairs, each in a city drawn uniformly (cities without a main component are skipped), deterministic for
    /// `seed`. Each pair names its city's index.
    func pairs(count: Int, minimumMetres: Double, maximumMetres: Double = .infinity, seed: UInt64) -> [(city: Int, from: RoadPoint, to: RoadPoint)] {
        var random = SeededGenerator(seed: seed)
        let usable = cities.indices.filter { cities[$0].latitudes.count >= 2 }
        guard !usable.isEmpty else { return [] }
        var pairs: [(city: Int, from: RoadPoint, to: RoadPoint)] = []
        var draws = 0
        while pairs.count < count, draws < count * 1_000 {
            draws += 1
            let c = usable[Int.random(in: 0..<usable.count, using: &random)]
            let a = snappedRandomPoint(c, &random), b = snappedRandomPoint(c, &random)
            let metres = a.metres(to: b)
            guard metres >= minimumMetres, metres <= maximumMetres else { continue }
            pairs.append((c, a, b))
        }
        return pairs
    }

    /// A uniform point of city `c`'s bounding box, moved to the nearest vertex of its main component.
    func snappedRandomPoint(_ c: Int, _ random: inout SeededGenerator) -> RoadPoint {
        let city = cities[c]
        let latitude = Double.random(in: city.south...city.north, using: &random)
        let longitude = Double.random(in: city.west...city.east, using: &random)
        let nearest = Self.nearestIndex(latitude: latitude, longitude: longitude, latitudes: city.latitudes, longitudes: city.longitudes)
        return RoadPoint(latitude: city.latitudes[nearest], longitude: city.longitudes[nearest])
    }

    /// The index of the point of `latitudes`/`longitudes` nearest to the given one (equirectangular; a linear scan —
    /// the cities have tens of thousands of vertices and the bench draws a few thousand points).
    static func nearestIndex(latitude: Double, longitude: Double, latitudes: [Double], longitudes: [Double]) -> Int {
        let scale = cos(latitude * .pi / 180)
        var best = 0, bestDistance = Double.infinity
        for index in latitudes.indices {
            let dy = latitudes[index] - latitude, dx = (longitudes[index] - longitude) * scale
            let distance = dy * dy + dx * dx
            if distance < bestDistance { (best, bestDistance) = (index, distance) }
        }
        return best
    }
}

/// A city of the bench's network and its centre.
struct NavigationBenchCity: Sendable {
    var name: String
    /// The extract's file name in the reference data directory.
    var file: String
    var latitude: Double
    var longitude: Double

    /// The three reference extracts.
    static let all = [
        NavigationBenchCity(name: "krems", file: "krems.osm.gz", latitude: 48.41, longitude: 15.61),
        NavigationBenchCity(name: "monaco", file: "monaco.osm.gz", latitude: 43.735, longitude: 7.42),
        NavigationBenchCity(name: "helsinki", file: "helsinki.osm.pbf", latitude: 60.17, longitude: 24.94),
    ]
}
