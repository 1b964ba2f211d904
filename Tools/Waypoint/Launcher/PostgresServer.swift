import Foundation

/// `waypoint up --postgres URL`: the PostgreSQL server the services store in, one database per service named
/// `<prefix><service>` (`waypoint_auth`, `waypoint_tour_management`, …: the service's key segment in lower case).
///
/// The URL names the server and the role (`postgres://user:password@host:port[/database][?sslmode=…]`); its database
/// (default `postgres`) is only where the launcher connects to create the services' databases. Each service gets the
/// same URL with its own database in `WAYPOINT_<SERVICE>_POSTGRES_URL`. The password never leaves this value except in
/// those environment variables: ``redacted`` is what consoles and the state file show.
public struct PostgresServer: Sendable, Hashable {
    /// The parsed URL (scheme `postgres` or `postgresql`, with a host).
    public let components: URLComponents
    /// Prefix of every service's database name.
    public let databasePrefix: String

    /// The prefix when `--postgres-prefix` is absent.
    public static let defaultDatabasePrefix = "waypoint_"
    /// PostgreSQL's longest identifier (`NAMEDATALEN` − 1 bytes).
    static let maximumIdentifierLength = 63

    /// Parses `url`; the error text never contains the URL (it may hold a password). A URL without a password takes
    /// `PGPASSWORD` from `environment` (as `psql` does), which keeps the password out of the process list.
    public init(url: String, databasePrefix: String = PostgresServer.defaultDatabasePrefix, environment: [String: String] = [:]) throws {
        guard var components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""),
              let host = components.host, !host.isEmpty
        else { throw LauncherError("--postgres: expected postgres://user:password@host[:port][/database][?sslmode=disable|prefer|require]") }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.contains("/") else { throw LauncherError("--postgres: the URL's path is one database name") }
        if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value,
           !["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(mode) {
            throw LauncherError("--postgres: sslmode \(mode) is not one of disable, allow, prefer, require, verify-ca, verify-full")
        }
        let longest = ServiceCatalog.all.map(\.databaseSuffix.count).max() ?? 0
        guard Self.isIdentifier(databasePrefix), databasePrefix.count + longest <= Self.maximumIdentifierLength else {
            throw LauncherError("--postgres-prefix: lower-case letters, digits and _, starting with a letter or _, "
                                + "at most \(Self.maximumIdentifierLength - longest) characters")
        }
        if components.password == nil, let password = environment["PGPASSWORD"], !password.isEmpty {
            if components.user == nil { components.user = "postgres" }
            components.password = password
        }
        self.components = components
        self.databasePrefix = databasePrefix
    }

    /// The role the launcher and the services log in as (`postgres` when the URL names none, as libpq's default would
    /// be the operating-system user).
    public var user: String { components.user?.removingPercentEncoding ?? "postgres" }
    public var password: String? { components.password?.removingPercentEncoding }
    public var host: String { components.host ?? "127.0.0.1" }
    public var port: Int { components.port ?? 5432 }
    public var sslMode: String { components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable" }

    /// Where the launcher connects to create databases: the URL's database, else `postgres`.
    public var maintenanceDatabase: String {
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        return database.isEmpty ? "postgres" : (database.removingPercentEncoding ?? database)
    }

    /// The database of `service`: `<prefix><key segment in lower case>`.
    public func databaseName(for service: ServiceDefinition) -> String {
        databasePrefix + service.databaseSuffix
    }

    /// The URL a service connects with: this one, with `database` as its path (password and query kept).
    public func url(database: String) -> String {
        var components = components
        components.path = "/" + database
        return components.string ?? ""
    }

    /// The URL without its password (`postgres://waypoint:***@127.0.0.1:5432`), for consoles and the state file.
    public var redacted: String {
        var components = components
        if components.password != nil { components.password = "***" }
        components.path = ""
        components.query = nil
        return components.string ?? "postgres://\(host):\(port)"
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }
}

extension ServiceDefinition {
    /// The service's database name without the prefix: its key segment in lower case (`tour_management`).
    public var databaseSuffix: String { keySegment.lowercased() }
}
