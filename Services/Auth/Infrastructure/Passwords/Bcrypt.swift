import CLibCrypt

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The blocking libxcrypt calls behind ``PasswordHasher``. Every function here may take tens to hundreds of
/// milliseconds: call them only from ``BcryptWorkers``' threads, never from the cooperative pool or an event loop.
enum Bcrypt {
    /// Prefix of new hashes: bcrypt with the corrected 8-bit handling (`$2b$`, as OpenBSD and libxcrypt write it).
    static let prefix = "$2b$"
    /// Length of every bcrypt hash: `$2b$`, two cost digits, `$`, 22 salt and 31 hash characters.
    static let hashLength = 60
    /// Salt bytes handed to `crypt_gensalt_rn` (bcrypt uses 128 bits).
    static let saltByteCount = 16
    /// Costs accepted when verifying stored hashes (bcrypt's own range).
    static let verifiableCosts = 4...31

    /// A new setting (`$2b$NN$` and 22 salt characters) with 16 bytes from the system's CSPRNG.
    static func makeSetting(cost: Int) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let randomBytes = (0..<saltByteCount).map { _ in CChar(bitPattern: UInt8.random(in: .min ... .max, using: &generator)) }
        var output = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let capacity = Int32(output.count)
        let setting: String? = output.withUnsafeMutableBufferPointer { buffer in
            guard let result = crypt_gensalt_rn(prefix, UInt(cost), randomBytes, Int32(randomBytes.count), buffer.baseAddress, capacity)
            else { return nil }
            return String(cString: result)
        }
        guard let setting, setting.hasPrefix(prefix) else { throw PasswordHasherError.hashingFailed }
        return setting
    }

    /// `crypt_rn(password, setting)`: the full hash, or `nil` when libxcrypt refuses the input.
    ///
    /// `setting` may be a setting from ``makeSetting(cost:)`` or a complete stored hash (only its first 29
    /// characters count). The ~32 KiB `struct crypt_data` lives on the heap and is wiped afterwards.
    ///
    /// Only the first ``PasswordHasher/significantPasswordBytes`` (72) UTF-8 bytes are handed to libxcrypt: bcrypt
    /// ignores the rest anyway (so the hash is the same), and libxcrypt refuses passphrases of 512 bytes or more,
    /// which 128 characters of multi-byte or combining text can exceed. The cut may fall inside a character; bcrypt
    /// works on bytes.
    static func crypt(_ password: String, setting: String) -> String? {
        guard !password.utf8.contains(0) else { return nil }
        let phrase = password.utf8.prefix(PasswordHasher.significantPasswordBytes).map { CChar(bitPattern: $0) } + [0]
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        defer {
            explicit_bzero(data, size)
            data.deallocate()
        }
        guard let result = crypt_rn(phrase, setting, data, Int32(size)) else { return nil }
        return String(cString: result)
    }

    /// Whether `hash` looks like a bcrypt hash (`$2a$`, `$2b$` or `$2y$`, cost 04–31, 53 characters of bcrypt's
    /// base64 alphabet). Anything else — other `crypt` schemes, truncated or padded values — is refused before
    /// libxcrypt sees it.
    static func isWellFormedHash(_ hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == hashLength,
            bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
            bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
            let tens = digit(bytes[4]), let units = digit(bytes[5]),
            verifiableCosts.contains(tens * 10 + units)
        else { return false }
        return bytes[7...].allSatisfy(isBcryptBase64)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func isBcryptBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            false
        }
    }
}
