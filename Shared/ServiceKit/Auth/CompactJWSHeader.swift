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
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty,
            let json = Base64URL.decode(segments[0])
        else { throw AccessTokenError.malformed }
        do {
            self = try JSONDecoder().decode(CompactJWSHeader.self, from: json)
        } catch {
            throw AccessTokenError.malformed
        }
    }
}
