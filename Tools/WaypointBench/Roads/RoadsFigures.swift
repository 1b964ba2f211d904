/// `waypoint-bench roads`' JSON line: `{"krems", "monaco", "helsinki", "grid_10k", "grid_100k", "grid_1m"}`, each
/// a city's or a grid's figures, `null` when the run left it out (`--cities-only`, `--grids-only`).
struct RoadsFigures: Encodable {
    var krems: CityFigures?
    var monaco: CityFigures?
    var helsinki: CityFigures?
    var grid10k: GridFigures?
    var grid100k: GridFigures?
    var grid1m: GridFigures?

    enum CodingKeys: String, CodingKey {
        case krems, monaco, helsinki, grid10k = "grid_10k", grid100k = "grid_100k", grid1m = "grid_1m"
    }

    /// Every key, with `null` for what was not measured, so the line always has the same shape.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(krems, forKey: .krems)
        try container.encode(monaco, forKey: .monaco)
        try container.encode(helsinki, forKey: .helsinki)
        try container.encode(grid10k, forKey: .grid10k)
        try container.encode(grid100k, forKey: .grid100k)
        try container.encode(grid1m, forKey: .grid1m)
    }
}

/// One real city (`docs/benchmarks.md`, `## roads`).
struct CityFigures: Encodable {
    /// Reading the extract and building the graph, no cache: the median of the runs, in milliseconds.
    var importMilliseconds: Double
    /// Loading the graph from the compiled cache (hashing the extract, reading, checking, decoding): the median.
    var cacheLoadMilliseconds: Double
    /// Building the router (snap index, landmarks, segment locator) from the loaded graph.
    var routerMilliseconds: Double
    /// Graph vertices and edges.
    var nodes: Int
    var edges: Int
    /// Resident memory the loaded network, router and street index add, in MiB.
    var memoryMebibytes: Double
    /// The best route per pair.
    var route: Latencies
    /// The best route plus up to 2 alternatives per pair.
    var routeAlternatives: Latencies
    /// Share of the routed pairs that got at least one alternative.
    var alternativesRate: Double
    /// Pairs drawn, and those of them without a route (not in the timings).
    var pairs: Int
    var noRoute: Int
    /// Snapping one point, in microseconds.
    var snap: MicrosecondLatencies
    /// Street search by a prefix of 1–4 letters.
    var streetPrefix: Latencies

    enum CodingKeys: String, CodingKey {
        case importMilliseconds = "import_ms", cacheLoadMilliseconds = "cache_load_ms", routerMilliseconds = "router_ms", nodes, edges
        case memoryMebibytes = "memory_mb", route = "route_ms", routeAlternatives = "route_alternatives_ms"
        case alternativesRate = "alternatives_rate", pairs, noRoute = "no_route", snap = "snap_us", streetPrefix = "street_prefix_ms"
    }
}

/// One synthetic grid city.
struct GridFigures: Encodable {
    /// Graph vertices and edges.
    var nodes: Int
    var edges: Int
    /// Reading the generated extract and building the graph, then the router: seconds, and the two parts.
    var buildSeconds: Double
    var importSeconds: Double
    var routerSeconds: Double
    /// Resident memory the graph and router add, in MiB.
    var memoryMebibytes: Double
    /// The best route per pair (pairs anywhere in the grid).
    var route: Latencies
    /// Pairs drawn, and those of them without a route (not in the timings).
    var pairs: Int
    var noRoute: Int

    enum CodingKeys: String, CodingKey {
        case nodes, edges, buildSeconds = "build_s", importSeconds = "import_s", routerSeconds = "router_s"
        case memoryMebibytes = "memory_mb", route = "route_ms", pairs, noRoute = "no_route"
    }
}

/// ``Latencies`` printed in microseconds: `{"p50", "p99"}`, two decimals.
struct MicrosecondLatencies: Encodable {
    var latencies: Latencies

    enum CodingKeys: String, CodingKey {
        case p50, p99
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode((latencies.percentile(0.50) * 100_000).rounded() / 100, forKey: .p50)
        try container.encode((latencies.percentile(0.99) * 100_000).rounded() / 100, forKey: .p99)
    }
}

extension Double {
    /// Rounded to `places` decimals, for figures printed in the JSON line.
    func rounded(places: Int) -> Double {
        let scale = (0..<places).reduce(1.0) { value, _ in value * 10 }
        return (self * scale).rounded() / scale
    }
}
