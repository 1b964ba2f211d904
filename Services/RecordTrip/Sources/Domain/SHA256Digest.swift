import Crypto
import Foundation

/// Lower-case hex SHA-256, the digest that names a chunk's content.
enum SHA256Digest {
    static func hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
