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
        subcommands: [Serve.self, Rebuild.self],
        defaultSubcommand: Serve.self)

    public init() {}

    /// Runs the HTTP service and the consumers until SIGTERM or SIGINT.
    public struct Serve: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(abstract: "Run the service (the default).")

        public init() {}

        public func run() async throws {
            let configuration = try AnalyticsConfiguration.fromEnvironment()
            try await ServiceLauncher.run(service: configuration.service, runtime: configuration.runtime) { storage, logger in
                let server = try await AnalyticsServer.assemble(configuration, storage: storage, logger: logger)
                try await server.application(logger: logger).run()
            }
        }
    }

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
