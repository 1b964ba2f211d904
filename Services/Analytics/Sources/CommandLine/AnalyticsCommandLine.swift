import ArgumentParser
import Foundation
import Logging
import Messaging
import ServiceKit

/// `analytics` — the executable: `serve` (default) and `rebuild`.
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct AnalyticsCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "Waypoint's statistics service: projections of every topic, and the analytics API.",
        subcommands: [ServeCommand<AnalyticsServer>.self, Rebuild.self],
        defaultSubcommand: ServeCommand<AnalyticsServer>.self)

    public init() {}

    /// Replays every topic from the beginning into fresh tables and swaps them in (the service may keep running).
    public struct Rebuild: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Rebuild every analytics table from the topics, then swap the new tables in; prints a JSON report.")

        @Option(help: "Give up (leaving the live tables as they are) after this many seconds.")
        var timeout: Double = 600

        public init() {}

        public func run() async throws {
            let configuration = try AnalyticsConfiguration.fromEnvironment()
            let report = try await AnalyticsRebuild.run(configuration: configuration, timeout: .milliseconds(Int64(timeout * 1000)))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        }
    }
}

/// `analytics serve` (``ServeCommand``): the HTTP service and the consumers until SIGTERM or SIGINT.
extension AnalyticsServer: ServableService {
    public typealias Configuration = AnalyticsConfiguration
    public typealias Storage = ServiceStorage

    /// ``application(consumers:metrics:keySource:logger:now:onServerRunning:)`` with the live consumers, the shared
    /// metrics, `auth`'s JWKS and the system clock.
    public func makeApplication(logger: Logger) throws -> ServiceApplication {
        try application(logger: logger)
    }
}

extension AnalyticsConfiguration: StoredServiceConfiguration {}
