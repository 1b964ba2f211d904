import EventSourcing
import Foundation
import Messaging
import ServiceKit
import ServiceTesting
import Testing

@Suite("RuntimeSettings: the storage settings every service reads from its environment")
struct RuntimeSettingsTests {
    @Test("the SQLite writer's page cache is 64 MiB unless WAYPOINT_[<SERVICE>_]SQLITE_CACHE_MB says otherwise, within 1…4096")
    func sqliteWriterCache() async throws {
        let directory = TemporaryDirectory("waypoint-cache")
        defer { directory.remove() }
        let standard = try RuntimeSettings.fromEnvironment(serviceName: "analytics", environment: ["WAYPOINT_DATA_DIR": directory.url.path])
        #expect(standard.sqliteCacheMiB == 64)
        try await ServiceStorage.withOpen(standard, logger: LoopbackServer.quietLogger) { storage in
            let kib = try storage.sqlite!.writerCacheKiB()
            #expect(kib == 64 * 1024)
        }
        let configured = try RuntimeSettings.fromEnvironment(
            serviceName: "analytics",
            environment: ["WAYPOINT_DATA_DIR": directory.url.path, "WAYPOINT_SQLITE_CACHE_MB": "8", "WAYPOINT_ANALYTICS_SQLITE_CACHE_MB": "16"])
        #expect(configured.sqliteCacheMiB == 16, "the service-specific key wins")
        try await ServiceStorage.withOpen(configured, logger: LoopbackServer.quietLogger) { storage in
            let kib = try storage.sqlite!.writerCacheKiB()
            #expect(kib == 16 * 1024)
        }
        for bad in ["0", "5000", "lots"] {
            #expect(throws: ConfigurationError.self) {
                try RuntimeSettings.fromEnvironment(serviceName: "auth", environment: ["WAYPOINT_SQLITE_CACHE_MB": bad])
            }
        }
    }
}
