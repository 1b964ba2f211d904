import ArgumentParser
import Foundation
import Logging
import Messaging
import ServiceKit

/// `tour-management` — the executable: `serve` (default) and `import-destinations`.
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct TourManagementCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "tour-management",
        abstract: "Waypoint's tours service: authoring, media, destinations and discovery.",
        subcommands: [ServeCommand<TourManagementServer>.self, ImportDestinations.self],
        defaultSubcommand: ServeCommand<TourManagementServer>.self)

    public init() {}

    /// Imports (inserts or updates) a gazetteer into the destinations table; running services load it at their next start.
    public struct ImportDestinations: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "import-destinations",
            abstract: "Import the city gazetteer (default: the reference data's cities.json.gz) into the destinations table.")

        @Option(help: "A gzip-compressed JSON array of {_id, name, country, coord: {lon, lat}}.")
        var file: String?

        public init() {}

        public func run() async throws {
            let configuration = try TourManagementConfiguration.fromEnvironment()
            let file = file
            let (imported, skipped) = try await ServiceLauncher.run(service: configuration.service, runtime: configuration.runtime) { storage, _ in
                let loaded = try file.map { try Gazetteer.load(from: URL(fileURLWithPath: $0)) } ?? Gazetteer.loadReferenceData()
                let store = try await TourManagementServer.destinationStore(storage)
                return (try await store.upsert(loaded.cities), loaded.skipped)
            }
            print("imported \(imported) destinations (\(skipped) entries without a name or with impossible coordinates skipped)")
        }
    }
}

/// `tour-management serve` (``ServeCommand``): the HTTP service and its background work until SIGTERM or SIGINT.
extension TourManagementServer: ServableService {
    public typealias Configuration = TourManagementConfiguration
    public typealias Storage = ServiceStorage

    /// ``application(metrics:keySource:logger:now:onServerRunning:)`` with the shared metrics, `auth`'s JWKS and the
    /// system clock.
    public func makeApplication(logger: Logger) throws -> ServiceApplication {
        try application(logger: logger)
    }
}

extension TourManagementConfiguration: StoredServiceConfiguration {}
