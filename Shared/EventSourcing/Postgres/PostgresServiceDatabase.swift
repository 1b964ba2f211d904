import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle

/// A service's PostgreSQL database: a pooled `PostgresClient` the log, projections and keys share.
///
/// It is a `Service`: put it in the `ServiceGroup` before anything that queries it, or use ``withRunning(_:)``.
public final class PostgresServiceDatabase: Service, Sendable {
    /// The pooled client; run queries through it.
    public let client: PostgresClient
    /// The schema every connection uses (`search_path`), e.g. `public` or a per-test schema.
    public let schema: String
    /// The logger queries run with.
    public let logger: Logger
    /// The event store's own connections for single-statement appends, beside the pool (one per event loop).
    let appendConnections: PostgresAppendConnections

    /// Connects lazily to `url` (`postgres://user:password@host:port/database[?sslmode=require]`).
    ///
    /// - Parameters:
    ///   - schema: when set, every connection's `search_path` is this schema (then `public`, where extensions such as
    ///     PostGIS live), created if missing.
    ///   - maximumConnections: size of the connection pool.
    public init(url: String, schema: String? = nil, maximumConnections: Int = 20, logger: Logger = Logger(label: "waypoint.postgres")) throws {
        let target = try Target(url: url)
        var configuration = try target.clientConfiguration()
        var connectionConfiguration = try target.connectionConfiguration()
        configuration.options.maximumConnections = maximumConnections
        if let schema {
            guard schema.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }), !schema.isEmpty else {
                throw PostgresServiceDatabaseError.invalidURL("schema must be letters, digits and underscores")
            }
            // `public` stays on the path after the service's schema: extensions (PostGIS) live there.
            let searchPath = [("search_path", schema == "public" ? schema : "\(schema), public")]
            configuration.options.additionalStartupParameters = searchPath
            connectionConfiguration.options.additionalStartupParameters = searchPath
        }
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // Named, so that an operator can tell it from the pool's connections in `pg_stat_activity`.
        connectionConfiguration.options.additionalStartupParameters.append(("application_name", "waypoint-event-store-appends"))
        self.appendConnections = PostgresAppendConnections(configuration: connectionConfiguration, logger: logger)
        self.schema = schema ?? "public"
        self.logger = logger
    }

    /// Runs the connection pool until cancelled or shut down gracefully.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.client.run() }
        await appendConnections.close()
    }

    /// Runs the pool for the duration of `body` (for tools and tests outside a `ServiceGroup`).
    public func withRunning<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.client.run()
                await self.appendConnections.close()
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// Creates the configured schema if it does not exist yet.
    public func createSchemaIfNeeded() async throws {
        guard schema != "public" else { return }
        try await client.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: "\"\(schema)\"")", logger: logger)
    }

    /// Whether `table` exists on the connections' search path (PostgreSQL's counterpart of GRDB's `tableExists`).
    public func tableExists(_ table: String) async throws -> Bool {
        for try await (name) in try await client.query("SELECT to_regclass(\(table))::text", logger: logger).decode(String?.self) {
            return name != nil
        }
        return false
    }

    /// What a connection URL names: `postgres://user:password@host:port/database[?sslmode=…]`.
    struct Target {
        enum TLSMode { case disable, prefer, require }

        var host: String, port: Int, username: String, password: String?, database: String?, tls: TLSMode

        init(url: String) throws {
            guard let components = URLComponents(string: url),
                  ["postgres", "postgresql"].contains(components.scheme ?? ""),
                  let host = components.host, !host.isEmpty
            else { throw PostgresServiceDatabaseError.invalidURL("expected postgres://user:password@host:port/database") }
            let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            self.host = host
            port = components.port ?? 5432
            username = components.user?.removingPercentEncoding ?? "postgres"
            password = components.password?.removingPercentEncoding
            self.database = database.isEmpty ? nil : database
            tls = switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
            case "require", "verify-full", "verify-ca": .require
            case "prefer": .prefer
            default: .disable
            }
        }

        /// The pool's configuration.
        func clientConfiguration() throws -> PostgresClient.Configuration {
            let tls: PostgresClient.Configuration.TLS = switch self.tls {
            case .require: .require(.makeClientConfiguration())
            case .prefer: .prefer(.makeClientConfiguration())
            case .disable: .disable
            }
            return PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                database: database, tls: tls)
        }

        /// A single connection's configuration, with the same TLS mode as the pool's.
        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let tls: PostgresConnection.Configuration.TLS = switch self.tls {
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .disable: .disable
            }
            return PostgresConnection.Configuration(host: host, port: port, username: username, password: password,
                                                    database: database, tls: tls)
        }
    }
}

/// Configuration errors of ``PostgresServiceDatabase``.
public enum PostgresServiceDatabaseError: Error, Sendable, Hashable {
    /// The connection URL or schema name is not usable.
    case invalidURL(String)
}

extension PostgresServiceDatabase {
    /// Runs `body` in a transaction; an error thrown by `body` comes out as itself, not wrapped by PostgresNIO.
    public func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }
}
