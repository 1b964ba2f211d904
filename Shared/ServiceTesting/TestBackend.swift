import Foundation

/// A storage backend a service's test suite runs against: SQLite always, PostgreSQL when `scripts/test.sh` started
/// one (`WAYPOINT_TEST_POSTGRES_URL`); `WAYPOINT_TEST_BACKENDS=sqlite,postgres` names them explicitly.
public enum TestBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }

    /// The backends this run covers.
    public static var enabled: [TestBackend] {
        let environment = ProcessInfo.processInfo.environment
        if let list = environment["WAYPOINT_TEST_BACKENDS"] {
            return list.split(separator: ",").compactMap { TestBackend(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        }
        return environment["WAYPOINT_TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    /// The throwaway server's URL, which the test script exports.
    public static var postgresURL: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["WAYPOINT_TEST_POSTGRES_URL"] else {
                throw TestSetupError("postgres is enabled but WAYPOINT_TEST_POSTGRES_URL is not set; run scripts/test.sh")
            }
            return url
        }
    }

    /// A fresh schema name, so tests sharing one server never see each other's tables.
    public static func freshSchema(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
    }
}

/// A test precondition that does not hold.
public struct TestSetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A fresh directory under the system temporary directory; call ``remove()`` when done.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ prefix: String = "waypoint-test") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Executables of the package built next to the test bundle (declare the executable target as a dependency of the test
/// target so `swift build --build-tests` builds it).
public enum BuiltExecutable {
    public static func url(named name: String) throws -> URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(),
                          URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for directory in candidates.compactMap({ $0 }) {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw TestSetupError("\(name) not built next to the test bundle; run `swift build --build-tests` first")
    }
}
