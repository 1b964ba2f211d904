import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// What `waypoint up --postgres URL` prepares before any service starts: each service's database, created if missing,
/// with PostGIS where the service needs it. Every failure is a ``LauncherError`` that says what to do, from the server's
/// own message and SQLSTATE; none contains the URL's password.
public struct PostgresProvisioner: Sendable {
    public let server: PostgresServer

    /// One service's database, ready for the service.
    public struct Prepared: Sendable, Hashable {
        public var service: String
        public var database: String
        /// Created by this run (it did not exist).
        public var created: Bool
        /// PostGIS is installed in it (only asked for where the service needs it).
        public var postgis: Bool
        /// It already held an event log (`es_events`): a service ran on it before.
        public var heldEventLog: Bool
    }

    public init(server: PostgresServer) {
        self.server = server
    }

    /// Creates the databases of `services` that do not exist yet, then installs PostGIS in those whose service keeps
    /// a geographic store.
    public func prepare(_ services: [(service: ServiceDefinition, database: String)]) async throws -> [Prepared] {
        let existing = try await withConnection(database: server.maintenanceDatabase) { connection in
            var existing: Set<String> = []
            for (_, database) in services {
                let rows = try await connection.query("SELECT datname FROM pg_database WHERE datname = \(database)", logger: Self.logger)
                for try await name in rows.decode(String.self) { existing.insert(name) }
            }
            let missing = services.map(\.database).filter { !existing.contains($0) }
            for database in missing {
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(database)\""), logger: Self.logger)
                } catch let error as PSQLError where error.sqlState == "42P04" {
                    continue // duplicate_database: created meanwhile by someone else; it exists, which is what counts
                } catch let error as PSQLError where error.sqlState == "42501" {
                    let spatial = services.filter { $0.service.storage == .spatialDatabase }.map(\.database)
                    throw LauncherError("role \(server.user) may not create databases on \(server.redacted): grant it CREATEDB "
                                        + "(ALTER ROLE \(server.user) CREATEDB), or have an administrator create "
                                        + "\(missing.joined(separator: ", ")) owned by \(server.user)"
                                        + (spatial.isEmpty ? "" : " (with CREATE EXTENSION postgis in \(spatial.joined(separator: ", ")))"))
                } catch {
                    throw LauncherError("cannot create database \(database) on \(server.redacted): \(Self.explain(error))")
                }
            }
            return existing
        }
        var prepared: [Prepared] = []
        for (service, database) in services {
            prepared.append(try await withConnection(database: database) { connection in
                var postgis = try await Self.hasPostGIS(connection)
                if service.storage == .spatialDatabase && !postgis {
                    do {
                        try await connection.query("CREATE EXTENSION IF NOT EXISTS postgis", logger: Self.logger)
                        postgis = true
                    } catch let error as PSQLError where error.sqlState == "42501" {
                        throw LauncherError("\(service.name) needs PostGIS in \(database), and role \(server.user) may not install it: "
                                            + "a superuser must run CREATE EXTENSION postgis in \(database)")
                    } catch {
                        throw LauncherError("\(service.name) needs PostGIS in \(database): \(Self.explain(error)) "
                                            + "(is PostGIS installed on the server? Debian: postgresql-15-postgis-3)")
                    }
                }
                var held = false
                for try await name in try await connection.query("SELECT to_regclass('es_events')::text", logger: Self.logger)
                    .decode(String?.self) { held = name != nil }
                return Prepared(service: service.name, database: database, created: !existing.contains(database), postgis: postgis,
                                heldEventLog: held)
            })
        }
        return prepared
    }

    /// The tables of `database`'s `public` schema (what the services created there), sorted.
    func tables(in database: String) async throws -> [String] {
        try await withConnection(database: database) { connection in
            var names: [String] = []
            let rows = try await connection.query(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename", logger: Self.logger)
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
    }

    /// Drops `databases` (with `FORCE`: connections still open are ended), for tests that clean up after themselves.
    func drop(_ databases: [String]) async throws {
        try await execute(databases.map { "DROP DATABASE IF EXISTS \"\($0)\" WITH (FORCE)" })
    }

    /// Runs `statements` one by one in `database` (default: the maintenance database), for tests.
    func execute(_ statements: [String], in database: String? = nil) async throws {
        try await withConnection(database: database ?? server.maintenanceDatabase) { connection in
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.logger) }
        }
    }

    /// Runs `body` on one connection to `database`, closed afterwards.
    func withConnection<T: Sendable>(database: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try configuration(database: database), id: 1, logger: Self.logger)
        } catch let error as LauncherError {
            throw error
        } catch {
            throw LauncherError("cannot connect to PostgreSQL at \(server.redacted) (database \(database)): \(Self.explain(error))")
        }
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            if error is LauncherError { throw error }
            throw LauncherError("PostgreSQL at \(server.redacted) (database \(database)): \(Self.explain(error))")
        }
    }

    private func configuration(database: String) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        do {
            // As the services' pools do (PostgresServiceDatabase): require for require/verify-*, prefer for prefer.
            switch server.sslMode {
            case "require", "verify-ca", "verify-full": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case "prefer": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: tls = .disable
            }
        } catch {
            throw LauncherError("--postgres: cannot set up TLS: \(error)")
        }
        var configuration = PostgresConnection.Configuration(host: server.host, port: server.port, username: server.user,
                                                             password: server.password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    private static func hasPostGIS(_ connection: PostgresConnection) async throws -> Bool {
        for try await _ in try await connection.query("SELECT extname FROM pg_extension WHERE extname = 'postgis'", logger: logger)
            .decode(String.self) { return true }
        return false
    }

    /// The server's message and SQLSTATE, or the connection's failure (PSQLError's own description hides both).
    static func explain(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] {
            return message + (error.sqlState.map { " (SQLSTATE \($0))" } ?? "")
        }
        if let underlying = error.underlying { return String(describing: underlying) }
        return "\(error.code)"
    }

    /// The launcher's PostgreSQL connections log nothing: their failures come out as ``LauncherError``s.
    static let logger = Logger(label: "waypoint.launcher.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}

extension PSQLError {
    /// The server's SQLSTATE, when the server answered with an error.
    var sqlState: String? { serverInfo?[.sqlState] }
}
