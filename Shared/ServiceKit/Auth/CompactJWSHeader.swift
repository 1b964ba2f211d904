#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The protected header of a compact JWS, read before any key is chosen.
///
/// Reading it ourselves (rather than letting a library pick a key) is what rejects `alg: none`,
/// `HS256` signed with a public key, and a missing or unknown `kid` before any signature check.
struct CompactJWSHeader: Decodable {
    /// Signature algorithm (`alg`).
    let alg: String
    /// Key id (`kid`).
    let kid: String?
    /// Critical extensions (`crit`); we support none.
    let crit: [String]?

    /// Parses the header of `token`, which must have three segments, the first two non-empty.
    ///
    /// An empty signature is left for the signature check, so `alg: none` is reported as such.
    init(token: String) throws {
        // On the UTF-8 bytes: splitting the String walks grapheme clusters, which dominated verification.
        let bytes = token.utf8
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = bytes[bytes.index(after: firstDot)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[bytes.index(after: secondDot)...].contains(UInt8(ascii: ".")),
            firstDot != bytes.startIndex, bytes.index(after: firstDot) != secondDot,
            let json = Base64URL.decode(utf8: bytes[..<firstDot])
        else { throw AccessTokenError.malformed }
        do {
            self = try Self.decoder.decode(CompactJWSHeader.self, from: json)
        } catch {
            throw AccessTokenError.malformed
        }
    }

    private static let decoder = JSONDecoder()
}
