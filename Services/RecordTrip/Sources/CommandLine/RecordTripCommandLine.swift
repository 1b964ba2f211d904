import ArgumentParser
import Foundation
import Logging
import Messaging
import ServiceKit

/// `record-trip` — the executable: `serve` (default).
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct RecordTripCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "record-trip",
        abstract: "Waypoint's ride service: recorded trips, statistics, map matching, obstacle candidates.",
        subcommands: [ServeCommand<RecordTripServer>.self],
        defaultSubcommand: ServeCommand<RecordTripServer>.self)

    /// Creates it.
    public init() {}
}

/// `record-trip serve` (``ServeCommand``): the HTTP service and its background work until SIGTERM or SIGINT.
extension RecordTripServer: ServableService {
    public typealias Configuration = RecordTripConfiguration
    public typealias Storage = ServiceStorage

    /// ``assemble(_:storage:roads:weather:now:logger:)`` with the configured extracts and, when
    /// `WAYPOINT_RECORD_TRIP_WEATHER_URL` is set, the Open-Meteo adapter behind the per-cell-and-hour cache.
    public static func assemble(_ configuration: RecordTripConfiguration, storage: ServiceStorage, logger: Logger) async throws
        -> RecordTripServer {
        let weather = configuration.weatherURL.map { url in
            CachedWeatherProvider(upstream: OpenMeteoWeatherProvider(baseURL: url.absoluteString, timeout: configuration.weatherTimeout))
        }
        return try await assemble(configuration, storage: storage, roads: nil, weather: weather, logger: logger)
    }

    /// ``application(metrics:keySource:logger:onServerRunning:)`` with the shared metrics and `auth`'s JWKS.
    public func makeApplication(logger: Logger) throws -> ServiceApplication {
        try application(logger: logger)
    }
}

extension RecordTripConfiguration: StoredServiceConfiguration {}
