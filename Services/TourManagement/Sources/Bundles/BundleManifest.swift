import Crypto
import Foundation
import GRDB
import ServiceKit

/// What a signed manifest states about one bundle file: `{tourId, version, sha256, sizeBytes, createdAt, expiresAt}`.
public struct BundleManifest: Codable, Sendable, Hashable {
    public var tourId: UUID
    public var version: Int
    /// SHA-256 of the bundle file, lower-case hex.
    public var sha256: String
    public var sizeBytes: Int64
    /// When the bundle file was built.
    public var createdAt: Date
    /// After this the app must fetch a fresh manifest (the service checks the entitlement again then).
    public var expiresAt: Date

    public init(tourId: UUID, version: Int, sha256: String, sizeBytes: Int64, createdAt: Date, expiresAt: Date) {
        self.tourId = tourId
        self.version = version
        self.sha256 = sha256
        self.sizeBytes = sizeBytes
        self.createdAt = createdAt.truncatedToSeconds
        self.expiresAt = expiresAt.truncatedToSeconds
    }

    /// The bytes that are signed: the manifest as JSON with sorted keys, no spaces, RFC 3339 times in whole seconds,
    /// lower-case UUID.
    public var canonicalBytes: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var copy = self
        copy.sha256 = sha256.lowercased()
        let canonical = Canonical(tourId: tourId.uuidString.lowercased(), version: version, sha256: copy.sha256, sizeBytes: sizeBytes,
                                  createdAt: createdAt, expiresAt: expiresAt)
        return (try? encoder.encode(canonical)) ?? Data()
    }

    private struct Canonical: Encodable {
        var tourId: String
        var version: Int
        var sha256: String
        var sizeBytes: Int64
        var createdAt: Date
        var expiresAt: Date
    }
}

/// A manifest with its Ed25519 signature: the document `GET /v1/tours/{id}/bundle/manifest` answers and
/// `waypoint verify-bundle` checks.
public struct SignedBundleManifest: Codable, Sendable, Hashable {
    public var manifest: BundleManifest
    public var algorithm: String
    /// Which key signed it (see `GET /v1/bundles/public-key`).
    public var keyId: String
    /// Ed25519 signature over ``BundleManifest/canonicalBytes``, base64url without padding.
    public var signature: String

    public init(manifest: BundleManifest, algorithm: String = BundlePublicKey.algorithm, keyId: String, signature: String) {
        self.manifest = manifest
        self.algorithm = algorithm
        self.keyId = keyId
        self.signature = signature
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    public func encoded() throws -> Data { try Self.encoder.encode(self) }

    public static func decode(_ data: Data) throws -> SignedBundleManifest { try decoder.decode(SignedBundleManifest.self, from: data) }
}

/// The public half of the bundle signing key, as `GET /v1/bundles/public-key` answers it.
public struct BundlePublicKey: Codable, Sendable, Hashable {
    public static let algorithm = "Ed25519"

    public var keyId: String
    public var algorithm: String
    /// The 32-byte raw public key, base64url without padding.
    public var publicKey: String

    public init(keyId: String, publicKey: Curve25519.Signing.PublicKey) {
        self.keyId = keyId
        algorithm = Self.algorithm
        self.publicKey = Base64URL.encode(publicKey.rawRepresentation)
    }

    /// The key itself; `nil` when `publicKey` is not 32 bytes of base64url.
    public var key: Curve25519.Signing.PublicKey? {
        Base64URL.decode(publicKey).flatMap { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) }
    }
}

/// Why a bundle or its manifest is not to be trusted, in words an operator or app developer can act on.
public enum BundleVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadableManifest(String)
    case unsupportedAlgorithm(String)
    case unknownKey(manifest: String, trusted: String)
    case badSignature
    case unreadableBundle(String)
    case sizeMismatch(manifest: Int64, file: Int64)
    case hashMismatch(manifest: String, file: String)
    case contentMismatch(String)
    case expired(Date)

    public var description: String {
        switch self {
        case .unreadableManifest(let reason):
            "the manifest is not a signed bundle manifest: \(reason)"
        case .unsupportedAlgorithm(let algorithm):
            "the manifest is signed with \(algorithm), only Ed25519 is accepted"
        case .unknownKey(let manifest, let trusted):
            "the manifest was signed with key \(manifest), but the trusted key is \(trusted) (fetch GET /v1/bundles/public-key again)"
        case .badSignature:
            "the signature does not match the manifest: the manifest was altered or signed by someone else"
        case .unreadableBundle(let reason):
            "the bundle file cannot be read: \(reason)"
        case .sizeMismatch(let manifest, let file):
            "the bundle file has \(file) bytes, the manifest says \(manifest): the download is incomplete or the file was altered"
        case .hashMismatch(let manifest, let file):
            "the bundle file's SHA-256 is \(file), the manifest says \(manifest): the file was altered or belongs to another manifest"
        case .contentMismatch(let reason):
            "the bundle's contents do not match the manifest: \(reason)"
        case .expired(let date):
            "the manifest expired at \(ISO8601DateFormatter().string(from: date)): download a fresh one while online"
        }
    }
}

/// Checks a bundle file against its signed manifest offline: signature (with the trusted key), size, SHA-256, the tour and
/// version recorded inside the bundle, expiry — in that order, and names the first failure.
public enum BundleVerifier {
    public static func verify(bundle: URL, manifest data: Data, trusting key: BundlePublicKey, now: Date = Date()) throws(BundleVerificationError)
        -> BundleManifest {
        let signed: SignedBundleManifest
        do {
            signed = try SignedBundleManifest.decode(data)
        } catch {
            throw .unreadableManifest("\(error)")
        }
        guard signed.algorithm == BundlePublicKey.algorithm else { throw .unsupportedAlgorithm(signed.algorithm) }
        guard signed.keyId == key.keyId else { throw .unknownKey(manifest: signed.keyId, trusted: key.keyId) }
        guard let publicKey = key.key, let signature = Base64URL.decode(signed.signature),
              publicKey.isValidSignature(signature, for: signed.manifest.canonicalBytes)
        else { throw .badSignature }
        let manifest = signed.manifest
        let size: Int64
        let digest: String
        do {
            (size, digest) = try fileDigest(bundle)
        } catch {
            throw .unreadableBundle("\(error)")
        }
        guard size == manifest.sizeBytes else { throw .sizeMismatch(manifest: manifest.sizeBytes, file: size) }
        guard digest == manifest.sha256.lowercased() else { throw .hashMismatch(manifest: manifest.sha256.lowercased(), file: digest) }
        do {
            let inside = try OfflineBundleReader.identity(of: bundle)
            guard inside.tourId == manifest.tourId else {
                throw BundleVerificationError.contentMismatch("the bundle holds tour \(inside.tourId), the manifest names \(manifest.tourId)")
            }
            guard inside.version == manifest.version else {
                throw BundleVerificationError.contentMismatch("the bundle is version \(inside.version), the manifest names \(manifest.version)")
            }
        } catch let error as BundleVerificationError {
            throw error
        } catch {
            throw .unreadableBundle("\(error)")
        }
        guard now < manifest.expiresAt else { throw .expired(manifest.expiresAt) }
        return manifest
    }

    /// Size and SHA-256 (hex) of a file, read in 1 MiB chunks.
    public static func fileDigest(_ url: URL) throws -> (Int64, String) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }
}

/// Reading what a bundle says about itself (its `meta` table).
public enum OfflineBundleReader {
    public struct Identity: Sendable, Hashable {
        public var tourId: UUID
        public var version: Int
        public var revision: Int
    }

    public static func identity(of url: URL) throws -> Identity {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let meta = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM meta").map {
                ($0["key"] as String, $0["value"] as String)
            })
            guard let tour = meta["tourId"].flatMap(UUID.init(uuidString:)), let version = meta["version"].flatMap(Int.init),
                  let revision = meta["revision"].flatMap(Int.init)
            else { throw BundleVerificationError.contentMismatch("the meta table lacks tourId, version or revision") }
            return Identity(tourId: tour, version: version, revision: revision)
        }
    }
}

extension Date {
    /// This date without its fraction of a second (manifests carry whole seconds).
    var truncatedToSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
