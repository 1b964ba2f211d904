import Foundation

/// The secrets every process of one platform shares, generated on the first `waypoint up` and kept in
/// `<data dir>/launcher-secrets.json` (mode 0600) so that restarts use the same ones: the internal-route token, and the
/// key that wraps the per-person data keys at rest (a different key after a restart would make every stored
/// personal-data key unreadable).
public struct LauncherSecrets: Codable, Sendable, Hashable {
    /// `WAYPOINT_INTERNAL_TOKEN`: 32 random bytes, base64url.
    public var internalToken: String
    /// `WAYPOINT_PERSONAL_DATA_KEY`: base64 of 32 random bytes; `nil` for a data directory whose services already
    /// stored their keys unwrapped before the launcher first ran there.
    public var personalDataKey: String?

    public static let fileName = "launcher-secrets.json"

    public init(internalToken: String, personalDataKey: String?) {
        self.internalToken = internalToken
        self.personalDataKey = personalDataKey
    }

    /// The secrets of `dataDirectory`: read from its file, or generated and written (0600) on first use. Values in the
    /// launcher's own environment (`WAYPOINT_INTERNAL_TOKEN`, `WAYPOINT_PERSONAL_DATA_KEY`) win and are not stored.
    ///
    /// - Parameter storesHeldData: whether the services' stores already held data before this first run; `nil` looks
    ///   for `*.sqlite` files in `dataDirectory` (the embedded default), `--postgres` passes what it found in the databases.
    public static func loadOrCreate(in dataDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment,
                                    storesHeldData: Bool? = nil) throws -> LauncherSecrets {
        let file = dataDirectory.appendingPathComponent(fileName)
        var secrets: LauncherSecrets
        if FileManager.default.fileExists(atPath: file.path) {
            secrets = try JSONDecoder().decode(LauncherSecrets.self, from: Data(contentsOf: file))
        } else {
            // Services that already ran here without a key keep their data keys unwrapped: wrapping from now on
            // would leave the existing ones unreadable.
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory.path)) ?? []
            let ranBefore = storesHeldData ?? existing.contains { $0.hasSuffix(".sqlite") }
            secrets = LauncherSecrets(internalToken: randomBase64(url: true), personalDataKey: ranBefore ? nil : randomBase64(url: false))
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(secrets)
            guard FileManager.default.createFile(atPath: file.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
        }
        if let token = environment["WAYPOINT_INTERNAL_TOKEN"], !token.isEmpty { secrets.internalToken = token }
        if let key = environment["WAYPOINT_PERSONAL_DATA_KEY"], !key.isEmpty { secrets.personalDataKey = key }
        return secrets
    }

    /// 32 bytes from the system's cryptographic generator, base64 (or base64url without padding).
    static func randomBase64(url: Bool) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = Data(bytes).base64EncodedString()
        guard url else { return text }
        return text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
