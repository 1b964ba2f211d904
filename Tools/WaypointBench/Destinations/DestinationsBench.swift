import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import ServiceKit
import ServiceTesting
import TourManagement

/// `waypoint-bench destinations`: prefix search over the whole gazetteer, in process and through HTTP.
struct DestinationsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "destinations",
        abstract: "Measures destination prefix search over all 209,579 cities, in process and over loopback HTTP.",
        discussion: """
            Prefixes: every 1-, 2- and 3-character key prefix that occurs in the gazetteer, plus --longer random longer \
            ones (4 to 12 characters of real keys). HTTP: GET /v1/destinations?prefix=… served by tour-management's \
            destination routes in a ServiceKit application on 127.0.0.1, one request at a time.
            """
    )

    @Option(help: "Random longer prefixes (4 to 12 characters of real city keys).")
    var longer = 10_000

    @Option(help: "HTTP requests (drawn from the same prefixes).")
    var httpRequests = 5_000

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.destinations")
        let rssBefore = Self.residentMegabytes()
        let start = ContinuousClock.now
        let (cities, skipped) = try Gazetteer.loadReferenceData()
        let loaded = ContinuousClock.now
        let index = DestinationIndex(cities: cities)
        let built = ContinuousClock.now
        logger.info("gazetteer: \(cities.count) cities (\(skipped) skipped) read in \((loaded - start).seconds) s; index built in \((built - loaded).seconds) s")

        var prefixes = Set<String>()
        let keys = index.keys()
        for key in keys {
            let characters = Array(key)
            for length in 1...3 where characters.count >= length { prefixes.insert(String(characters.prefix(length))) }
        }
        var generator = SystemRandomNumberGenerator()
        var long: [String] = []
        let longKeys = keys.filter { $0.count >= 4 }
        while long.count < longer, !longKeys.isEmpty {
            let characters = Array(longKeys.randomElement(using: &generator)!)
            long.append(String(characters.prefix(Int.random(in: 4...min(12, characters.count), using: &generator))))
        }
        let all = prefixes.sorted() + long
        logger.info("prefixes: \(prefixes.count) of 1–3 characters + \(long.count) longer")

        var inProcess = Latencies(resolution: 0.001, includesMaximum: true)
        var results = 0
        let clock = ContinuousClock()
        for prefix in all {
            let t0 = clock.now
            results &+= index.search(prefix: prefix).count
            inProcess.record(clock.now - t0)
        }
        logger.info("in process: \(inProcess) (\(results) results)")
        let worst = zip(all, inProcess.milliseconds).max { $0.1 < $1.1 }
        if let worst { logger.info("slowest prefix: \"\(worst.0)\" \(String(format: "%.3f", worst.1)) ms") }

        let http = try await Self.http(index: index, prefixes: Array(all.shuffled(using: &generator).prefix(httpRequests)), logger: logger)
        logger.info("http: \(http)")
        let indexMegabytes = Double(index.indexBytes + Self.cityRecordBytes(cities)) / 1_048_576
        logger.info("index: \(String(format: "%.1f", indexMegabytes)) MB (structures \(index.indexBytes / 1_048_576) MB + city records); process RSS \(rssBefore) → \(Self.residentMegabytes()) MB")
        try BenchOutput.printJSON(DestinationFigures(
            cities: cities.count, prefix: inProcess, httpPrefix: http, indexMegabytes: (indexMegabytes * 10).rounded() / 10))
    }

    /// One request at a time against the real routes on loopback.
    static func http(index: DestinationIndex, prefixes: [String], logger: Logger) async throws -> Latencies {
        try await LoopbackServer.run({ reportPort in
            try ServiceApplication(
                configuration: ServiceConfiguration(serviceName: "tour-management", port: 0, logLevel: .error),
                metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: LoopbackServer.quietLogger,
                onServerRunning: { reportPort($0.localAddress?.port ?? 0) }
            ) { routes in
                DestinationRoutes(index: index).addRoutes(to: routes.group("/v1/destinations"))
            }
        }) { port in
            var latencies = Latencies(resolution: 0.001)
            let clock = ContinuousClock()
            for (number, prefix) in prefixes.enumerated() {
                let encoded = prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? prefix
                let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/destinations?prefix=\(encoded)")
                let t0 = clock.now
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 20)
                if number >= 100 { latencies.record(clock.now - t0) }  // the first 100 warm the connection up
                guard response.status == .ok else { throw ValidationError("HTTP \(response.status) for prefix \(prefix)") }
            }
            return latencies
        }
    }

    /// Bytes of the city records: the array of structs plus out-of-line name storage (names over 15 UTF-8 bytes).
    static func cityRecordBytes(_ cities: [City]) -> Int {
        cities.count * MemoryLayout<City>.stride + cities.reduce(0) { $0 + ($1.name.utf8.count > 15 ? $1.name.utf8.count + 32 : 0) }
    }

    static func residentMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
}

/// `{"cities", "prefix_ms": {"p50", "p99", "max"}, "http_prefix_ms": {"p50", "p99"}, "index_mb"}`.
struct DestinationFigures: Encodable {
    var cities: Int
    var prefix: Latencies
    var httpPrefix: Latencies
    var indexMegabytes: Double

    enum CodingKeys: String, CodingKey {
        case cities, prefix = "prefix_ms", httpPrefix = "http_prefix_ms", indexMegabytes = "index_mb"
    }
}
