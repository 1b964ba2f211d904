import ArgumentParser
import Foundation

/// `<service> serve`, the default subcommand of every service's executable: reads the configuration from the
/// environment, opens the storage (if the service has any), assembles the service, runs its application until SIGTERM
/// or SIGINT (graceful shutdown, exit code 0), then releases what assembly acquired. A configuration or start-up error ends the process
/// with ArgumentParser's failure exit code and the error on standard error.
///
/// ```swift
/// subcommands: [ServeCommand<AuthServer>.self, CreateAdmin.self], defaultSubcommand: ServeCommand<AuthServer>.self
/// ```
public struct ServeCommand<Served: ServableService>: AsyncParsableCommand {
    /// `serve`, with the service's ``ServableService/serveAbstract``.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "serve", abstract: Served.serveAbstract)
    }

    /// Creates the command (ArgumentParser does, from the command line).
    public init() {}

    /// Configuration → storage → assembly → application → run → shutdown.
    public func run() async throws {
        let configuration = try Served.configuration(from: ProcessInfo.processInfo.environment)
        try await Served.withStorage(configuration) { storage, logger in
            let service = try await Served.assemble(configuration, storage: storage, logger: logger)
            try await service.makeApplication(logger: logger).run()
            await service.shutdown()
        }
    }
}
