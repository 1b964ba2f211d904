import Auth
import AuthInfrastructure
import Foundation
import Logging
import Messaging
import ServiceKit

/// Runs the benchmark against the real `auth` service in a new temporary data directory, deleted afterwards.
///
/// The service is configured and assembled as `auth serve` does it — `AuthConfiguration.fromEnvironment`,
/// `ServiceStorage.withOpen`, `AuthServer.assemble` — with only the data directory and the bcrypt cost set, so every
/// other setting is the production default (embedded SQLite, 2048-bit RS256 keys, default session rules).
enum AuthServiceBench {
    static func run(workload: AuthWorkload, parentDirectory: URL, logger: Logger) async throws -> AuthFigures {
        let directory = parentDirectory.appendingPathComponent("waypoint-bench-auth-\(UUID().uuidString.prefix(8).lowercased())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try AuthConfiguration.fromEnvironment([
            "WAYPOINT_DATA_DIR": directory.path,
            "WAYPOINT_AUTH_BCRYPT_COST": "\(workload.bcryptCost)",
        ])
        // The service's own log lines (one per registration) would drown the progress; warnings still show.
        let serviceLogger = {
            var logger = Logger(label: "waypoint.auth")
            logger.logLevel = .warning
            return logger
        }()
        return try await ServiceStorage.withOpen(configuration.runtime, logger: serviceLogger) { storage in
            if let database = storage.sqlite {
                // The figures only mean something at a known durability: say which one they were taken at.
                let synchronous = try database.writerSynchronousLevel()
                if synchronous == 2 {
                    logger.info("auth: data directory \(directory.path) (SQLite WAL, writer at synchronous=FULL)")
                } else {
                    logger.warning("auth: writer at synchronous=\(synchronous), not FULL (2): commits are not power-loss safe")
                }
            }
            let server = try await AuthServer.assemble(configuration, storage: storage, logger: serviceLogger)
            let benchmark = AuthBenchmark(server: server, workload: workload, logger: logger)
            do {
                let figures = try await benchmark.run()
                await server.hasher.shutdown()
                return figures
            } catch {
                await server.hasher.shutdown()
                throw error
            }
        }
    }
}
