import Analytics
import ArgumentParser
import Foundation
import TourManagement

/// `waypoint`: the operator's and developer's command line.
@main
struct Waypoint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waypoint",
        abstract: "Waypoint's command line.",
        subcommands: [Up.self, VerifyBundle.self, AnalyticsCommands.self, RoadsCommand.self])
}

/// `waypoint analytics rebuild`: the analytics service's own rebuild command (same configuration keys).
struct AnalyticsCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analytics", abstract: "Operate the analytics service's tables.", subcommands: [AnalyticsCommandLine.Rebuild.self])
}

/// `waypoint verify-bundle FILE MANIFEST --public-key KEY.json`: checks an offline bundle against its signed manifest,
/// offline, and explains the first failure.
struct VerifyBundle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-bundle",
        abstract: "Check an offline tour bundle against its signed manifest (signature, size, SHA-256, contents, expiry).",
        discussion: """
            FILE is the bundle (GET /v1/tours/{id}/bundle), MANIFEST its signed manifest (GET /v1/tours/{id}/bundle/manifest),
            and --public-key the trusted signing key as served by GET /v1/bundles/public-key. Exit status 0 when the bundle
            is intact and the manifest valid, 1 with the reason otherwise.
            """)

    @Argument(help: "The bundle file.")
    var file: String

    @Argument(help: "The signed manifest (JSON).")
    var manifest: String

    @Option(name: .customLong("public-key"), help: "The trusted public key document (JSON from GET /v1/bundles/public-key).")
    var publicKey: String

    @Option(help: "Check expiry against this time (RFC 3339) instead of now.")
    var at: String?

    func run() throws {
        let key: BundlePublicKey
        do {
            key = try JSONDecoder().decode(BundlePublicKey.self, from: Data(contentsOf: URL(fileURLWithPath: publicKey)))
        } catch {
            throw ValidationError("cannot read the public key \(publicKey): \(error)")
        }
        let manifestData: Data
        do {
            manifestData = try Data(contentsOf: URL(fileURLWithPath: manifest))
        } catch {
            throw ValidationError("cannot read the manifest \(manifest): \(error.localizedDescription)")
        }
        var now = Date()
        if let at {
            guard let date = ISO8601DateFormatter().date(from: at) else { throw ValidationError("--at must be an RFC 3339 time") }
            now = date
        }
        do {
            let verified = try BundleVerifier.verify(bundle: URL(fileURLWithPath: file), manifest: manifestData, trusting: key, now: now)
            print("OK: tour \(verified.tourId.uuidString.lowercased()), bundle version \(verified.version), \(verified.sizeBytes) bytes, "
                + "sha256 \(verified.sha256), valid until \(ISO8601DateFormatter().string(from: verified.expiresAt))")
        } catch {
            FileHandle.standardError.write(Data("FAILED: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
    }
}
