import Foundation

/// Issue 18's targets for `waypoint-bench roads` (2 cores, quiet machine), printed beside the figures on stderr with
/// "met" or "NOT met". A benchmark never fails on a target: it reports.
enum RoadTargets {
    /// Per real city: import and cache load (ms).
    static let importMilliseconds = 1_000.0
    static let cacheLoadMilliseconds = 50.0
    /// Per real city: best route + 2 alternatives, p99 (ms).
    static let alternativesP99Milliseconds = 2.0
    /// Per real city: share of pairs with at least one alternative (at least).
    static let alternativesRate = 0.6
    /// Per real city: snapping p99 (µs) and street prefix search p99 (ms).
    static let snapP99Microseconds = 20.0
    static let streetPrefixP99Milliseconds = 1.0
    /// The 1M-node grid: best route p99 (ms) and memory (MiB).
    static let grid1MRouteP99Milliseconds = 50.0
    static let grid1MMemoryMebibytes = 250.0

    /// The verdicts for one city.
    static func verdicts(city name: String, _ figures: CityFigures) -> [String] {
        [
            line(name, "import_ms", figures.importMilliseconds, atMost: importMilliseconds),
            line(name, "cache_load_ms", figures.cacheLoadMilliseconds, atMost: cacheLoadMilliseconds),
            line(name, "route_alternatives_ms p99", figures.routeAlternatives.percentile(0.99), atMost: alternativesP99Milliseconds),
            line(name, "alternatives_rate", figures.alternativesRate, atLeast: alternativesRate),
            line(name, "snap_us p99", figures.snap.latencies.percentile(0.99) * 1_000, atMost: snapP99Microseconds),
            line(name, "street_prefix_ms p99", figures.streetPrefix.percentile(0.99), atMost: streetPrefixP99Milliseconds),
        ]
    }

    /// The verdicts for a grid: the 1M-node grid has targets; the smaller ones show how cost grows.
    static func verdicts(grid name: String, _ figures: GridFigures) -> [String] {
        guard name == "grid_1m" else {
            return ["\(name): route_ms p99 \(format(figures.route.percentile(0.99))), memory_mb \(format(figures.memoryMebibytes)) (no target)"]
        }
        return [
            line(name, "route_ms p99", figures.route.percentile(0.99), atMost: grid1MRouteP99Milliseconds),
            line(name, "memory_mb", figures.memoryMebibytes, atMost: grid1MMemoryMebibytes),
        ]
    }

    private static func line(_ name: String, _ figure: String, _ value: Double, atMost limit: Double) -> String {
        "\(name): \(figure) \(format(value)) — target ≤ \(format(limit)): \(value <= limit ? "met" : "NOT met")"
    }

    private static func line(_ name: String, _ figure: String, _ value: Double, atLeast limit: Double) -> String {
        "\(name): \(figure) \(format(value)) — target ≥ \(format(limit)): \(value >= limit ? "met" : "NOT met")"
    }

    private static func format(_ value: Double) -> String {
        String(format: value < 10 ? "%.3f" : "%.1f", value)
    }
}
