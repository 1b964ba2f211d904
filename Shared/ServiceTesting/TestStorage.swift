import Foundation
import Logging
import Messaging

extension TestBackend {
    /// The runtime settings a test opens `service`'s storage with on this backend: SQLite in `<service>.sqlite` under
    /// `directory` (where the service itself would put it), PostgreSQL in `schema` on the test server — by default a
    /// fresh one named after the service, so tests sharing the server never see each other's tables. Pass `schema` to
    /// reopen the same database later in a test.
    public func runtime(_ service: String, in directory: TemporaryDirectory, schema: String? = nil,
                        kafkaBrokers: String? = nil, kafkaProperties: [String: String] = [:]) throws -> RuntimeSettings {
        let backend: RuntimeSettings.Backend = switch self {
        case .sqlite: .sqlite(path: directory.url.appendingPathComponent("\(service).sqlite").path)
        case .postgres: .postgres(url: try TestBackend.postgresURL, schema: schema ?? TestBackend.freshSchema(Self.schemaPrefix(service)))
        }
        return RuntimeSettings(serviceName: service, dataDirectory: directory.url, backend: backend,
                               kafkaBrokers: kafkaBrokers, kafkaProperties: kafkaProperties)
    }

    /// Runs `body` with `service`'s storage open on this backend in a fresh temporary directory (a fresh schema on
    /// PostgreSQL), then closes it and removes the directory.
    public func withServiceStorage<T: Sendable>(_ service: String, logger: Logger,
                                                _ body: @Sendable (ServiceStorage) async throws -> T) async throws -> T {
        let directory = TemporaryDirectory("waypoint-\(service)")
        defer { directory.remove() }
        return try await ServiceStorage.withOpen(try runtime(service, in: directory), logger: logger, body)
    }

    /// `tour-management` → `tour_management`: a service name as a schema-name prefix.
    static func schemaPrefix(_ service: String) -> String {
        String(service.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
