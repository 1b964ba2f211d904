import Foundation

/// A personal field (email, name, address…) encrypted with its subject's key, as carried inside event payloads.
///
/// Sealed and opened by `EventSourcing.PersonalDataCipher`; it lives here because published events carry it.
///
/// Once the subject's key is erased, every copy of this value — in the log, in snapshots, on topics — is unreadable:
/// that is how an append-only log forgets a person (crypto-shredding).
public struct SealedPersonalData: Codable, Sendable, Hashable {
    /// Whose key sealed it (usually the user id).
    public var subject: String
    /// AES-256-GCM nonce, ciphertext and tag, base64.
    public var sealed: String

    /// Creates a sealed value.
    public init(subject: String, sealed: String) {
        self.subject = subject
        self.sealed = sealed
    }
}


// Sealed values are the bulk of some events (a trip's chunk of samples: 100–300 KB of base64): written and read without
// `Codable` (``JSONWritable``, ``JSONReadable``), members in sorted order as ``ContractJSON`` writes them.
extension SealedPersonalData: JSONWritable, JSONReadable {
    public static var jsonStyle: JSONOutput.Style { .contract }

    public func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("sealed", sealed)
            output.member("subject", subject)
        }
    }

    public static func readJSON(_ data: Data) -> Self? {
        StrictJSONCursor.read(data) { read(&$0) }
    }

    /// The object at `cursor` (both members, each once, plain ASCII strings — base64 and an id), or `nil`.
    public static func read(_ cursor: inout StrictJSONCursor) -> Self? {
        var sealed: String?, subject: String?
        let complete = cursor.object { cursor, key in
            switch key {
            case "sealed":
                guard sealed == nil, let value = cursor.plainString() else { return false }
                sealed = value
            case "subject":
                guard subject == nil, let value = cursor.plainString() else { return false }
                subject = value
            default:
                return false
            }
            return true
        }
        guard complete, let sealed, let subject else { return nil }
        return SealedPersonalData(subject: subject, sealed: sealed)
    }
}
