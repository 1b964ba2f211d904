import Foundation

/// Where the reference data lives (`../shared/data/` next to the repository, see DESIGN.md "Reference data").
///
/// `WAYPOINT_REFERENCE_DATA_DIR` wins; otherwise the first `../shared/data` found walking up from the current
/// directory, then from this source file (tests and benchmarks run from anywhere inside the repository).
public enum ReferenceDataDirectory {
    /// The directory, or `nil` when none is found.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                              sourceFile: String = #filePath) -> URL? {
        if let configured = environment["WAYPOINT_REFERENCE_DATA_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        let starts = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
                      URL(fileURLWithPath: sourceFile).deletingLastPathComponent()]
        for start in starts {
            var directory = start
            for _ in 0..<8 {
                let candidate = directory.appendingPathComponent("../shared/data", isDirectory: true).standardizedFileURL
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// A file of the reference data, e.g. `cities.json.gz`.
    public static func file(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        guard let directory = locate(environment: environment) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey:
                "reference data not found: set WAYPOINT_REFERENCE_DATA_DIR or keep ../shared/data next to the repository"])
        }
        return directory.appendingPathComponent(name)
    }
}
